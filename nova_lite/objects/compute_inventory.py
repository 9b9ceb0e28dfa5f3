"""Compute-node capacity as resource-provider inventories (API DB).

ComputeNode (nova_lite/objects/compute_node.py) keeps the fields callers
know; this module translates them to and from the generic tables that
nova_lite.objects.resource_provider owns:

- capacity: one inventory record per resource class the node offers
  (``inventories_for``): VCPU, MEMORY_MB, DISK_GB (not when the node keeps
  ephemeral disks on shared storage), the PCI classes of its pci_stats and
  the NUMA classes of its numa_topology;
- usage: ``vcpus_used`` & co. are the inventory's ``reserved`` plus every
  allocation against the class. What the hypervisor measures beyond the
  claimed allocations is held by one allocation whose consumer is the node
  itself (consumer_id = the node's uuid, the "host usage"), rewritten on
  each report as ``max(0, measured - reserved - other consumers)``; a
  migrated legacy node's ``*_used`` columns become that allocation.

The functions here touch the API DB. Processes that hold it (API, super
conductor, scheduler, nova-lite-manage) call them in-process through
``LocalPlacement``; computes and cell conductors, which must never open
the API DB, reach the same code over the placement RPC topic the scheduler
serves on every cell's transport (nova_lite/scheduler/placement*.py).
``placement_for(context)`` picks one.
"""
import math

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import strutils
from oslo_utils import timeutils
import os_resource_classes as orc
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite.db.api import retrying
from nova_lite import exception
from nova_lite.objects import resource_provider as rp
from nova_lite.objects import service
from nova_lite import utils

LOG = logging.getLogger(__name__)

# The service versions every API and conductor (in every cell) must have
# reached before a node without a provider gets one (see
# objects.service.unmet_needs). Version 3 reads capacity from inventories.
NEEDS = {'nova-lite-api': 3, 'nova-lite-conductor': 3}

# How a node says its ephemeral disks live on storage shared with other
# nodes: this key in ComputeNode.stats with a true value ("true", "1",
# "yes"). Such a node gets no DISK_GB inventory: the disk is not its own
# to offer; local_gb & co. stay in its compute_nodes columns.
SHARED_EPHEMERAL_STORAGE = 'ephemeral_storage_shared'

# resource class -> (capacity field, ratio field, usage field)
BASE_CLASSES = {
    orc.VCPU: ('vcpus', 'cpu_allocation_ratio', 'vcpus_used'),
    orc.MEMORY_MB: ('memory_mb', 'ram_allocation_ratio', 'memory_mb_used'),
    orc.DISK_GB: ('local_gb', 'disk_allocation_ratio', 'local_gb_used'),
}
RATIO_OPTIONS = {'cpu_allocation_ratio', 'ram_allocation_ratio',
                 'disk_allocation_ratio'}
RESERVED_OPTIONS = {orc.VCPU: 'reserved_host_cpus',
                    orc.MEMORY_MB: 'reserved_host_memory_mb',
                    orc.DISK_GB: 'reserved_host_disk_mb'}
# pci_stats pool dev_type -> resource class (os-resource-classes has no
# standard class for physical functions).
PCI_CLASSES = {'type-PCI': orc.PCI_DEVICE, 'type-VF': orc.SRIOV_NET_VF,
               'type-PF': 'CUSTOM_PCI_SRIOV_PF'}
CAPACITY_FIELDS = frozenset(f for c, r, _ in BASE_CLASSES.values()
                            for f in (c, r))
USAGE_FIELDS = frozenset(u for _, _, u in BASE_CLASSES.values())
FREE_FIELDS = frozenset(('free_ram_mb', 'free_disk_gb'))
# Node fields whose change alters the inventories or the host usage.
INPUT_FIELDS = CAPACITY_FIELDS | USAGE_FIELDS | frozenset(
    ('disk_available_least', 'pci_stats', 'numa_topology', 'stats'))
