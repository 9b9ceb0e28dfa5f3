"""ComputeFilter: the host's compute service is enabled and up."""
from nova_lite.scheduler import filters


class ComputeFilter(filters.BaseHostFilter):

    def host_passes(self, state, spec):
        return state.up and not state.disabled
