"""Computes report capacity through ComputeNode.save() in the running
all-in-one plane: to inventories through the scheduler's placement topic
(computes and cell conductors open no API DB), to the legacy columns while
an old conductor is recorded, and bad config is refused."""
import pytest

from nova_lite import allinone
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service_version
from tests.conftest import set_override
from tests.functional.conftest import stop_plane
from tests.functional.db import inventory_helpers as h


def _compute(plane, host):
    return [s for s in plane.services if s.host == host][0]


def _node(plane, cell_name, host):
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, plane.cells[cell_name]) as cctxt:
        return objects.ComputeNodeList.get_all_by_host(cctxt, host)[0], cctxt


def _report(compute):
    """One periodic resource update of that compute, as its timer runs
    it."""
    compute.endpoints[0].periodic_tasks(compute.context, raise_on_error=True)


def test_compute_capacity_change_reaches_inventories(plane_no_api):
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    node, cctxt = _node(plane, 'cell2', 'cell2-compute1')
    data = h.provider(ctxt, node.uuid)
    assert data['inventories']['VCPU']['total'] == 16
    compute = _compute(plane, 'cell2-compute1')
    set_override('vcpus', 48, group='fake_driver')
    set_override('cpu_allocation_ratio', 2.0)
    compute.endpoints[0].driver.spawn('2b0b5d8e-5f43-4d5e-9a8a-0d1c9f1f6c11',
                                 vcpus=3, memory_mb=2048, disk_gb=20)
    _report(compute)
    data = h.provider(ctxt, node.uuid)
    assert data['inventories']['VCPU']['total'] == 48
    assert data['inventories']['VCPU']['allocation_ratio'] == 2.0
    assert data['generation'] > 0
    assert h.host_usage(ctxt, node.uuid) == {'VCPU': 3, 'MEMORY_MB': 2048,
                                             'DISK_GB': 20}
    # Not the columns...
    row = h.columns(cctxt, node.id)
    assert (row['vcpus'], row['cpu_allocation_ratio']) == (16, 16.0)
    # ...but every reader sees the new capacity and usage.
    node, _ = _node(plane, 'cell2', 'cell2-compute1')
    assert (node.vcpus, node.cpu_allocation_ratio, node.vcpus_used,
            node.memory_mb_used, node.local_gb_used) == (48, 2.0, 3,
                                                         512 + 2048, 20)
    # The other computes were not touched.
    other, _ = _node(plane, 'cell2', 'cell2-compute2')
    assert other.vcpus == 16


def test_compute_and_cell_conductor_never_open_the_api_db(plane_no_api,
                                                         monkeypatch):
    """The all-in-one shares one API DB engine between its services, so
    watch whose contexts open API DB transactions while a compute reports
    (enginefacade's using(), spied on, not replaced)."""
    from oslo_db.sqlalchemy import enginefacade
    plane = plane_no_api
    compute = _compute(plane, 'cell1-compute2')
    seen = []
    real_using = enginefacade._TransactionContextManager.using

    def using(manager, ctx):
        if manager._root is api_db.context_manager._root:
            seen.append((getattr(ctx, 'indirection_api', None) is not None,
                         getattr(ctx, 'placement_api', None) is not None))
        return real_using(manager, ctx)

    monkeypatch.setattr(enginefacade._TransactionContextManager, 'using',
                        using)
    set_override('memory_mb', 65536, group='fake_driver')
    _report(compute)
    monkeypatch.undo()
    assert seen, 'the report never reached the API DB'
    # Every API DB transaction ran for a context that is neither a
    # compute's (indirection API) nor a cell conductor's (placement over
    # RPC): the scheduler's placement endpoint.
    assert set(seen) == {(False, False)}
    node, _ = _node(plane, 'cell1', 'cell1-compute2')
    assert node.memory_mb == 65536