INVENTORY_FIELDS = rp.INVENTORY_FIELDS
IN_CHUNK = utils.IN_CHUNK
LOCK_RETRIES = 20


def _tables():
    return rp.RP, rp.INV, rp.RC, rp.ALLOC


chunks = utils.chunks


# --- node fields -> inventories ------------------------------------------

def _get(node, name):
    if isinstance(node, dict):
        return node.get(name)
    return getattr(node, name) if node.obj_attr_is_set(name) else None


def reserved_from_conf():
    """What this host keeps back, per base class, from its own config."""
    return {orc.VCPU: CONF.reserved_host_cpus,
            orc.MEMORY_MB: CONF.reserved_host_memory_mb,
            orc.DISK_GB: int(math.ceil(CONF.reserved_host_disk_mb / 1024.0))}


def shares_ephemeral_storage(node):
    stats = _get(node, 'stats') or {}
    if isinstance(stats, str):   # a compute_nodes row
        stats = jsonutils.loads(stats)
    return strutils.bool_from_string(stats.get(SHARED_EPHEMERAL_STORAGE))


def _invalid(rc, reason):
    return exception.InvalidInventory(resource_class=rc, reason=reason)


def _unwrap(value):
    """A JSON document, with ovo primitive envelopes peeled off."""
    if isinstance(value, str):
        value = jsonutils.loads(value)
    if isinstance(value, dict) and 'nova_object.data' in value:
        value = value['nova_object.data']
    return value


def _pci_inventories(pci_stats):
    """{class: total} from pci_stats: a JSON list of device pools
    ({"count": n, "dev_type": "type-PCI"|"type-VF"|"type-PF", ...}; the
    dev_type may also sit in "tags"; missing means type-PCI), or a
    PciDevicePoolList primitive ({"objects": [...]})."""
    try:
        pools = _unwrap(pci_stats)
        if isinstance(pools, dict):
            pools = pools.get('objects', [])
        totals = {}
        for pool in pools:
            pool = _unwrap(pool)
            dev_type = pool.get('dev_type') or (pool.get('tags') or {}).get(
                'dev_type') or 'type-PCI'
            rc = PCI_CLASSES.get(dev_type)
            if rc is None:
                raise ValueError('unknown dev_type %r' % dev_type)
            totals[rc] = totals.get(rc, 0) + int(pool.get('count', 0))
        return totals
    except (ValueError, TypeError, AttributeError) as exc:
        raise _invalid('PCI', 'pci_stats is not a list of device pools: %s'
                       % exc)


def _numa_cells(numa_topology):
    """[(cores, threads, memory_mb)] per NUMA cell of numa_topology: JSON
    {"cells": [{"cpuset": [...], "siblings": [[...], ...], "memory": MB}]}
    (or a NUMATopology primitive); "cores"/"threads" may be given
    directly. Cores are sibling groups (one per thread without them)."""
    try:
        topology = _unwrap(numa_topology) or {}
        cells = []
        for cell in topology.get('cells', []):
            cell = _unwrap(cell)
            cpus = cell.get('cpuset') or []
            siblings = cell.get('siblings') or []
            threads = int(cell.get('threads', len(cpus)))
            cores = int(cell.get('cores', len(siblings) or threads))
            cells.append((cores, threads, int(cell.get('memory', 0))))
        return cells
    except (ValueError, TypeError, AttributeError) as exc:
        raise _invalid('NUMA', 'numa_topology is not a NUMA topology: %s'
                       % exc)


