"""os-hypervisors: the compute nodes of every cell."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import hypervisors as schemas
from nova_lite.api.openstack.compute.views import hypervisors as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import hosts as hosts_api
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.policies import hypervisors as hv_policies

# The last versions with /{pattern}/search and /servers, with /statistics,
# and with /{id}/uptime.
LAST_LEGACY = av.before(av.SERVICE_HYPERVISOR_UUID_IDS)
LAST_WITH_CAPACITY = av.before(av.HYPERVISOR_CAPACITY_REMOVED)
LAST_WITH_UPTIME_ROUTE = av.before(av.HYPERVISOR_UPTIME_IN_SHOW)


def _by_uuid(version):
    return version >= av.SERVICE_HYPERVISOR_UUID_IDS


def _uptime_or_none(ctxt, hypervisor):
    """From 2.88 show (and detail) carry the uptime when the compute can
    tell."""
    try:
        return hosts_api.hypervisor_uptime(ctxt, hypervisor)
    except (exception.ComputeServiceUnavailable,
            exception.HypervisorUptimeNotImplemented):
        return None


def _list_params(query, version):
    """(limit, marker, pattern, with_servers) from a validated query."""
    limit = marker = pattern = None
    with_servers = False
    if version >= av.HYPERVISOR_PAGING:
        limit = validation.last(query, 'limit')
        limit = min(int(limit), CONF.api.max_limit) if limit is not None \
            else None
        marker = validation.last(query, 'marker')
    if version >= av.SERVICE_HYPERVISOR_UUID_IDS:
        pattern = validation.last(query, 'hypervisor_hostname_pattern')
        with_servers = validation.to_bool(
            validation.last(query, 'with_servers', False))
        if pattern is not None and (limit is not None or marker is not None):
            raise exception.InvalidInput(
                reason='Paging over hypervisors with the '
                       'hypervisor_hostname_pattern query parameter is not '
                       'supported.')
    return limit, marker, pattern, with_servers


def _list(query, detailed):
    ctxt = wsgi.authorize(hv_policies.LIST_DETAIL if detailed
                       else hv_policies.LIST)
    version = wsgi.api_version()
    limit, marker, pattern, with_servers = _list_params(query, version)
    hypervisors = hosts_api.compute_node_get_all(
        ctxt, hostname_pattern=pattern, limit=limit, marker=marker,
        marker_by_uuid=_by_uuid(version))
    # Servers are not tracked yet: with_servers lists none.
    if not detailed:
        listed = [views.summary(h, version, with_servers, [])
                  for h in hypervisors]
    else:
        uptimes = [None] * len(hypervisors)
        if version >= av.HYPERVISOR_UPTIME_IN_SHOW:
            uptimes = hosts_api.hypervisor_uptimes(ctxt, hypervisors)
        listed = [views.detail(h, version, with_servers, [], uptime)
                  for h, uptime in zip(hypervisors, uptimes)]
    body = {'hypervisors': listed}
    links = views.links(pecan.request.application_url, hypervisors, limit,
                        version, detailed)
    if links:
        body['hypervisors_links'] = links
    return body


_LIST_QUERIES = (
    (schemas.index_query, av.MIN, av.before(av.HYPERVISOR_PAGING)),
    (schemas.index_query_v233, av.HYPERVISOR_PAGING, LAST_LEGACY),
    (schemas.index_query_v253, av.SERVICE_HYPERVISOR_UUID_IDS, None),
)


def _list_query(fn):
    for schema, low, high in reversed(_LIST_QUERIES):
        fn = validation.query_schema(schema, low, high)(fn)
    return fn


class HypervisorController(object):
    """/os-hypervisors/{id}, before 2.88 {id}/uptime; before 2.53
    {pattern}/search and /servers."""

    def __init__(self, hypervisor_id):
        self.hypervisor_id = hypervisor_id

    @wsgi.expose()
    @validation.query_schema(schemas.show_query, av.MIN, LAST_LEGACY)
    @validation.query_schema(schemas.show_query_v253,
                             av.SERVICE_HYPERVISOR_UUID_IDS)
    def index(self, query=None):
        ctxt = wsgi.authorize(hv_policies.SHOW)
        version = wsgi.api_version()
        with_servers = _by_uuid(version) and validation.to_bool(
            validation.last(query, 'with_servers', False))
        hypervisor = self._get(ctxt, version)
        uptime = None
        if version >= av.HYPERVISOR_UPTIME_IN_SHOW:
            uptime = _uptime_or_none(ctxt, hypervisor)
        return {'hypervisor': views.detail(hypervisor, version,
                                           with_servers, [], uptime)}

    def _get(self, ctxt, version):
        by_uuid = _by_uuid(version)
        if by_uuid and hosts_api.parse_id(self.hypervisor_id,
                                            True) is None:
            raise exception.InvalidInput(
                reason='Invalid uuid %s' % self.hypervisor_id)
        return hosts_api.compute_node_get(ctxt, self.hypervisor_id,
                                            by_uuid)

    @wsgi.expose()
    def uptime(self):
        ctxt = wsgi.authorize(hv_policies.UPTIME)
        version = wsgi.api_version()
        hypervisor = self._get(ctxt, version)
        return {'hypervisor': views.uptime(
            hypervisor, version,
            hosts_api.hypervisor_uptime(ctxt, hypervisor))}

    @wsgi.expose()
    def search(self):
        ctxt = wsgi.authorize(hv_policies.SEARCH)
        version = wsgi.api_version()
        hypervisors = hosts_api.compute_node_get_all(
            ctxt, hostname_pattern=self.hypervisor_id)
        return {'hypervisors': [views.summary(h, version)
                                for h in hypervisors]}

    @wsgi.expose()
    def servers(self):
        ctxt = wsgi.authorize(hv_policies.SERVERS)
        version = wsgi.api_version()
        hypervisors = hosts_api.compute_node_get_all(
            ctxt, hostname_pattern=self.hypervisor_id)
        return {'hypervisors': [views.summary(h, version, True, [])
                                for h in hypervisors]}


class HypervisorsController(object):
    """/os-hypervisors, /os-hypervisors/detail, /os-hypervisors/statistics"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def index(self, query=None):
        return _list(query, detailed=False)

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def detail(self, query=None):
        return _list(query, detailed=True)

    @wsgi.expose()
    def statistics(self):
        ctxt = wsgi.authorize(hv_policies.STATISTICS)
        return {'hypervisor_statistics':
                hosts_api.compute_node_statistics(ctxt)}
