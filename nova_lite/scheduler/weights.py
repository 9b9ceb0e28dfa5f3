"""Weighers that need a host's cell: the CrossCellWeigher.

The capacity weighers (host_state.weigh) only read free amounts, so
allocation candidates are weighed before their host states are read;
the cross-cell weight is added once the states (and so their cells)
are known (host_state.best_hosts).
"""
from nova_lite.conf import CONF


def cross_cell_source(spec):
    """The source cell uuid of a move that may cross cells (the request
    spec's requested_destination has allow_cross_cell_move), else None."""
    dest = (spec.requested_destination
            if spec is not None and spec.obj_attr_is_set(
                'requested_destination') else None) or {}
    if not dest.get('allow_cross_cell_move'):
        return None
    return dest.get('source_cell_uuid')


class CrossCellWeigher(object):
    """During a cross-cell move, hosts in the source cell weigh
    [filter_scheduler] cross_cell_move_weight_multiplier (positive: the
    source cell is preferred, negative: the other cells are); a no-op
    for every other request."""

    def __init__(self, spec):
        self.source = cross_cell_source(spec)
        self.multiplier = (
            CONF.filter_scheduler.cross_cell_move_weight_multiplier
            if self.source else 0.0)

    @property
    def active(self):
        return bool(self.multiplier)

    def weight(self, state):
        if self.active and state.cell_uuid == self.source:
            return self.multiplier
        return 0.0

    def preferred(self, state):
        """Whether state is in the group of cells the weigher prefers
        (the source cell, or the others for a negative multiplier)."""
        return (state.cell_uuid == self.source) == (self.multiplier > 0)


class ServerGroupSoftWeigher(object):
    """The soft-affinity and soft-anti-affinity weighers: for a server of
    a group with one of those policies, a host's weight follows how many
    members of the group it has (RequestSpec.instance_group.hosts, one
    entry per member), normalised to 0..1 over the hosts weighed, times
    [filter_scheduler] soft_affinity_weight_multiplier (more members
    weigh more) or soft_anti_affinity_weight_multiplier (more members
    weigh less); a no-op for every other request."""

    def __init__(self, spec):
        group = (spec.instance_group if spec is not None
                 and spec.obj_attr_is_set('instance_group') else None)
        self.hosts = list(group.hosts or []) if group is not None else []
        policy = group.policy if group is not None else None
        fs = CONF.filter_scheduler
        if policy == 'soft-affinity':
            self.multiplier = fs.soft_affinity_weight_multiplier
        elif policy == 'soft-anti-affinity':
            self.multiplier = -fs.soft_anti_affinity_weight_multiplier
        else:
            self.multiplier = 0.0

    @property
    def active(self):
        return bool(self.multiplier) and bool(self.hosts)

    def weights(self, states):
        """The weight of each of states, in their order."""
        if not self.active:
            return [0.0] * len(states)
        counts = [self.hosts.count(s.host) for s in states]
        lo, hi = min(counts, default=0), max(counts, default=0)
        if hi == lo:
            return [0.0] * len(states)
        return [self.multiplier * (c - lo) / (hi - lo) for c in counts]

    def preferred(self, state):
        """Whether state is as good as a host can be for the group: no
        member on it (soft anti-affinity) or some (soft affinity)."""
        on_it = state.host in self.hosts
        return on_it if self.multiplier > 0 else not on_it