def inventories_for(node, reserved=None):
    """{class: inventory record} the node offers; raises InvalidInventory
    (naming the field or option at fault) before anything is written.

    reserved: {class: amount} the host keeps back (default none: a
    migrated legacy node's usage columns already include it). Classes with
    nothing to offer (a total of 0) are left out.
    """
    reserved = reserved or {}
    found = {}
    shared = shares_ephemeral_storage(node)
    for rc, (total_f, ratio_f, _used) in BASE_CLASSES.items():
        if rc == orc.DISK_GB and shared:
            continue
        total = _get(node, total_f) or 0
        ratio = _get(node, ratio_f)
        if ratio is None or ratio == 0.0:
            # Legacy rows may hold NULL or 0.0: "use the default".
            ratio = getattr(CONF, ratio_f)
        if ratio < 0:
            raise _invalid(rc, '%s must not be negative, got %s'
                           % (ratio_f, ratio))
        held = reserved.get(rc, 0)
        if held < 0:
            raise _invalid(rc, '%s must not be negative, got %s'
                           % (RESERVED_OPTIONS[rc], held))
        if total <= 0:
            if held > 0:
                raise _invalid(rc, 'reserved %d (from %s) is above the '
                               'total %s of %d' % (held, RESERVED_OPTIONS[rc],
                                                   total_f, total))
            continue
        if held > total:
            raise _invalid(rc, 'reserved %d (from %s) is above the total '
                           '%s of %d' % (held, RESERVED_OPTIONS[rc], total_f,
                                         total))
        max_unit = total
        if rc == orc.DISK_GB and _get(node, 'disk_available_least') \
                is not None:
            max_unit = min(total, max(1, _get(node, 'disk_available_least')))
        found[rc] = {'total': total, 'reserved': held, 'min_unit': 1,
                     'max_unit': max_unit, 'step_size': 1,
                     'allocation_ratio': float(ratio)}
    if _get(node, 'pci_stats'):
        per_instance = CONF.max_pci_devices_per_instance
        for rc, total in _pci_inventories(_get(node, 'pci_stats')).items():
            if total > 0:
                found[rc] = _simple(total, min(total, per_instance))
    if _get(node, 'numa_topology'):
        cells = _numa_cells(_get(node, 'numa_topology'))
        for rc, index in ((orc.NUMA_CORE, 0), (orc.NUMA_THREAD, 1),
                          (orc.NUMA_MEMORY_MB, 2)):
            sizes = [cell[index] for cell in cells]
            if sum(sizes) > 0:
                found[rc] = _simple(sum(sizes), max(sizes))
        if cells:
            found[orc.NUMA_SOCKET] = _simple(len(cells), 1)
    return found


def _simple(total, max_unit):
    return {'total': total, 'reserved': 0, 'min_unit': 1,
            'max_unit': max_unit, 'step_size': 1, 'allocation_ratio': 1.0}


def used_for(node):
    """{class: measured usage} from the node's *_used fields."""
    return {rc: int(_get(node, used) or 0)
            for rc, (_t, _r, used) in BASE_CLASSES.items()}


def provider_name(node):
    name = _get(node, 'hypervisor_hostname') or _get(node, 'host') or \
        _get(node, 'uuid')
    return name[:200]


def overlay(data):
    """{field: value} that the provider data (read_providers) sets on a
    node: capacity and ratios from inventories, usage as reserved plus
    allocations, free_* derived. Classes without inventory (e.g. DISK_GB on
    shared storage) leave their fields to the compute_nodes columns."""
    values = {}
    inventories = data['inventories']
    usages = data.get('usages', {})
    for rc, (total_f, ratio_f, used_f) in BASE_CLASSES.items():
        inv = inventories.get(rc)
        if inv is None:
            continue
        values[total_f] = inv['total']
        values[ratio_f] = inv['allocation_ratio']
        values[used_f] = inv['reserved'] + usages.get(rc, 0)
    if 'memory_mb' in values:
        values['free_ram_mb'] = values['memory_mb'] - values['memory_mb_used']
    if 'local_gb' in values:
        values['free_disk_gb'] = values['local_gb'] - values['local_gb_used']
    return values


# --- API DB access --------------------------------------------------------

