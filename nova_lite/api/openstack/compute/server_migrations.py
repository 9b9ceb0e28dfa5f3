"""GET /servers/{server_id}/migrations[/{migration_id}] (2.23; 404
before): the server's in-progress live migrations (status queued,
preparing, running or post-migrating). Another project's server does
not exist (404); a migration that is not one of those is a 404.
POST /servers/{server_id}/migrations/{migration_id}/action
(force_complete, 2.22) and DELETE .../{migration_id} (abort, 2.24):
nova_lite.compute.api.server_live_migrate, 202 with no body."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import migrations as schemas
from nova_lite.api.openstack.compute.schemas import server_live_migrate \
    as live_schemas
from nova_lite.api.openstack.compute.views import migrations as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import migration_listing
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_live_migrate
from nova_lite.policies import server_migrations as policies


def _authorized(ctxt, server_id, rule):
    """The server's project once rule allows the caller on it;
    InstanceNotFound (404) first for another project's server."""
    project_id = server_actions.get(ctxt, server_id).project_id
    ctxt.can(rule, target={'project_id': project_id})
    return project_id


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
        _authorized(ctxt, self.server_id, policies.SHOW)
        rec = migration_listing.get_live_in_progress(
            ctxt, self.server_id, self.migration_id)
        return {'migration': _builder(ctxt).server_migration(rec)}

    @wsgi.expose(status=202)
    def delete(self):
        """Abort the live migration (2.24; from 2.65 also queued or
        preparing)."""
        ctxt = wsgi.request_context()
        instance = server_actions.get(ctxt, self.server_id)
        ctxt.can(policies.DELETE, target={'project_id': instance.project_id})
        server_live_migrate.abort(
            ctxt, instance, self.migration_id,
            with_queued=wsgi.api_version() >= av.LIVE_MIGRATION_ABORT_QUEUED)


class ServerMigrationActionController(wsgi.ActionController):
    """/servers/{server_id}/migrations/{migration_id}/action"""

    def __init__(self, server_id, migration_id):
        self.server_id = server_id
        self.migration_id = migration_id

    @validation.schema(live_schemas.force_complete)
    def force_complete(self, body):
        ctxt = wsgi.request_context()
        instance = server_actions.get(ctxt, self.server_id)
        ctxt.can(policies.FORCE_COMPLETE,
                 target={'project_id': instance.project_id})
        server_live_migrate.force_complete(ctxt, instance, self.migration_id)


class ServerMigrationsController(object):
    """/servers/{server_id}/migrations"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.server_query, av.SERVER_MIGRATIONS)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        project_id = _authorized(ctxt, self.server_id, policies.INDEX)
        recs = migration_listing.live_in_progress(ctxt, self.server_id)
        render = _builder(ctxt, policies.INDEX_HOST, project_id)
        return {'migrations': [render.server_migration(r) for r in recs]}
