"""Host states of allocation candidates, read from their cells, and the
filters and weighers the scheduler applies to them.

Only the candidates' rows are read (compute node joined to its compute
service, WHERE uuid IN the candidates), one query per cell in parallel:
the cost follows [scheduler] max_candidates, not the cloud's size.
"""
import collections
import random

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite.objects import service as service_obj
from nova_lite.scheduler import filters
from nova_lite.scheduler import weights

CN = models.ComputeNode.__table__
SVC = models.Service.__table__

HostState = collections.namedtuple(
    'HostState', 'uuid host nodename cell_uuid up disabled free')
# Candidates whose host state is read at a time, best weighed first.
BATCH = 32


@main_db.reader
def _rows(context, uuids):
    return context.session.execute(
        sa.select(CN.c.uuid, CN.c.host, CN.c.hypervisor_hostname,
                  SVC.c.disabled, SVC.c.forced_down, SVC.c.last_seen_up,
                  SVC.c.updated_at, SVC.c.created_at)
        .select_from(CN.join(SVC, sa.and_(
            SVC.c.host == CN.c.host, SVC.c.deleted == 0,
            SVC.c.binary.in_(
                constants.binary_names(constants.COMPUTE_BINARY)))))
        .where(CN.c.uuid.in_(list(uuids)), CN.c.deleted == 0)).fetchall()


def _is_up(forced_down, last_seen_up, updated_at, created_at, down_time,
           now):
    last = last_seen_up or updated_at or created_at
    if forced_down or last is None:
        return False
    return abs(timeutils.delta_seconds(last, now)) <= down_time


def host_states(context, cells, candidates):
    """{uuid: HostState} of the candidates found in cells (one query
    per cell, in parallel)."""
    by_uuid = {c['uuid']: c for c in candidates}
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.cell_timeout, _rows, list(by_uuid))
    down_time = service_obj.service_down_time()
    now = timeutils.utcnow().replace(tzinfo=None)
    states = {}
    for cell in cells:
        rows = results[cell.uuid]
        if nova_context.is_cell_failure(rows):
            continue
        for (uuid, host, node, disabled, forced, seen, updated,
             created) in rows:
            states[uuid] = HostState(
                uuid, host, node, cell.uuid,
                _is_up(forced, seen, updated, created, down_time, now),
                bool(disabled), dict(by_uuid[uuid]['free']))
    return states


def forced(spec):
    """(hosts, nodes) an administrator forced (RequestSpec 1.4), each
    a list, both empty when none was."""
    return tuple((getattr(spec, name) or []) if spec.obj_attr_is_set(name)
                 else [] for name in ('force_hosts', 'force_nodes'))


def requested(state, spec):
    """What every request asks, whatever filters are enabled: not a
    host the request excludes, and the host, node or cell it names or
    forces."""
    if state.host in (spec.ignore_hosts or ()):
        return False
    hosts, nodes = forced(spec)
    if (hosts and state.host not in hosts) or (
            nodes and state.nodename not in nodes):
        return False
    dest = spec.requested_destination or {}
    for key, value in (('host', state.host), ('node', state.nodename),
                       ('cell_uuid', state.cell_uuid)):
        if dest.get(key) and dest[key] != value:
            return False
    return True


def passing(context, states, spec):
    """The states that the request allows and every enabled filter
    ([filter_scheduler] enabled_filters) passes, in their order. A
    forced host or node skips the filters, as Nova's force_hosts and
    force_nodes do; a disabled one is still refused (as Nova's placement
    pre-filter on the COMPUTE_STATUS_DISABLED trait refuses it)."""
    allowed = [s for s in states if requested(s, spec)]
    if any(forced(spec)):
        return [s for s in allowed if not s.disabled]
    return filters.filter_hosts(context, allowed, spec,
                                CONF.filter_scheduler.enabled_filters)


_WEIGHERS = {'ram': 'MEMORY_MB', 'cpu': 'VCPU', 'disk': 'DISK_GB'}


def weigh(items, free=lambda item: item.free, spec=None):
    """items sorted best first: per weigher the free amount normalised
    to 0..1 over the items, times its multiplier, summed, plus the
    CrossCellWeigher's weight of host states (items with a cell) when
    spec is a cross-cell move and the soft (anti-)affinity weight of
    host states when spec has a server group with a soft policy; ties
    in random order.
    The capacity weighers only use free capacity, so candidates are
    weighed before their host states are read (see best_hosts)."""
    totals = [0.0] * len(items)
    for weigher in CONF.scheduler.weight_classes:
        rc = _WEIGHERS.get(weigher.strip())
        if rc is None:
            continue
        multiplier = getattr(CONF.scheduler,
                             '%s_weight_multiplier' % weigher.strip())
        values = [free(item).get(rc, 0) for item in items]
        lo, hi = min(values, default=0), max(values, default=0)
        if hi == lo:
            continue
        for i, value in enumerate(values):
            totals[i] += multiplier * (value - lo) / (hi - lo)
    cross_cell = weights.CrossCellWeigher(spec)
    if cross_cell.active:
        for i, item in enumerate(items):
            totals[i] += cross_cell.weight(item)
    soft = weights.ServerGroupSoftWeigher(spec)
    if soft.active:
        for i, weight in enumerate(soft.weights(items)):
            totals[i] += weight
    # Equal weights in random order: concurrent requests that read the
    # same free amounts then spread instead of all taking the first.
    order = list(range(len(items)))
    random.shuffle(order)
    order.sort(key=lambda i: -totals[i])
    return [items[i] for i in order]


def _enough(found, wanted, per_cell, cross_cell, soft=None):
    """Whether the hosts read so far (best first) settle the answer:
    `wanted` of them, `per_cell` in the best one's cell and, for a
    cross-cell move with a preference, the best one in the preferred
    cells (hosts read later are worse by capacity, so they cannot beat
    it; until then a later one from the preferred cells would)."""
    if len(found) < wanted or not found:
        return False
    best = found[0]
    if cross_cell.active and not cross_cell.preferred(best):
        return False
    if soft is not None and soft.active and not soft.preferred(best):
        return False
    return sum(1 for s in found
               if s.cell_uuid == best.cell_uuid) >= per_cell


def best_hosts(context, cells, candidates, spec, wanted, per_cell):
    """Host states that pass the filters, best first: at least `wanted`
    of them with `per_cell` in the best one's cell, unless the
    candidates run out first. Candidates are weighed first, then their
    host states read in that order, BATCH at first and twice as many
    each time more are needed: the cells are asked about the hosts
    that are needed, not about every candidate.
    A cross-cell move (weights.CrossCellWeigher) weighs the hosts read
    again with their cells, and reads on until the best of them is in
    the cells it prefers (or the candidates run out): with a negative
    multiplier a first batch all in the source cell does not end it.
    A soft (anti-)affinity group likewise reads on until the best host
    is one the soft weigher prefers (weights.ServerGroupSoftWeigher)."""
    ranked = weigh(candidates, free=lambda c: c['free'])
    cross_cell = weights.CrossCellWeigher(spec)
    soft = weights.ServerGroupSoftWeigher(spec)
    found, start, size = [], 0, BATCH
    while start < len(ranked):
        batch = ranked[start:start + size]
        start, size = start + size, size * 2
        states = host_states(context, cells, batch)
        found.extend(passing(context, [states[c['uuid']] for c in batch
                                       if c['uuid'] in states], spec))
        if cross_cell.active or soft.active:
            found = weigh(found, spec=spec)
        if _enough(found, wanted, per_cell, cross_cell, soft):
            break
    return found
