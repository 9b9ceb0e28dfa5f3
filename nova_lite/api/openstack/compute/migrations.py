"""GET /os-migrations: the migrations of every cell, newest first.

Filters status, host (source or destination compute), source_compute,
migration_type, instance_uuid (all versions; ``hidden`` is accepted and
changes nothing: hidden records are never listed); limit, marker and
changes-since from 2.59, changes-before from 2.66, user_id and
project_id from 2.80. Body fields grow with 2.23 (migration_type,
links), 2.59 (uuid, migrations_links) and 2.80 (user_id, project_id).
"""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import migrations as schemas
from nova_lite.api.openstack.compute.views import migrations as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import migration_listing
from nova_lite.conf import CONF
from nova_lite.policies import migrations as policies

_FILTERS = ('status', 'host', 'source_compute', 'migration_type',
            'instance_uuid', 'user_id', 'project_id')
_QUERY_SCHEMAS = (
    (schemas.index_query, av.MIN, av.before(av.MIGRATIONS_PAGING)),
    (schemas.index_query_v259, av.MIGRATIONS_PAGING,
     av.before(av.MIGRATIONS_CHANGES_BEFORE)),
    (schemas.index_query_v266, av.MIGRATIONS_CHANGES_BEFORE,
     av.before(av.MIGRATIONS_USER_PROJECT)),
    (schemas.index_query_v280, av.MIGRATIONS_USER_PROJECT, None),
)


def _index_query(fn):
    for schema, first, last in _QUERY_SCHEMAS:
        fn = validation.query_schema(schema, first, last)(fn)
    return fn


def _limit(query):
    limit = validation.last(query, 'limit')
    if limit is None:
        return CONF.api.max_limit
    return min(int(limit), CONF.api.max_limit)


def _authorize(ctxt, filters):
    """Check the list rules; whether the caller sees host fields."""
    ctxt.can(policies.INDEX)
    project_id = filters.get('project_id')
    if not project_id or project_id != ctxt.project_id:
        ctxt.can(policies.INDEX_ALL_PROJECTS)
    return ctxt.can(policies.INDEX_HOST, fatal=False)


class MigrationsController(object):
    """/os-migrations"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_index_query
    def index(self, query=None):
        ctxt = wsgi.request_context()
        version = wsgi.api_version()
        filters = {name: validation.last(query, name) for name in _FILTERS
                   if validation.last(query, name) is not None}
        paging = version >= av.MIGRATIONS_PAGING
        if paging:
            # A malformed time is a 400 whoever asks (the schema's format).
            filters['changes_since'], filters['changes_before'] = \
                validation.changes_window(query)
        hosts = _authorize(ctxt, filters)
        limit = _limit(query) if paging else None
        # None below 2.59: the schema does not declare it.
        marker = validation.last(query, 'marker')
        records = migration_listing.list(ctxt, filters, limit=limit,
                                         marker=marker)
        render = views.Builder(pecan.request.application_url, version,
                               hosts=hosts)
        return render.index(records, limit, [*pecan.request.GET.items()])
