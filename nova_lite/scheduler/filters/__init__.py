"""Host filters, by Nova's names for what nova_lite supports.

The candidates come from one placement query (placement/candidates.py);
their host states are read from the cells in batches (host_state.
best_hosts) and each batch goes through the filters enabled by
[filter_scheduler] enabled_filters, in order. A filter that needs data
beyond the host state (the instances or aggregates of a host...) reads
it for the whole batch at once in filter_all: one query per cell or one
on the API database, never one per host.

To add a filter: a module of this package defining a BaseHostFilter
subclass named as Nova names it, and its line in FILTER_MODULES.
"""
import importlib

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class BaseHostFilter(object):
    """Subclasses override host_passes, or filter_all when they read
    what they need for the whole batch first."""

    def filter_all(self, context, states, spec):
        """The states of the batch that pass, in their order."""
        return [s for s in states if self.host_passes(s, spec)]

    def host_passes(self, state, spec):
        raise NotImplementedError()


# Filter name -> the module of this package that defines it.
FILTER_MODULES = {
    'ComputeFilter': 'compute',
    'AvailabilityZoneFilter': 'availability_zone',
    'AggregateInstanceExtraSpecsFilter': 'aggregate',
    'AggregateMultiTenancyIsolation': 'aggregate',
    'ImagePropertiesFilter': 'image_props',

    'ServerGroupAffinityFilter': 'server_group',
    'ServerGroupAntiAffinityFilter': 'server_group',
    'SameHostFilter': 'affinity',
    'DifferentHostFilter': 'affinity',
}

_CACHE = {}
_WARNED = set()


def enabled(names):
    """Instances of the named filters, in order; names nova_lite does
    not serve are skipped with a warning (once each), so a Nova
    configuration can be used as it is."""
    key = tuple(n.strip() for n in names if n.strip())
    if key not in _CACHE:
        found = []
        for name in key:
            module = FILTER_MODULES.get(name)
            if module is None:
                if name not in _WARNED:
                    _WARNED.add(name)
                    LOG.warning('[filter_scheduler] enabled_filters: '
                                'nova_lite has no filter %s; ignored.',
                                name)
                continue
            mod = importlib.import_module('%s.%s' % (__name__, module))
            found.append(getattr(mod, name)())
        _CACHE[key] = found
    return _CACHE[key]


def filter_hosts(context, states, spec, names):
    """The states that pass every enabled filter."""
    for host_filter in enabled(names):
        if not states:
            break
        states = host_filter.filter_all(context, states, spec)
    return states