def _retrying(fn):
    """fn() in fresh transactions until it does not fail transiently: a
    deadlock, SQLite's "database is locked", or a concurrent creator's
    duplicate key (the next attempt sees its rows)."""
    return retrying.retrying(retrying.duplicates_retry(fn), LOCK_RETRIES)


@api_db.reader
def read_providers(ctx, uuids):
    """{uuid: {'generation', 'inventories': {class: record}, 'usages':
    {class: used}}} for the providers of uuids that exist: one query per
    500 uuids (inventories, class names and summed allocations joined)."""
    rp_t, inv_t, rc_t, alloc_t = _tables()
    used = (sa.select(sa.func.coalesce(sa.func.sum(alloc_t.c.used), 0))
            .where(alloc_t.c.resource_provider_id == rp_t.c.id,
                   alloc_t.c.resource_class_id == inv_t.c.resource_class_id)
            .scalar_subquery())
    found = {}
    for part in chunks(set(u for u in uuids if u)):
        rows = ctx.session.execute(
            sa.select(rp_t.c.uuid, rp_t.c.generation, rc_t.c.name,
                      *[inv_t.c[f] for f in INVENTORY_FIELDS],
                      used.label('used'))
            .select_from(rp_t.outerjoin(
                inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
                .outerjoin(rc_t, rc_t.c.id == inv_t.c.resource_class_id))
            .where(rp_t.c.uuid.in_(part)))
        # Plain tuples: thousands of rows per call on big listings.
        for (uuid, generation, name, total, reserved, min_unit, max_unit,
             step_size, ratio, amount) in rows.tuples():
            entry = found.get(uuid)
            if entry is None:
                entry = found[uuid] = {'generation': generation,
                                       'inventories': {}, 'usages': {}}
            if name is None:
                continue
            entry['inventories'][name] = {
                'total': total, 'reserved': reserved, 'min_unit': min_unit,
                'max_unit': max_unit, 'step_size': step_size,
                'allocation_ratio': ratio}
            if amount:
                entry['usages'][name] = int(amount)
    return found


def read_capacity(ctx, uuids):
    """What loading nodes needs, in read_providers' shape (without the
    generation) but for the base classes only (VCPU, MEMORY_MB, DISK_GB:
    the classes behind node fields) and slimmer: one row per provider with,
    per class, total, ratio and reserved plus allocations already summed
    (returned as 'reserved', usages left empty: overlay() only adds them).
    One query per CAPACITY_CHUNK uuids. (The placement RPC answer to computes.)
    """
    return _read_capacity(ctx, _uuid_set(uuids), _base_class_ids(ctx),
                          _capacity_entry)


def read_capacity_values(ctx, uuids):
    """{uuid: overlay(read_capacity(...)[uuid])}, made straight from the
    same rows (one query per CAPACITY_CHUNK uuids): what in-process loads of many
    nodes (API, scheduler) merge into their compute_nodes rows.

    One flat dict of numbers per node, not read_capacity's nested dicts:
    CPython's cyclic GC does not track a dict that holds only numbers, so
    thousands of them alive while the node objects are built add nothing
    to its long-lived count. The nested shape (~6 tracked dicts per node)
    set off a full collection on most listings of 5,000 nodes, which cost
    more than the query itself (tools/bench/inventory_migration.py).
    """
    return _read_capacity(ctx, _uuid_set(uuids), _base_class_ids(ctx),
                          _capacity_values)


def _uuid_set(uuids):
    return set(u for u in uuids if u)


def _base_class_ids(ctx):
    # (Outside the read transaction: the first call may add the standard
    # classes; later ones are answered from the process cache.)
    return rp.resource_class_ids(ctx, list(BASE_CLASSES))


# A _read_capacity row: uuid, then per base class (in BASE_CLASSES order)
# total, allocation_ratio, reserved + allocations (total None: no
# inventory of that class).
_ROW_FIELDS = tuple((1 + 3 * i, rc, fields)
                    for i, (rc, fields) in enumerate(BASE_CLASSES.items()))


def _capacity_entry(row):
    inventories = {}
    for i, rc, _fields in _ROW_FIELDS:
        if row[i] is not None:
            inventories[rc] = {'total': row[i], 'reserved': row[i + 2],
                               'allocation_ratio': row[i + 1]}
    return {'inventories': inventories, 'usages': {}}


def _capacity_values(row):
    """overlay() of the row's _capacity_entry, without building it."""
    values = {}
    for i, _rc, (total_f, ratio_f, used_f) in _ROW_FIELDS:
        if row[i] is not None:
            values[total_f] = row[i]
            values[ratio_f] = row[i + 1]
            values[used_f] = row[i + 2]
    if 'memory_mb' in values:
        values['free_ram_mb'] = values['memory_mb'] - values['memory_mb_used']
    if 'local_gb' in values:
        values['free_disk_gb'] = values['local_gb'] - values['local_gb_used']
    return values


# Providers per capacity query. Loads read thousands of nodes at once (API
# listings, the scheduler); per query they pay a round trip and, on
# SQLite, a fresh plan, so larger IN lists read 5,000 nodes in ~0.6x the
# time of lists of 500 (tools/bench/inventory_migration.py). 2,000 stays
# far below SQLite's parameter limit (32,766 since 3.32) and MariaDB's
# max_allowed_packet.
CAPACITY_CHUNK = 2000


# Capacity rows already read, per API database and base-class ids:
# {key: {uuid: ((provider id, generation), row)}}. Every change of a
# provider's inventories or allocations moves its generation
# (resource_provider), and a provider created again under the same uuid
# gets a new id (SQLite could hand out the highest rowid again, but a
# node's uuid is not reused), so a row read at (id, generation) is what a
# fresh read returns while the provider is at that (id, generation).
_CAPACITY_ROWS = {}


def _capacity_rows(class_ids):
    key = (str(api_db.get_engine().url), tuple(sorted(class_ids.items())))
    return _CAPACITY_ROWS.setdefault(key, {})


@api_db.reader
def _read_capacity(ctx, uuids, class_ids, build):
    """{uuid: build(row)} for the providers of uuids that exist.

    Loads repeat (API listings, the scheduler's host states) while most
    providers do not change between two of them, so per CAPACITY_CHUNK
    uuids this reads each provider's (id, generation) -- one index-only
    lookup -- and runs the capacity query (three joins and three sums per
    provider) only for providers not read before at that (id,
    generation); both in one read transaction. When most of the uuids
    were never read here (a process's first load) the capacity query runs
    alone, one per chunk. (5,000 nodes on MariaDB: ~0.05 s instead of
    ~0.2 s once read; tools/bench/inventory_migration.py prints the
    first, cold load too.)
    """
    rp_t, inv_t, _rc_t, alloc_t = _tables()
    cache = _capacity_rows(class_ids)
    found, stale = {}, uuids
    if 2 * sum(1 for u in uuids if u in cache) >= len(uuids):
        stale, existing = [], set()
        for part in chunks(uuids, CAPACITY_CHUNK):
            for uuid, pid, generation in ctx.session.execute(
                    sa.select(rp_t.c.uuid, rp_t.c.id, rp_t.c.generation)
                    .where(rp_t.c.uuid.in_(part))).tuples():
                existing.add(uuid)
                hit = cache.get(uuid)
                if hit is not None and hit[0] == (pid, generation):
                    found[uuid] = build(hit[1])
                else:
                    stale.append(uuid)
        for uuid in uuids - existing:
            cache.pop(uuid, None)
        if not stale:
            return found
    joins, columns = rp_t, [rp_t.c.uuid]
    for rc in BASE_CLASSES:
        inv = inv_t.alias('inv_%s' % rc.lower())
        # eq_ref on the (provider, class) unique key per class; the sums
        # read only allocations_resource_provider_class_used_idx.
        joins = joins.outerjoin(inv, sa.and_(
            inv.c.resource_provider_id == rp_t.c.id,
            inv.c.resource_class_id == class_ids[rc]))
        used = (sa.select(sa.func.sum(alloc_t.c.used))
                .where(alloc_t.c.resource_provider_id == rp_t.c.id,
                       alloc_t.c.resource_class_id == class_ids[rc])
                .scalar_subquery())
        columns += [inv.c.total, inv.c.allocation_ratio, sa.cast(
            inv.c.reserved + sa.func.coalesce(used, 0), sa.Integer)]
    columns += [rp_t.c.id, rp_t.c.generation]
    query = sa.select(*columns).select_from(joins)
    for part in chunks(stale, CAPACITY_CHUNK):
        for row in ctx.session.execute(
                query.where(rp_t.c.uuid.in_(part))).tuples():
            cache[row[0]] = ((row[-2], row[-1]), row)
            found[row[0]] = build(row)
    return found


def _host_usage_rows(provider_id, uuid, used, inventories, class_ids,
                     others=None):
    rows = []
    for rc, amount in sorted(used.items()):
        inv = inventories.get(rc)
        if inv is None:
            continue
        own = amount - inv['reserved'] - (others or {}).get(rc, 0)
        if own > 0:
            rows.append({'resource_provider_id': provider_id,
                         'consumer_id': uuid,
                         'resource_class_id': class_ids[rc], 'used': own})
    return rows


def create_providers(ctx, items):
    """Create the providers of items [{'uuid', 'name', 'inventories',
    'used'}] that do not exist yet, each with its inventories and host
    usage allocation, all in ONE API DB transaction (a provider is never
    seen without its inventories or usage). Existing uuids are skipped:
    someone created them first, which callers count as done.

    Returns {'created': [uuids], 'existing': [uuids], 'invalid': {uuid:
    message}}; invalid items (InvalidInventory) are left out, the others
    still created.
    """
    wanted, invalid = {}, {}
    for item in items:
        try:
            wanted[item['uuid']] = (item['name'], rp.validate_inventories(
                item['inventories']), item.get('used') or {})
        except exception.InvalidInventory as exc:
            invalid[item['uuid']] = exc.format_message()
    if not wanted:
        return {'created': [], 'existing': [], 'invalid': invalid}
    class_ids = rp.resource_class_ids(
        ctx, sorted({rc for _, invs, _ in wanted.values() for rc in invs}))
    alloc_t = _tables()[3]

    def once():
        with retrying.writing(ctx) as session:
            new, existing, ids = rp.insert_missing_providers(
                session, wanted, class_ids)
            usage = [row for u in new for row in _host_usage_rows(
                ids[u], u, wanted[u][2], wanted[u][1], class_ids)]
            if usage:
                session.execute(alloc_t.insert(), usage)
            return new, sorted(existing)

    new, existing = _retrying(once)
    return {'created': new, 'existing': existing, 'invalid': invalid}


def write_host_usage(ctx, uuid, used):
    """Set the node's own allocation to what its hypervisor measures beyond
    reserved and every other consumer's allocations; bumps the provider
    generation when it changes (so concurrent claims re-check). Returns
    False when there is no provider."""
    rp_t, inv_t, rc_t, alloc_t = _tables()

    def once():
        with retrying.writing(ctx) as session:
            # Lock the provider row before reading (row lock on MariaDB and
            # PostgreSQL, the write lock on SQLite): claims and other
            # reports wait, so "others" cannot move under us.
            if not session.execute(rp_t.update().where(
                    rp_t.c.uuid == uuid).values(
                        generation=rp_t.c.generation)).rowcount:
                return False
            provider_id = session.execute(sa.select(rp_t.c.id).where(
                rp_t.c.uuid == uuid)).scalar_one()
            inventories, class_ids, names = {}, {}, {}
            for name, rc_id, reserved in session.execute(
                    sa.select(rc_t.c.name, inv_t.c.resource_class_id,
                              inv_t.c.reserved)
                    .select_from(inv_t.join(
                        rc_t, rc_t.c.id == inv_t.c.resource_class_id))
                    .where(inv_t.c.resource_provider_id == provider_id)):
                inventories[name] = {'reserved': reserved}
                class_ids[name] = rc_id
                names[rc_id] = name
            mine, others = {}, {}
            for consumer, rc_id, amount in session.execute(
                    sa.select(alloc_t.c.consumer_id,
                              alloc_t.c.resource_class_id, alloc_t.c.used)
                    .where(alloc_t.c.resource_provider_id == provider_id)):
                if rc_id not in names:
                    continue
                target = mine if consumer == uuid else others
                target[names[rc_id]] = target.get(names[rc_id], 0) + amount
            rows = _host_usage_rows(provider_id, uuid, used, inventories,
                                    class_ids, others)
            if {names[r['resource_class_id']]: r['used']
                    for r in rows} == mine:
                return True
            session.execute(alloc_t.delete().where(
                alloc_t.c.resource_provider_id == provider_id,
                alloc_t.c.consumer_id == uuid))
            if rows:
                session.execute(alloc_t.insert(), rows)
            session.execute(rp_t.update().where(rp_t.c.id == provider_id)
                            .values(generation=rp_t.c.generation + 1,
                                    updated_at=timeutils.utcnow()))
            return True

    return _retrying(once)


def _drop_host_usage_outside(ctx, uuid, classes):
    """Remove the node's own allocations of classes it no longer offers
    (e.g. DISK_GB once its ephemeral storage is shared), so that the
    inventory can go; other consumers' allocations still block that."""
    rp_t, _inv_t, rc_t, alloc_t = _tables()

    def once():
        with retrying.writing(ctx) as session:
            keep = sa.select(rc_t.c.id).where(rc_t.c.name.in_(classes))
            if session.execute(alloc_t.delete().where(
                    alloc_t.c.consumer_id == uuid,
                    alloc_t.c.resource_provider_id.in_(
                        sa.select(rp_t.c.id).where(rp_t.c.uuid == uuid)),
                    alloc_t.c.resource_class_id.not_in(keep))).rowcount:
                session.execute(rp_t.update().where(rp_t.c.uuid == uuid)
                                .values(generation=rp_t.c.generation + 1,
                                        updated_at=timeutils.utcnow()))
    _retrying(once)


def update_provider(ctx, uuid, inventories, used):
    """Replace the provider's inventories and host usage; returns its data
    (as read_providers) or None when it has no provider. Raises
    InvalidInventory with nothing written, InventoryInUse when another
    consumer still allocates from a class the node stopped offering."""
    inventories = rp.validate_inventories(inventories)
    _drop_host_usage_outside(ctx, uuid, sorted(inventories))
    try:
        rp.set_inventories(ctx, uuid, inventories)
    except exception.ResourceProviderNotFound:
        return None
    if not write_host_usage(ctx, uuid, used):
        return None
    return read_providers(ctx, [uuid]).get(uuid)


def delete_provider(ctx, uuid):
    """Remove a deleted node's provider with its host usage; one that other
    consumers still allocate from stays (and is logged)."""
    rp_t, _inv_t, _rc_t, alloc_t = _tables()

    def drop_own():
        with retrying.writing(ctx) as session:
            rp.bump_consumer_providers(session, uuid)
            session.execute(alloc_t.delete().where(
                alloc_t.c.consumer_id == uuid))
    _retrying(drop_own)
    try:
        rp.delete_provider(ctx, uuid)
    except exception.ResourceProviderNotFound:
        pass
    except exception.ResourceProviderInUse:
        LOG.warning('Resource provider %s of a deleted compute node still '
                    'has allocations; it is kept.', uuid)


# --- the service-version gate ----------------------------------------------

def gate_blocked(context):
    """None when nodes may get providers (every API and conductor in every
    cell is at NEEDS), else what it waits for (cached per process until
    SIGHUP, like every minimum-version answer)."""
    try:
        return service.unmet_needs(context, NEEDS)
    except Exception as exc:
        return 'service versions unknown (%s)' % exc


# --- who talks to the API DB -------------------------------------------------

class LocalPlacement(object):
    """The placement calls of ComputeNode, run in this process (which holds
    the API DB). The scheduler's placement RPC endpoint delegates here, so
    computes and cell conductors get exactly the same behaviour."""

    def get_compute_providers(self, context, uuids, with_gate=False):
        """{'providers': {uuid: capacity data (read_capacity)},
        'gate_open': bool or None}; the gate
        is looked up only when asked or when some uuid has no provider,
        so reading migrated nodes costs one query."""
        providers = read_capacity(context, uuids) if uuids else {}
        return {'providers': providers,
                'gate_open': self._gate(context, uuids, providers,
                                        with_gate)}

    def get_compute_values(self, context, uuids, with_gate=False):
        """As get_compute_providers, but {'values': {uuid: the fields
        (read_capacity_values)}, 'gate_open'}: for in-process loads only
        (not on the placement RPC API)."""
        values = read_capacity_values(context, uuids) if uuids else {}
        return {'values': values,
                'gate_open': self._gate(context, uuids, values, with_gate)}

    @staticmethod
    def _gate(context, uuids, found, with_gate):
        if with_gate or len(found) < len(_uuid_set(uuids)):
            return gate_blocked(context) is None
        return None

    def create_compute_providers(self, context, providers, with_data=True):
        """Create missing providers (with inventories and host usage) if
        the gate is open. {'gate_open', 'providers': {uuid: data (None
        without with_data)} of those that now exist, 'invalid': {uuid:
        message}}."""
        blocked = gate_blocked(context)
        if blocked:
            LOG.info('Compute nodes keep their legacy capacity columns: '
                     '%s', blocked)
            return {'gate_open': False, 'providers': {}, 'invalid': {}}
        result = create_providers(context, providers)
        present = result['created'] + result['existing']
        if with_data:
            data = read_providers(context, present)
        else:
            data = dict.fromkeys(present)
        return {'gate_open': True, 'providers': data,
                'invalid': result['invalid']}

    def update_compute_provider(self, context, uuid, inventories, used):
        """{'provider': data} after writing, or {'provider': None,
        'gate_open': bool} when the node has no provider yet."""
        data = update_provider(context, uuid, inventories, used)
        if data is not None:
            return {'provider': data}
        return {'provider': None, 'gate_open': gate_blocked(context) is None}

    def delete_compute_provider(self, context, uuid):
        delete_provider(context, uuid)


LOCAL = LocalPlacement()


def placement_for(context):
    """Where ComputeNode's inventory reads and writes go from this caller.

    - the context names a placement API (set by the all-in-one on the
      contexts of its computes and cell conductors): that one;
    - a compute (an indirection API on the context or the object class):
      the placement RPC topic on its cell's transport;
    - a process that holds the API DB: in-process (LOCAL);
    - anything else (a cell conductor: no [api_database]): the placement
      RPC topic on its cell's transport.
    """
    api = getattr(context, 'placement_api', None)
    if api is not None:
        return api
    from nova_lite.objects import base
    indirect = getattr(context, 'indirection_api', None) or \
        base.NovaLiteObject.indirection_api
    if not indirect and api_db.available():
        return LOCAL
    from nova_lite.scheduler import placement_rpcapi
    from nova_lite import rpc
    return placement_rpcapi.PlacementAPI.for_transport(
        rpc.transport_for_context(context))
