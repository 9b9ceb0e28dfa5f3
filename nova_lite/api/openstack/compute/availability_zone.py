"""/os-availability-zone (anyone) and /os-availability-zone/detail
(administrators): the zones of the services of every cell, as
nova_lite.compute.api.availability_zones derives them (no host
aggregates)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import availability_zones as az_api
from nova_lite.policies import availability_zone as az_policies


def _service(service):
    return {'available': service.is_up(),
            'active': not service.disabled,
            'updated_at': common.isotime(service.last_seen_up
                                         or service.updated_at)}


def _hosts(hosts):
    if hosts is None:
        return None
    return {host: {s.binary: _service(s) for s in services}
            for host, services in hosts.items()}


def _zone(zone):
    return {'zoneName': zone.name,
            'zoneState': {'available': zone.available},
            'hosts': _hosts(zone.hosts)}


class AvailabilityZoneController(object):
    """/os-availability-zone, /os-availability-zone/detail"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(az_policies.LIST)
        return {'availabilityZoneInfo': [
            _zone(z) for z in az_api.list_zones(ctxt.elevated())]}

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def detail(self):
        ctxt = wsgi.authorize(az_policies.DETAIL)
        return {'availabilityZoneInfo': [
            _zone(z) for z in az_api.list_zones_with_hosts(ctxt.elevated())]}
