"""Service versions: recorded, minimums per cell and across cells, start-up
refusal, and RPC pinning/backports for an older compute."""
import pytest

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite.online_migrations import runner
from tests.conftest import set_override
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane


def _record(ctxt, host, binary, version=None):
    svc = objects.Service(ctxt, host=host, binary=binary, topic=binary)
    if version is not None:
        svc.version = version
    svc.create()
    return svc


def _null_version(ctxt, svc):
    from nova_lite.db.main import api as main_db
    from nova_lite.db.main import models

    @main_db.writer
    def clear(context):
        context.session.query(models.Service).filter_by(id=svc.id).update(
            {'version': None})
    clear(ctxt)


def test_new_records_carry_running_version_and_null_reads_as_1(cells_env):
    cell = cells_env.cells['cell1']
    with nova_context.target_cell(cells_env.ctxt, cell) as cctxt:
        svc = _record(cctxt, 'c1', 'nova-compute')
        assert svc.version == service_version.SERVICE_VERSION
        _null_version(cctxt, svc)
        assert objects.Service.get_by_id(cctxt, svc.id).version == 1


def test_minimum_version_per_cell_and_across_cells(cells_env):
    ctxt = cells_env.ctxt
    with nova_context.target_cell(ctxt, cells_env.cells['cell1']) as c1:
        _record(c1, 'a', 'nova-conductor', version=2)
        old = _record(c1, 'b', 'nova-conductor', version=1)
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        _record(c2, 'c', 'nova-conductor', version=2)
        _record(c2, 'd', 'nova-osapi_compute', version=2)
        assert service_version.get_minimum_version(c2, 'nova-conductor') == 2
        assert service_version.get_minimum_version(c2, 'nova-compute') == 0
    assert service_version.get_minimum_version_all_cells(
        ctxt, ['nova-conductor', 'nova-osapi_compute']) == {
            'nova-conductor': 1, 'nova-osapi_compute': 2}
    assert 'nova-conductor >= 2 (oldest is 1)' in \
        service_version.unmet_needs(ctxt, {'nova-conductor': 2})
    # Deleted services do not count; the cached answer holds until reset
    # (SIGHUP).
    with nova_context.target_cell(ctxt, cells_env.cells['cell1']) as c1:
        old._context = c1
        old.destroy()
    assert service_version.get_minimum_version_all_cells(
        ctxt, ['nova-conductor'])['nova-conductor'] == 1
    service_version.reset_min_version_cache()
    assert service_version.get_minimum_version_all_cells(
        ctxt, ['nova-conductor'])['nova-conductor'] == 2
    assert service_version.unmet_needs(ctxt, {'nova-conductor': 2}) is None


def test_unreachable_cell_is_reported_not_counted_as_upgraded(cells_env):
    ctxt = cells_env.ctxt
    cell2 = cells_env.cells['cell2']
    cell2.database_connection = 'sqlite:////nonexistent/dir/x.sqlite'
    cell2.save()
    service_version.reset_min_version_cache()
    with pytest.raises(exception.CellsNotResponding):
        service_version.get_minimum_version_all_cells(
            ctxt, ['nova-osapi_compute'])
    assert 'did not respond' in service_version.unmet_needs(
        ctxt, {'nova-osapi_compute': 2})


