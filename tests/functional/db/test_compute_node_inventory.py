"""ComputeNode on resource-provider inventories: create/save/load, the
migration of legacy rows on load (gated by service versions), bulk reads,
bad config, PCI/NUMA/shared-storage inventories. API DB + cells on SQLite,
no services running: object calls in-process."""
import json

import pytest

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import service_version
from nova_lite.placement import allocations
from nova_lite.placement import capacity
from nova_lite.placement import hosts
from nova_lite.placement import rpcapi as placement_rpcapi
from tests.conftest import set_override
from tests.functional.db import inventory_helpers as h


@pytest.fixture
def c1(cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as cctxt:
        yield cctxt


def _new_node(cctxt, i=0, **overrides):
    values = h.legacy_values(i, **overrides)
    for key in ('uuid', 'deleted', 'created_at'):
        values.pop(key)
    values['stats'] = json.loads(values['stats'])
    node = objects.ComputeNode(cctxt, **values)
    node.create()
    return node


def test_create_puts_capacity_in_inventories_and_usage_in_allocations(
        cells_env, c1):
    node = _new_node(c1, 3)   # 11 vcpus, 16384 MB, 103 GB; used 3/1280/13
    data = h.provider(cells_env.ctxt, node.uuid)
    inv = data['inventories']
    assert sorted(inv) == ['DISK_GB', 'MEMORY_MB', 'VCPU']
    assert inv['VCPU'] == {'total': 11, 'reserved': 0, 'min_unit': 1,
                           'max_unit': 11, 'step_size': 1,
                           'allocation_ratio': 16.0}
    # The host keeps reserved_host_memory_mb (512) back: what it measures
    # beyond that is the node's own ("host usage") allocation.
    assert (inv['MEMORY_MB']['reserved'], inv['MEMORY_MB']['allocation_ratio']
            ) == (512, 1.5)
    assert inv['DISK_GB']['max_unit'] == 90   # disk_available_least
    assert h.host_usage(cells_env.ctxt, node.uuid) == {
        'VCPU': 3, 'MEMORY_MB': 1280 - 512, 'DISK_GB': 13}
    again = objects.ComputeNode.get_by_uuid(c1, node.uuid)
    assert h.visible(again) == h.visible(node)
    assert (again.vcpus_used, again.memory_mb_used, again.free_ram_mb) == (
        3, 1280, 16384 - 1280)
    assert h.columns(c1, node.id)['inventory_migrated'] is True


def test_save_writes_capacity_to_inventories_not_columns(cells_env, c1):
    node = _new_node(c1, 0)   # 8 vcpus
    generation = h.provider(cells_env.ctxt, node.uuid)['generation']
    node.vcpus = 12
    node.cpu_allocation_ratio = 4.0
    node.memory_mb_used = 4096
    node.save()
    data = h.provider(cells_env.ctxt, node.uuid)
    assert data['inventories']['VCPU']['total'] == 12
    assert data['inventories']['VCPU']['allocation_ratio'] == 4.0
    assert data['generation'] > generation
    assert h.host_usage(cells_env.ctxt, node.uuid)['MEMORY_MB'] == 4096 - 512
    row = h.columns(c1, node.id)
    assert (row['vcpus'], row['cpu_allocation_ratio'],
            row['memory_mb_used']) == (8, 16.0, 512)
    loaded = objects.ComputeNode.get_by_id(c1, node.id)
    assert (loaded.vcpus, loaded.cpu_allocation_ratio, loaded.memory_mb_used,
            loaded.free_ram_mb) == (12, 4.0, 4096, 16384 - 4096)
    # Descriptive fields still go to the row, without touching the
    # provider.
    generation = h.provider(cells_env.ctxt, node.uuid)['generation']
    node.hypervisor_version = 2000
    node.save()
    assert h.columns(c1, node.id)['hypervisor_version'] == 2000
    assert h.provider(cells_env.ctxt, node.uuid)['generation'] == generation


def test_other_consumers_allocations_count_as_usage(cells_env, c1):
    node = _new_node(c1, 0, vcpus_used=0, memory_mb_used=512,
                     local_gb_used=0)
    allocations.claim(cells_env.ctxt, 'instance-1',
                      {node.uuid: {'VCPU': 2, 'MEMORY_MB': 1024}})
    loaded = objects.ComputeNode.get_by_uuid(c1, node.uuid)
    assert (loaded.vcpus_used, loaded.memory_mb_used) == (2, 512 + 1024)
    # The hypervisor now measures that instance: the host usage only
    # holds what no claim accounts for.
    loaded.vcpus_used = 3
    loaded.memory_mb_used = 512 + 1024
    loaded.save()
    assert h.host_usage(cells_env.ctxt, node.uuid) == {'VCPU': 1}
    assert objects.ComputeNode.get_by_uuid(c1, node.uuid).vcpus_used == 3


def test_loading_legacy_nodes_migrates_them_with_identical_fields(
        cells_env, c1):
    ids = h.add_legacy_nodes(c1, 6) + h.add_legacy_nodes(c1, 4, start=6,
                                                         with_uuid=True)
    stored = {i: h.columns(c1, i) for i in ids}
    nodes = objects.ComputeNodeList.get_all(c1)
    for node in nodes:
        row = stored[node.id]
        for name in h.VISIBLE:
            expected = row[name]
            if name == 'stats':
                expected = json.loads(expected)
            assert getattr(node, name) == expected, name
        if row['uuid']:
            assert node.uuid == row['uuid']
        # Legacy usage becomes the node's own allocation (zeros are no
        # rows).
        expected = {'VCPU': row['vcpus_used'],
                    'MEMORY_MB': row['memory_mb_used'],
                    'DISK_GB': row['local_gb_used']}
        assert h.host_usage(cells_env.ctxt, node.uuid) == {
            rc: v for rc, v in expected.items() if v}
        assert h.columns(c1, node.id)['inventory_migrated'] is True
    assert h.api_counts()['resource_providers'] == 10
    assert h.api_counts()['inventories'] == 30
    before = h.snapshot(nodes)
    assert h.snapshot(objects.ComputeNodeList.get_all(c1)) == before
    assert h.api_counts()['resource_providers'] == 10


def test_listing_100_nodes_is_one_query_per_database(cells_env, c1):
    h.add_legacy_nodes(c1, 100)
    counter = h.StatementCounter(cell=main_db.get_engines(c1),
                                 api=api_db.get_engines())
    with counter.counting():
        first = objects.ComputeNodeList.get_all(c1)
    # Migrating all 100 on that first load is bulk too: a fixed number of
    # statements, not one per node.
    assert counter.counts['cell'] <= 6, counter.statements['cell']
    assert counter.counts['api'] <= 12, counter.statements['api']
    counter = h.StatementCounter(cell=main_db.get_engines(c1),
                                 api=api_db.get_engines())
    with counter.counting():
        nodes = objects.ComputeNodeList.get_all(c1)
    assert len(nodes) == 100
    assert counter.counts == {'cell': 1, 'api': 1}, counter.statements
    assert h.snapshot(nodes) == h.snapshot(first)
    assert {n.vcpus for n in nodes} == {8, 9, 10, 11}


def test_repeated_listings_read_again_only_the_providers_that_changed(
        cells_env, c1):
    """Capacity read once is kept per (provider id, generation): a listing
    reads the generations, and the capacity of the providers that moved
    (a claim, a removal, a saved node), which shows at once."""
    nodes = [_new_node(c1, i) for i in range(10)]
    first = h.snapshot(objects.ComputeNodeList.get_all(c1))

    def listing():
        counter = h.StatementCounter(api=api_db.get_engines())
        with counter.counting():
            listed = objects.ComputeNodeList.get_all(c1)
        return {n.uuid: n for n in listed}, counter.statements['api']

    listed, statements = listing()
    assert h.snapshot(listed.values()) == first
    assert len(statements) == 1 and 'inventories' not in statements[0]
    target = nodes[4]
    used = listed[target.uuid].vcpus_used
    allocations.claim(cells_env.ctxt, 'instance-1', {target.uuid: {'VCPU': 2}})
    listed, statements = listing()
    assert listed[target.uuid].vcpus_used == used + 2
    assert len(statements) == 2 and 'inventories' in statements[1]
    allocations.remove_allocations(cells_env.ctxt, 'instance-1')
    assert listing()[0][target.uuid].vcpus_used == used
    target.vcpus = 40
    target.save()
    listed, _ = listing()
    assert listed[target.uuid].vcpus == 40
    assert h.snapshot(n for u, n in listed.items() if u != target.uuid) == \
        h.snapshot(n for n in objects.ComputeNodeList.get_all(c1)
                   if n.uuid != target.uuid)
    # What a process that never read them sees.
    capacity.clear_cache()
    assert h.snapshot(objects.ComputeNodeList.get_all(c1)) == \
        h.snapshot(listed.values())


def test_no_migration_while_an_old_conductor_is_recorded(cells_env, c1):
    ctxt = cells_env.ctxt
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        old = h.record_service(c2, 'old-conductor', 'nova-conductor',
                               2)
    ids = h.add_legacy_nodes(c1, 3)
    nodes = objects.ComputeNodeList.get_all(c1)
    assert [n.uuid for n in nodes] == [None] * 3
    assert h.api_counts()['resource_providers'] == 0
    # Writes keep using the columns.
    node = nodes[0]
    node.vcpus = 20
    node.save()
    assert h.columns(c1, ids[0])['vcpus'] == 20
    assert objects.ComputeNode.get_by_id(c1, ids[0]).vcpus == 20
    new = _new_node(c1, 50)
    assert h.provider(ctxt, new.uuid) is None
    assert h.columns(c1, new.id)['inventory_migrated'] is None
    # The conductor upgrades; SIGHUP makes the others notice.
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        old._context = c2
        old.version = service_version.SERVICE_VERSION
        old.save()
    service_version.reset_min_version_cache()
    nodes = objects.ComputeNodeList.get_all(c1)
    assert h.api_counts()['resource_providers'] == 4
    assert nodes[0].vcpus == 20
    assert h.provider(ctxt, nodes[0].uuid)['inventories']['VCPU'][
        'total'] == 20


def test_unreachable_cell_keeps_nodes_on_their_columns(cells_env, c1):
    h.add_legacy_nodes(c1, 2)
    cell2 = cells_env.cells['cell2']
    cell2.database_connection = 'sqlite:////nonexistent/dir/x.sqlite'
    cell2.save()
    nodes = objects.ComputeNodeList.get_all(c1)
    assert [n.uuid for n in nodes] == [None, None]
    assert h.api_counts()['resource_providers'] == 0
    assert 'did not respond' in compute_inventory.gate_blocked(
        cells_env.ctxt)


def test_shared_ephemeral_storage_offers_no_disk_gb(cells_env, c1):
    node = _new_node(c1, 0, stats=json.dumps(
        {compute_inventory.SHARED_EPHEMERAL_STORAGE: 'true'}))
    inv = h.provider(cells_env.ctxt, node.uuid)['inventories']
    assert sorted(inv) == ['MEMORY_MB', 'VCPU']
    # Its disk fields stay in the row: read from and written to it.
    node.local_gb = 500
    node.save()
    assert h.columns(c1, node.id)['local_gb'] == 500
    loaded = objects.ComputeNode.get_by_id(c1, node.id)
    assert (loaded.local_gb, loaded.local_gb_used) == (500, 10)


def test_node_that_starts_sharing_its_storage_drops_disk_gb(cells_env, c1):
    node = _new_node(c1, 0)   # local_gb_used 10: host usage on DISK_GB
    assert h.host_usage(cells_env.ctxt, node.uuid)['DISK_GB'] == 10
    node.stats = {compute_inventory.SHARED_EPHEMERAL_STORAGE: 'true'}
    node.save()
    data = h.provider(cells_env.ctxt, node.uuid)
    assert sorted(data['inventories']) == ['MEMORY_MB', 'VCPU']
    assert 'DISK_GB' not in h.host_usage(cells_env.ctxt, node.uuid)
    loaded = objects.ComputeNode.get_by_id(c1, node.id)
    assert (loaded.local_gb, loaded.local_gb_used) == (100, 10)


def test_pci_and_numa_classes_from_legacy_columns(cells_env, c1):
    set_override('max_pci_devices_per_instance', 4)
    h.add_legacy_nodes(c1, 1, pci_stats=h.pci_pools(),
                       numa_topology=h.numa_two_cells())
    node = objects.ComputeNodeList.get_all(c1)[0]
    inv = h.provider(cells_env.ctxt, node.uuid)['inventories']
    totals = {rc: (i['total'], i['max_unit']) for rc, i in inv.items()}
    assert totals == {
        'VCPU': (8, 8), 'MEMORY_MB': (16384, 16384), 'DISK_GB': (100, 90),
        'SRIOV_NET_VF': (255, 4), 'PCI_DEVICE': (2, 2),
        'CUSTOM_PCI_SRIOV_PF': (1, 1),
        'NUMA_SOCKET': (2, 1), 'NUMA_CORE': (8, 4), 'NUMA_THREAD': (16, 8),
        'NUMA_MEMORY_MB': (16384, 8192)}


def test_bad_config_is_refused_with_nothing_written(cells_env, c1):
    node = _new_node(c1, 0)
    before = h.provider(cells_env.ctxt, node.uuid)
    row = h.columns(c1, node.id)
    node.vcpus = 64
    node.cpu_allocation_ratio = -1.0
    with pytest.raises(exception.InvalidInventory) as err:
        node.save()
    assert 'cpu_allocation_ratio must not be negative' in str(err.value)
    node.cpu_allocation_ratio = 16.0
    set_override('reserved_host_memory_mb', 10 ** 6)
    with pytest.raises(exception.InvalidInventory) as err:
        node.save()
    assert 'reserved_host_memory_mb' in str(err.value)
    assert 'above the total memory_mb' in str(err.value)
    assert h.provider(cells_env.ctxt, node.uuid) == before
    assert h.columns(c1, node.id) == row
    with pytest.raises(exception.InvalidInventory):
        _new_node(c1, 1)
    assert len(objects.ComputeNodeList.get_all(c1)) == 1


def test_legacy_row_that_makes_no_valid_inventory_stays_on_columns(
        cells_env, c1, caplog):
    h.add_legacy_nodes(c1, 1, cpu_allocation_ratio=-2.0)
    h.add_legacy_nodes(c1, 1, start=1)
    bad, good = objects.ComputeNodeList.get_all(c1)
    assert bad.cpu_allocation_ratio == -2.0 and bad.uuid is not None
    assert h.provider(cells_env.ctxt, bad.uuid) is None
    assert h.provider(cells_env.ctxt, good.uuid) is not None
    assert 'keeps its legacy capacity columns' in caplog.text


def test_concurrent_loaders_agree_on_one_uuid(cells_env, c1):
    node_id = h.add_legacy_nodes(c1, 1)[0]
    first = objects.ComputeNode._claim_uuids(c1, [[node_id, 'a' * 8 + '-'
                                                   '0000-4000-8000-' +
                                                   '0' * 12]])
    second = objects.ComputeNode._claim_uuids(
        c1, [[node_id, 'b' * 8 + '-0000-4000-8000-' + '0' * 12]])
    assert first == second == [[node_id, 'a' * 8 + '-0000-4000-8000-' +
                                '0' * 12]]


def test_destroy_removes_the_provider(cells_env, c1):
    node = _new_node(c1, 0)
    node.destroy()
    assert h.provider(cells_env.ctxt, node.uuid) is None
    assert h.host_usage(cells_env.ctxt, node.uuid) == {}
    with pytest.raises(exception.ComputeNodeNotFound):
        objects.ComputeNode.get_by_uuid(c1, node.uuid)


def test_placement_rpc_cap(cells_env, c1):
    cap = placement_rpcapi.PlacementAPI(
        auto_cap=compute_inventory.placement_auto_cap)._cap
    assert cap() is None
    set_override('placement', '1.0', group='upgrade_levels')
    assert cap() == '1.0'
    set_override('placement', 'auto', group='upgrade_levels')
    assert cap() == '1.1'   # no scheduler recorded: the newest
    service_version.reset_min_version_cache()
    h.record_service(c1, 'old-scheduler', 'nova-scheduler', 3)
    assert cap() == '1.0'
    # Capped below 1.1, the allocation calls are refused before sending.
    api = placement_rpcapi.PlacementAPI(
        auto_cap=compute_inventory.placement_auto_cap)
    with pytest.raises(placement_rpcapi.PlacementUnavailable) as err:
        api.claim(c1, 'instance-1', {'p': {'VCPU': 1}})
    assert 'claim needs 1.1' in str(err.value)
    service_version.reset_min_version_cache()
    h.record_service(c1, 'older-scheduler', 'nova-scheduler', 2)
    with pytest.raises(placement_rpcapi.PlacementUnavailable) as err:
        cap()
    assert 'does not serve it yet' in str(err.value)


def test_bulk_load_values_match_the_rpc_shape(cells_env, c1):
    # In-process loads (API, scheduler) merge values_from_row of capacity
    # rows; computes get hosts.read_hosts over the placement RPC and
    # overlay() it. Both must
    # give a node the same fields: other consumers' allocations, a node
    # without DISK_GB (shared storage), an unknown uuid.
    plain = _new_node(c1, 0)
    shared = _new_node(c1, 1, stats=json.dumps(
        {compute_inventory.SHARED_EPHEMERAL_STORAGE: 'true'}))
    allocations.claim(cells_env.ctxt, 'instance-1',
                      {plain.uuid: {'VCPU': 2, 'MEMORY_MB': 1024,
                                    'DISK_GB': 5}})
    uuids = [plain.uuid, shared.uuid, '00000000-0000-0000-0000-000000000009']
    values = capacity.read_rows(cells_env.ctxt, uuids, hosts.HOST_CLASSES,
                                compute_inventory.values_from_row)
    rpc = hosts.read_hosts(cells_env.ctxt, uuids)
    assert values == {u: compute_inventory.overlay(d)
                      for u, d in rpc.items()}
    assert sorted(values) == sorted([plain.uuid, shared.uuid])
    assert 'local_gb' not in values[shared.uuid]
    loaded = {n.uuid: n for n in objects.ComputeNodeList.get_all(c1)}
    assert loaded[plain.uuid].vcpus_used == plain.vcpus_used + 2
    assert loaded[plain.uuid].free_disk_gb == \
        plain.local_gb - plain.local_gb_used - 5
    for uuid, fields in values.items():
        assert {k: getattr(loaded[uuid], k) for k in fields} == fields