def test_bad_config_is_refused_and_nothing_written(plane_no_api, caplog):
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    node, cctxt = _node(plane, 'cell1', 'cell1-compute1')
    before = (h.provider(ctxt, node.uuid), h.columns(cctxt, node.id))
    compute = _compute(plane, 'cell1-compute1')
    set_override('reserved_host_memory_mb', 40000)
    set_override('vcpus', 4, group='fake_driver')
    with pytest.raises(exception.InvalidInventory) as err:
        _report(compute)
    assert 'reserved 40000 (from reserved_host_memory_mb) is above the ' \
        'total memory_mb of 32768' in str(err.value)
    assert 'nothing was written' in caplog.text
    assert (h.provider(ctxt, node.uuid), h.columns(cctxt, node.id)) == \
        before


@pytest.fixture
def plane_with_old_conductor(tmp_path, conf):
    """The all-in-one with an old (service version 2) conductor recorded in
    cell2 before anything reports, as during a rolling upgrade."""
    plane = allinone.Plane(str(tmp_path / 'state'), port=0,
                           with_api=False).build()
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, plane.cells['cell2']) as c2:
        old = h.record_service(c2, 'old-conductor', 'nova-conductor',
                               2)
    plane.start()
    yield plane, old
    stop_plane(plane)


def test_old_conductor_keeps_reports_on_columns_until_it_upgrades(
        plane_with_old_conductor):
    plane, old = plane_with_old_conductor
    ctxt = nova_context.get_admin_context()
    node, cctxt = _node(plane, 'cell1', 'cell1-compute1')
    assert h.provider(ctxt, node.uuid) is None
    assert h.api_counts()['resource_providers'] == 0
    compute = _compute(plane, 'cell1-compute1')
    set_override('vcpus', 24, group='fake_driver')
    _report(compute)
    assert h.columns(cctxt, node.id)['vcpus'] == 24
    assert h.api_counts()['resource_providers'] == 0
    # The conductor upgrades; SIGHUP tells the running services.
    with nova_context.target_cell(ctxt, plane.cells['cell2']) as c2:
        old._context = c2
        old.version = service_version.SERVICE_VERSION
        old.save()
    plane.reset()
    set_override('vcpus', 28, group='fake_driver')
    _report(compute)
    data = h.provider(ctxt, node.uuid)
    assert data['inventories']['VCPU']['total'] == 28
    assert h.columns(cctxt, node.id)['inventory_migrated'] is True
    # The other computes' nodes migrate on their next load.
    assert {n.vcpus for n in objects.ComputeNodeList.get_all(cctxt)} == \
        {28, 16}
    assert h.api_counts()['resource_providers'] == 2


def test_old_compute_calls_through_its_conductor_reach_inventories(
        plane_no_api):
    """A version-2 compute still calls the remotable ComputeNode methods
    of its time (get_by_host_and_nodename, save) on its cell conductor,
    with 1.1 objects. The conductor runs today's code: capacity comes from
    and goes to the inventories (through the placement topic; the cell
    conductor opens no API DB), and objects go back as 1.1."""
    from nova_lite.conductor import rpcapi as conductor_rpcapi
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    node, cctxt = _node(plane, 'cell2', 'cell2-compute2')
    conductor = conductor_rpcapi.ConductorAPI(
        transport=cctxt.mq_connection)
    old = conductor.object_class_action_versions(
        ctxt, 'ComputeNode', 'get_by_host_and_nodename',
        {'ComputeNode': '1.1'}, ('cell2-compute2', 'cell2-compute2'), {})
    assert old.VERSION == '1.1'
    assert (old.uuid, old.vcpus) == (node.uuid, 16)
    old._context = ctxt
    old.vcpus = 20
    old.memory_mb_used = 1024
    updates, _ = conductor.object_action(ctxt, old, 'save', (), {})
    data = h.provider(ctxt, node.uuid)
    assert data['inventories']['VCPU']['total'] == 20
    assert h.columns(cctxt, node.id)['vcpus'] == 16
    node, _ = _node(plane, 'cell2', 'cell2-compute2')
    assert (node.vcpus, node.memory_mb_used) == (20, 1024)