def test_service_far_behind_its_peers_refuses_to_start(cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as c1:
        newest = service_version.SERVICE_VERSION
        skew = service_version.SERVICE_VERSION_SKEW
        _record(c1, 'peer', 'nova-conductor', version=newest + skew + 1)
        with pytest.raises(exception.ServiceTooOld) as err:
            service_obj.check_can_start(c1, 'nova-conductor', 'me',
                                        newest)
        assert 'v%d' % newest in str(err.value)
        # The skew behind the newest (the previous release's services
        # beside this one's) is a supported rolling upgrade.
        service_obj.check_can_start(c1, 'nova-conductor', 'me',
                                    newest + 1)


def test_conductor_refuses_while_too_old_computes_are_recorded(cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as c2:
        _record(c2, 'ancient', 'nova-compute', version=0)
    ctxt = cells_env.ctxt
    with pytest.raises(exception.TooOldComputeService) as err:
        service_obj.check_can_start(ctxt, 'nova-osapi_compute', 'api',
                                    all_cells=True)
    assert 'ancient (v0)' in str(err.value)
    set_override('disable_compute_service_check_for_ffu', True,
                 group='workarounds')
    service_obj.check_can_start(ctxt, 'nova-osapi_compute', 'api',
                                all_cells=True)


@pytest.fixture
def mixed_plane(tmp_path, conf):
    set_override('compute', 'auto', group='upgrade_levels')
    p = start_plane(tmp_path / 'state', with_api=False,
                    service_versions={'cell2-compute2': 1})
    yield p
    stop_plane(p)


def test_auto_pinning_caps_calls_and_backports_objects_for_old_compute(
        mixed_plane):
    ctxt = nova_context.get_admin_context()
    cell2 = mixed_plane.cells['cell2']
    api = compute_rpcapi.ComputeAPI()
    with nova_context.target_cell(ctxt, cell2) as cctxt:
        assert objects.Service.get_by_compute_host(
            cctxt, 'cell2-compute2').version == 1
        node = objects.ComputeNodeList.get_all_by_host(
            cctxt, 'cell2-compute1')[0]
        assert node.uuid
        # New compute: full version, whole object.
        new = api.describe_node(cctxt, 'cell2-compute1', node)
        assert 'uuid' in new['fields']
        assert api.get_guests(cctxt, 'cell2-compute1')['guests'] == []
        # Old compute: calls capped at 1.0, ComputeNode backported to 1.0.
        old = api.describe_node(cctxt, 'cell2-compute2', node)
        assert 'uuid' not in old['fields']
        assert set(new['fields']) - set(old['fields']) == {'uuid'}
        assert api.get_guests(cctxt, 'cell2-compute2') == {
            'count': 0, 'guests': None}


def test_history_matches_current_rpc_and_object_versions():
    from nova_lite.conductor import rpcapi as conductor_rpcapi
    from nova_lite.scheduler import rpcapi as scheduler_rpcapi
    current = service_version.SERVICE_VERSION_HISTORY[
        service_version.SERVICE_VERSION]
    assert current['compute_rpc'] == compute_rpcapi.ComputeAPI.VERSION
    assert current['conductor_rpc'] == conductor_rpcapi.ConductorAPI.VERSION
    assert current['scheduler_rpc'] == scheduler_rpcapi.SchedulerAPI.VERSION
    from nova_lite.compute.service import manager as compute_manager
    assert compute_manager.ComputeManager.target.version == \
        current['compute_rpc']
    from nova_lite.placement import manager as placement_manager
    from nova_lite.placement import rpcapi as placement_rpcapi
    assert current['placement_rpc'] == placement_rpcapi.PlacementAPI.VERSION
    assert placement_manager.PlacementEndpoint.target.version == \
        current['placement_rpc']
    # Placement is served from service version 3 on.
    assert [service_version.rpc_version_for('placement', v)
            for v in (1, 2, 3)] == [None, None, '1.0']
    from nova_lite.conductor import manager as conductor_manager
    assert current['compute_task_rpc'] == \
        conductor_rpcapi.ComputeTaskAPI.VERSION
    assert conductor_manager.ComputeTaskManager.target.version == \
        current['compute_task_rpc']
    # compute_task is served from service version 4 on.
    assert [service_version.rpc_version_for('compute_task', v)
            for v in (1, 2, 3, 4)] == [None, None, None, '1.0']
    for name, version in current['objects'].items():
        assert getattr(objects, name).VERSION == version, name


def test_online_migration_blocked_until_peers_upgrade(cells_env):
    """An old conductor recorded anywhere blocks migrate_flavors: nothing
    is touched and the runner says more work remains; after the peer
    upgrades (and SIGHUP resets the cache) the migration runs."""
    from tests.functional.db.flavor_helpers import add_legacy
    from tests.functional.db.flavor_helpers import legacy_rows
    add_legacy([{'name': 'old.small', 'flavorid': 'os1'}])
    ctxt = cells_env.ctxt
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        peer = _record(c2, 'old-conductor', 'nova-conductor',
                       version=1)
    rows, code = runner.run_migrations(ctxt, names=['migrate_flavors'])
    assert code == 1
    assert 'nova-conductor >= 2 (oldest is 1)' in rows[0]['blocked']
    assert rows[0]['done'] == 0
    assert legacy_rows() == ['os1']
    # The peer upgrades.
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        peer._context = c2
        peer.version = 2
        peer.save()
    service_version.reset_min_version_cache()
    rows, code = runner.run_migrations(ctxt, names=['migrate_flavors'])
    assert code == 0, rows
    assert rows[0]['blocked'] is None and rows[0]['done'] == 1
    assert legacy_rows() == []
    assert objects.Flavor.get_by_flavor_id(ctxt, 'os1').name == 'old.small'
