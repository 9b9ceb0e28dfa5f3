"""ComputeNode's mapping to resource-provider inventories.

A node's capacity lives in the inventories of its provider (provider uuid
= node uuid; nova_lite.placement.hosts writes them):

- capacity: one inventory record per resource class the node offers
  (``inventories_for``): VCPU, MEMORY_MB, DISK_GB (not when the node keeps
  ephemeral disks on shared storage), the PCI classes of its pci_stats and
  the NUMA classes of its numa_topology;
- usage: ``vcpus_used`` & co. are the inventory's ``reserved`` plus every
  allocation against the class. What the hypervisor measures beyond the
  claimed allocations is the node's "host usage" allocation (consumer =
  the node itself); a migrated legacy node's ``*_used`` columns become it.

``placement_for(context)`` gives the placement calls for this caller
(nova_lite.placement.router) with the node gate: nodes get providers only
once every API and conductor in every cell reads inventories (NEEDS).
"""
import math

import os_resource_classes as orc
from oslo_serialization import jsonutils
from oslo_utils import strutils

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import service_version
from nova_lite.placement import capacity
from nova_lite.placement import hosts
from nova_lite.placement import router
from nova_lite.placement import rpcapi as placement_rpcapi
from nova_lite import virt

# The service versions every API and conductor (in every cell) must have
# reached before a node without a provider gets one (service_version
# unmet_needs). Version 3 reads capacity from inventories.
NEEDS = {constants.API_BINARY: 3, constants.CONDUCTOR_BINARY: 3}

# A node with shared ephemeral storage (virt.SHARED_EPHEMERAL_STORAGE in
# its stats) gets no DISK_GB inventory; local_gb & co. stay in its
# compute_nodes columns.
SHARED_EPHEMERAL_STORAGE = virt.SHARED_EPHEMERAL_STORAGE

# resource class -> (capacity field, ratio field, usage field), in the
# order of placement.hosts.HOST_CLASSES (their columns in capacity rows).
_BASE_FIELDS = {
    orc.VCPU: ('vcpus', 'cpu_allocation_ratio', 'vcpus_used'),
    orc.MEMORY_MB: ('memory_mb', 'ram_allocation_ratio', 'memory_mb_used'),
    orc.DISK_GB: ('local_gb', 'disk_allocation_ratio', 'local_gb_used'),
}
BASE_CLASSES = dict((rc, _BASE_FIELDS[rc]) for rc in hosts.HOST_CLASSES)
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
    """{field: value} that the provider data (placement.capacity.read) sets
    on a
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


# Where a host class's columns sit in a capacity row read for
# hosts.HOST_CLASSES (placement.capacity.read_rows): (total, reserved,
# allocation_ratio, used) offsets, and the node fields they fill.
_TOTAL, _RESERVED, _RATIO, _USED = (
    capacity.CLASS_COLUMNS.index(f) for f in ('total', 'reserved',
                                       'allocation_ratio', 'used'))
_ROW_FIELDS = tuple((capacity.class_offset(i), fields)
                    for i, fields in enumerate(BASE_CLASSES.values()))


def values_from_row(row):
    """overlay() of a capacity row of HOST_CLASSES, built straight from it
    as one flat dict of numbers (untracked by the cyclic GC: see
    tools/bench/inventory_migration.py)."""
    values = {}
    for start, (total_f, ratio_f, used_f) in _ROW_FIELDS:
        total = row[start + _TOTAL]
        if total is not None:
            values[total_f] = total
            values[ratio_f] = row[start + _RATIO]
            values[used_f] = row[start + _RESERVED] + int(
                row[start + _USED] or 0)
    if 'memory_mb' in values:
        values['free_ram_mb'] = values['memory_mb'] - values['memory_mb_used']
    if 'local_gb' in values:
        values['free_disk_gb'] = values['local_gb'] - values['local_gb_used']
    return values


# --- the gate and who talks to the API DB ----------------------------------

def gate_blocked(context):
    """None when nodes may get providers (every API and conductor in every
    cell is at NEEDS), else what it waits for (cached per process until
    SIGHUP, like every minimum-version answer)."""
    try:
        return service_version.unmet_needs(context, NEEDS)
    except Exception as exc:
        return 'service versions unknown (%s)' % exc


def placement_auto_cap():
    """The placement RPC cap for [upgrade_levels] placement = auto."""
    return service_version.get_auto_version_cap(
        'placement', binary=placement_rpcapi.SERVER_BINARY)


def placement_for(context, cls=None):
    """ComputeNode's placement calls from this caller (see
    placement.router): over RPC for a compute (an indirection API on the
    context or on cls), in-process where the API DB is held."""
    remote = bool(base.indirection_api(cls or base.NovaLiteObject,
                                        context))
    return router.placement_for(context, gate_blocked, remote=remote,
                                auto_cap=placement_auto_cap)
