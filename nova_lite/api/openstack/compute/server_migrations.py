"""GET /servers/{server_id}/migrations[/{migration_id}] (2.23; 404
before): the server's in-progress live migrations (status queued,
preparing, running or post-migrating). Another project's server does
not exist (404); a migration that is not one of those is a 404."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import migrations as schemas
from nova_lite.api.openstack.compute.views import migrations as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute import migration_listing
from nova_lite.policies import server_migrations as policies


def _check(ctxt, rule):
    def check(project_id):
        ctxt.can(rule, target={'project_id': project_id})
    return check


def _builder(ctxt, hosts_rule=None, project_id=None):
    hosts = hosts_rule is None or ctxt.can(
        hosts_rule, target={'project_id': project_id}, fatal=False)
    return views.Builder(pecan.request.application_url, wsgi.api_version(),
                         hosts=hosts)


class ServerMigrationController(object):
    """/servers/{server_id}/migrations/{migration_id}"""

    def __init__(self, server_id, migration_id):
        self.server_id = server_id
        self.migration_id = migration_id

    @wsgi.expose()
    @validation.query_schema(schemas.server_query, av.SERVER_MIGRATIONS)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        rec = migration_listing.get_live_in_progress(
            ctxt, self.server_id, self.migration_id,
            check=_check(ctxt, policies.SHOW))
        return {'migration': _builder(ctxt).server_migration(rec)}


class ServerMigrationsController(object):
    """/servers/{server_id}/migrations"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.query_schema(schemas.server_query, av.SERVER_MIGRATIONS)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        owner = {}

        def check(project_id):
            ctxt.can(policies.INDEX, target={'project_id': project_id})
            owner['project_id'] = project_id

        recs = migration_listing.live_in_progress(ctxt, self.server_id,
                                                  check=check)
        render = _builder(ctxt, policies.INDEX_HOST, owner['project_id'])
        return {'migrations': [render.server_migration(r) for r in recs]}
