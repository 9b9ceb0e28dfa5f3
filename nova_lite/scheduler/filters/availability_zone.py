"""AvailabilityZoneFilter: the host is in the zone the request asks
for: the availability_zone of one of its host aggregates, else
[DEFAULT] default_availability_zone. The zones of a batch are read in
one query."""
from nova_lite.conf import CONF
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.scheduler import filters


def zones_of(context, hosts):
    """{host: zone} of hosts (ONE query)."""
    found = aggregate_obj.metadata_by_host(context, set(hosts))
    zones = {}
    for host in hosts:
        zone = None
        for _uuid, meta in found.get(host, ()):
            zone = zone or meta.get(aggregate_obj.AZ_KEY)
        zones[host] = zone or CONF.default_availability_zone
    return zones


class AvailabilityZoneFilter(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        zone = spec.availability_zone
        if not zone:
            return list(states)
        zones = zones_of(context, [s.host for s in states])
        return [s for s in states if zones[s.host] == zone]
