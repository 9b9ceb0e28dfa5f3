"""Availability zones, as os-availability-zone shows them, from the
services of every cell (one scatter-gather read of the services; a cell
that does not answer is left out with a warning).

A compute is in the availability zone of its host aggregates (the
``availability_zone`` metadata of one of them; one read of the API
database), else in ``[DEFAULT] default_availability_zone``; any other
service is in ``[DEFAULT] internal_service_availability_zone``. A zone
is available when one of its services is enabled; a zone whose services
are all disabled is listed as not available (as in Nova).
"""
import collections

from nova_lite.compute.api import hosts as hosts_api
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import exception
from nova_lite.objects import aggregate as aggregate_obj

# One zone: its name, whether it is available, and (detail only) its
# hosts as {host: [Service]} of enabled services, or None.
Zone = collections.namedtuple('Zone', ['name', 'available', 'hosts'])


def host_zones(context):
    """{host: zone} of the hosts aggregates put in a zone."""
    return {host: zone for zone, hosts in
            aggregate_obj.zone_hosts(context).items() for host in hosts}


def zone_of(service, zones=None):
    """The availability zone of a service (zones: host_zones())."""
    if constants.current_binary(service.binary) == constants.COMPUTE_BINARY:
        return (zones or {}).get(service.host,
                                 CONF.default_availability_zone)
    return CONF.internal_service_availability_zone


def host_zone(context, host):
    """The availability zone of a compute host."""
    return aggregate_obj.zone_of_host(context, host) or \
        CONF.default_availability_zone


def check_requested_zone(context, zone):
    """InvalidInput (400) unless zone is the default zone or one that
    aggregates give hosts."""
    if zone == CONF.default_availability_zone:
        return
    if not aggregate_obj.zone_hosts(context).get(zone):
        raise exception.InvalidInput(
            reason='The requested availability zone is not available')


def _zones(services, zones):
    """(available zone names, not available zone names), sorted."""
    available = {zone_of(s, zones) for s in services if not s.disabled}
    unavailable = {zone_of(s, zones) for s in services
                   if s.disabled} - available
    return sorted(available), sorted(unavailable)


def list_zones(context):
    """[Zone] without hosts and without the internal zone: available
    zones first, then the others."""
    services = hosts_api.service_get_all(context).services
    available, unavailable = _zones(services, host_zones(context))
    internal = CONF.internal_service_availability_zone
    return ([Zone(z, True, None) for z in available if z != internal] +
            [Zone(z, False, None) for z in unavailable if z != internal])


def list_zones_with_hosts(context):
    """[Zone] of every zone, the internal one included: an available
    zone's hosts are its enabled services by host (the API service left
    out, as Nova leaves it); a zone not available has None."""
    services = hosts_api.service_get_all(context).services
    zones = host_zones(context)
    available, unavailable = _zones(services, zones)
    hosts = collections.defaultdict(dict)
    for service in services:
        binary = constants.current_binary(service.binary)
        if service.disabled or binary == constants.API_BINARY:
            continue
        hosts[zone_of(service, zones)].setdefault(service.host,
                                                  []).append(service)
    return ([Zone(z, True, dict(hosts.get(z, {}))) for z in available] +
            [Zone(z, False, None) for z in unavailable])
