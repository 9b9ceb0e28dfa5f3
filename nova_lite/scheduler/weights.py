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
