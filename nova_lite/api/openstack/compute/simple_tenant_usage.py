"""GET /os-simple-tenant-usage (every project, administrators) and
/os-simple-tenant-usage/{tenant_id} (one project): what the servers of
every cell used between ``start`` and ``end`` (nova_lite.compute.api.
usage); from 2.40 pages of ``limit`` servers after ``marker`` with a
``next`` link when a page is full."""
import datetime
from urllib import parse

from oslo_utils import timeutils
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import simple_tenant_usage \
    as schemas
from nova_lite.api.openstack.compute.views import common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import usage as usage_api
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.policies import simple_tenant_usage as policies

COLLECTION = 'os-simple-tenant-usage'
_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f',
            '%Y-%m-%d %H:%M:%S.%f')


def _first(query, name):
    values = (query or {}).get(name)
    return values[0] if values else None


def _time(value):
    """A start or end as the Compute API reads it (naive UTC; now if
    not given); 400 if in none of its formats."""
    if not value:
        return timeutils.utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise exception.InvalidInput(reason='Datetime is in invalid format')


def _window(query):
    start = _time(_first(query, 'start'))
    end = _time(_first(query, 'end'))
    if not start < end:
        raise exception.InvalidInput(
            reason='Invalid start time. The start time cannot occur after '
                   'the end time.')
    return start, end


def _paging(query):
    """(limit, marker, paged). Below 2.40 there is no paging, but Nova
    still stops at [api] max_limit servers (with no links)."""
    if wsgi.api_version() < av.USAGE_PAGING:
        return CONF.api.max_limit, None, False
    limit = validation.last(query, 'limit')
    limit = CONF.api.max_limit if limit is None else min(
        int(limit), CONF.api.max_limit)
    return limit, validation.last(query, 'marker'), True


def _server(usage):
    return dict(usage, started_at=common.isotime(usage['started_at']),
                ended_at=common.isotime(usage['ended_at']))


def _tenant(summary):
    body = dict(summary, start=common.isotime(summary['start']),
                stop=common.isotime(summary['stop']))
    if 'server_usages' in body:
        body['server_usages'] = [_server(u) for u in body['server_usages']]
    return body


def _links(usages, limit, path):
    """[next] when a page is full: the request's query with the last
    server as the marker."""
    if not limit or len(usages) != limit:
        return []
    query = dict(pecan.request.GET.items())
    query['marker'] = usages[-1]['instance_id']
    href = '%s/%s?%s' % (pecan.request.application_url.rstrip('/'), path,
                         parse.urlencode(query))
    return [{'rel': 'next', 'href': href}]


def _usages(ctxt, query, project_id, detailed):
    start, end = _window(query)
    limit, marker, paged = _paging(query)
    usages = usage_api.server_usages(ctxt, start, end, project_id,
                                     limit=limit, marker=marker)
    return (usage_api.tenant_usages(usages, start, end, detailed), usages,
            limit if paged else None)


class UsagesController(object):
    """/os-simple-tenant-usage"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EMPTY_SERVERS)
    @validation.query_schema(schemas.index_query, av.MIN,
                             av.before(av.USAGE_PAGING))
    @validation.query_schema(schemas.index_query_v240, av.USAGE_PAGING)
    def index(self, query=None):
        ctxt = wsgi.authorize(policies.LIST)
        detailed = _first(query, 'detailed') == '1'
        tenants, usages, limit = _usages(ctxt, query, None, detailed)
        body = {'tenant_usages': [_tenant(t) for t in tenants]}
        links = _links(usages, limit, COLLECTION)
        if links:
            body['tenant_usages_links'] = links
        return body


class UsageController(object):
    """/os-simple-tenant-usage/{tenant_id}"""

    def __init__(self, tenant_id):
        self.tenant_id = tenant_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EMPTY_SERVERS)
    @validation.query_schema(schemas.show_query, av.MIN,
                             av.before(av.USAGE_PAGING))
    @validation.query_schema(schemas.show_query_v240, av.USAGE_PAGING)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        ctxt.can(policies.SHOW, target={'project_id': self.tenant_id})
        tenants, usages, limit = _usages(ctxt, query, self.tenant_id, True)
        body = {'tenant_usage': _tenant(tenants[0]) if tenants else {}}
        links = _links(usages, limit, '%s/%s' % (COLLECTION,
                                                 self.tenant_id))
        if links:
            body['tenant_usage_links'] = links
        return body
