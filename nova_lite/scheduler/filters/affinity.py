"""SameHostFilter and DifferentHostFilter: the same_host and
different_host scheduler hints (server uuids). The hosts of the servers
named are read once for the batch, from the cells of the batch's hosts
only (a server on one of those hosts is in its cell): one query per
cell, none when the request has no such hint.
"""
from nova_lite import objects
from nova_lite.objects import instance_group
from nova_lite.scheduler import filters


def _hinted(spec, key):
    hints = (spec.scheduler_hints if spec is not None
             and spec.obj_attr_is_set('scheduler_hints') else None) or {}
    value = hints.get(key)
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


def _hosts_of(context, states, uuids):
    cells = {s.cell_uuid for s in states}
    mappings = [c for c in objects.CellMappingList.get_all(context)
                if c.uuid in cells]
    return set(instance_group.instance_hosts(context, uuids,
                                             cells=mappings).values())


class SameHostFilter(filters.BaseHostFilter):
    """Only the hosts of the servers same_host names."""

    def filter_all(self, context, states, spec):
        uuids = _hinted(spec, 'same_host')
        if not uuids or not states:
            return states
        hosts = _hosts_of(context, states, uuids)
        return [s for s in states if s.host in hosts]


class DifferentHostFilter(filters.BaseHostFilter):
    """None of the hosts of the servers different_host names."""

    def filter_all(self, context, states, spec):
        uuids = _hinted(spec, 'different_host')
        if not uuids or not states:
            return states
        hosts = _hosts_of(context, states, uuids)
        return [s for s in states if s.host not in hosts]
