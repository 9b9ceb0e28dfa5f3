"""AvailabilityZoneFilter: the host is in the zone the request asks
for (every host is in [DEFAULT] default_availability_zone)."""
from nova_lite.conf import CONF
from nova_lite.scheduler import filters


class AvailabilityZoneFilter(filters.BaseHostFilter):

    def host_passes(self, state, spec):
        zone = spec.availability_zone
        return not zone or zone == CONF.default_availability_zone
