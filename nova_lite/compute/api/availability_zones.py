"""Availability zones, as os-availability-zone shows them, from the
services of every cell (one scatter-gather read of the services; a cell
that does not answer is left out with a warning).

There are no host aggregates: a compute is in ``[DEFAULT]
default_availability_zone``, any other service in ``[DEFAULT]
internal_service_availability_zone``. A zone is available when one of
its services is enabled; a zone whose services are all disabled is
listed as not available (as in Nova).
"""
import collections

from nova_lite.compute.api import hosts as hosts_api
from nova_lite.conf import CONF
from nova_lite import constants

# One zone: its name, whether it is available, and (detail only) its
# hosts as {host: [Service]} of enabled services, or None.
Zone = collections.namedtuple('Zone', ['name', 'available', 'hosts'])


def zone_of(service):
    """The availability zone of a service."""
    if constants.current_binary(service.binary) == constants.COMPUTE_BINARY:
        return CONF.default_availability_zone
    return CONF.internal_service_availability_zone


def _zones(services):
    """(available zone names, not available zone names), sorted."""
    available = {zone_of(s) for s in services if not s.disabled}
    unavailable = {zone_of(s) for s in services if s.disabled} - available
    return sorted(available), sorted(unavailable)


def list_zones(context):
    """[Zone] without hosts and without the internal zone: available
    zones first, then the others."""
    services = hosts_api.service_get_all(context).services
    available, unavailable = _zones(services)
    internal = CONF.internal_service_availability_zone
    return ([Zone(z, True, None) for z in available if z != internal] +
            [Zone(z, False, None) for z in unavailable if z != internal])


def list_zones_with_hosts(context):
    """[Zone] of every zone, the internal one included: an available
    zone's hosts are its enabled services by host (the API service left
    out, as Nova leaves it); a zone not available has None."""
    services = hosts_api.service_get_all(context).services
    available, unavailable = _zones(services)
    hosts = collections.defaultdict(dict)
    for service in services:
        binary = constants.current_binary(service.binary)
        if service.disabled or binary == constants.API_BINARY:
            continue
        hosts[zone_of(service)].setdefault(service.host, []).append(service)
    return ([Zone(z, True, dict(hosts.get(z, {}))) for z in available] +
            [Zone(z, False, None) for z in unavailable])
