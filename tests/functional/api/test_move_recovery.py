"""A super conductor stopped while it scheduled a resize, before it
handed the move off (simulated: the step boundary's test hook raises,
so nothing after it runs and no rollback either), then started again
(its compute_task endpoint's init_host): the move is rolled back --
the server as it was on its source, with its old flavor, one copy,
the instance's source allocation only, the migration in error, the
action's conductor event finished as Error -- for a move within the
cell and one into another cell, at both boundaries; and a prep_resize
delivered late, for a move the restart rolled back, changes nothing."""
import pytest

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor.tasks import move_recovery
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import embedded_flavor
from nova_lite.objects import instance_action
from tests.functional.api.cross_cell_helpers import HOST
from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.test_cross_cell_recovery import _crash_resize
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}


def _restart():
    conductor_manager.ComputeTaskManager().init_host(
        nova_context.get_admin_context(), None)


def _conductor_events(xp, uuid):
    """[(event, result)] of conductor_migrate_server in the server's
    newest resize action."""
    actions = xp.api('GET', '/servers/%s/os-instance-actions' % uuid,
                     token=ADMIN).json()['instanceActions']
    newest = next(a for a in actions if a['action'] == 'resize')
    events = xp.api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, newest['request_id']), token=ADMIN).json()[
            'instanceAction']['events']
    return [(e['event'], e['result']) for e in events
            if e['event'] == move_recovery.EVENT]


def _check_rolled_back(xp, uuid, source, migration, status):
    server = xp.wait_status(uuid, status)
    assert server[HOST] == source
    assert server['flavor']['original_name'] == 'small'
    assert xp.copies(uuid) == {'cell1': False}
    assert xp.mapped_cell(uuid) == 'cell1'
    assert held(uuid) == {source: SMALL}
    assert held(migration['uuid']) == {}
    assert migration_of(uuid)['status'] == 'error'
    assert migration_of(uuid)['uuid'] == migration['uuid']
    assert _conductor_events(xp, uuid) == [(move_recovery.EVENT, 'Error')]
    # The flavor the scheduler gets for the next move is the server's.
    spec = objects.RequestSpec.get_by_instance_uuid(xp.ctxt, uuid)
    assert spec.flavor.flavorid == 'small'


def _resize_again(xp, uuid, into, settle):
    dest = xp.resize_into(uuid, into)[HOST]
    assert dest.startswith(into + '-')
    xp.act(uuid, {'confirmResize': None}, status=204)
    xp.wait_status(uuid, settle)
    assert held(uuid) == {dest: MEDIUM}
    assert held(migration_of(uuid)['uuid']) == {}
    for h in xp.hosts_of('cell1') + xp.hosts_of('cell2'):
        assert [g for g in guests(xp.plane, h) if g.startswith(uuid)] == (
            [uuid] if h == dest else [])


@pytest.mark.parametrize('into', ['cell1', 'cell2'])
@pytest.mark.parametrize('step', ['schedule', 'dispatch'])
def test_a_restart_rolls_back_a_move_not_handed_off(
        xplane, monkeypatch, step, into):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell1')
    source = xp.host(uuid)
    migration = _crash_resize(xp, uuid, step, into)
    assert migration['status'] == 'pre-migrating'
    assert not migration['cross_cell_move']
    if step == 'dispatch':
        # Scheduled: the source allocation went to the migration, the
        # destination was claimed for the instance.
        assert migration['dest_compute'].startswith(into + '-')
        assert held(migration['uuid']) == {source: SMALL}
        assert held(uuid) == {migration['dest_compute']: MEDIUM}
    assert xp.show(uuid)['OS-EXT-STS:task_state'] == 'resize_prep'
    _restart()
    _check_rolled_back(xp, uuid, source, migration, 'ACTIVE')
    assert guests(xp.plane, source) == [uuid]
    _resize_again(xp, uuid, into, 'ACTIVE')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


@pytest.mark.parametrize('into', ['cell1', 'cell2'])
def test_a_stopped_server_stays_stopped(xplane, monkeypatch,  # noqa: F811
                                        into):
    xp = xplane
    uuid = xp.boot(cell='cell1')
    source = xp.host(uuid)
    xp.reach(uuid, 'stopped')
    migration = _crash_resize(xp, uuid, 'dispatch', into)
    _restart()
    _check_rolled_back(xp, uuid, source, migration, 'SHUTOFF')
    assert xp.show(uuid)['OS-EXT-STS:vm_state'] == 'stopped'
    _resize_again(xp, uuid, into, 'SHUTOFF')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_a_handed_off_move_is_left_alone(xplane, monkeypatch):  # noqa
    """A move whose conductor event finished (handed off) is not the
    restart's, even while its server is still in resize_prep."""
    xp = xplane
    uuid = xp.boot(cell='cell1')
    migration = _crash_resize(xp, uuid, 'dispatch', 'cell1')
    cctxt = _cell1(xp)
    action = _resize_action(cctxt, uuid)
    actx = nova_context.get_admin_context()
    actx.request_id = action.request_id
    with nova_context.target_cell(actx, xp.cells['cell1']) as ectx:
        instance_action.InstanceActionEvent.event_finish(
            ectx, uuid, move_recovery.EVENT, want_result=False)
    assert move_recovery.recover(xp.ctxt) == {}
    assert migration_of(uuid)['status'] == 'pre-migrating'
    assert xp.show(uuid)['OS-EXT-STS:task_state'] == 'resize_prep'
    # What a lost cast leaves is the compute's or an administrator's;
    # here the test puts it back (reset, claims back).
    _finish_event_and_reset(xp, uuid, migration)


def _finish_event_and_reset(xp, uuid, migration):
    cctxt = _cell1(xp)
    compute_inventory.placement_for(cctxt).move_allocations(
        cctxt, migration['uuid'], uuid)
    mig = objects.Migration.get_by_uuid(cctxt, migration['uuid'])
    mig.status = 'error'
    mig.save()
    xp.act(uuid, {'os-resetState': {'state': 'active'}}, token=ADMIN)
    xp.settle(uuid, 'active')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def _resize_action(cctxt, uuid):
    actions = instance_action.InstanceActionList.get_by_instance_uuid(
        cctxt, uuid)
    return next(a for a in actions if a.action == 'resize')


def _cell1(xp):
    with nova_context.target_cell(xp.ctxt, xp.cells['cell1']) as cctxt:
        return cctxt


def _late_prep_resize(xp, uuid, migration):
    """Cast the prep_resize of migration (one the restart rolled back)
    to its destination, as a cast queued before the crash would arrive;
    wait until the compute has handled it."""
    cctxt = _cell1(xp)
    action = _resize_action(cctxt, uuid)
    actx = nova_context.get_admin_context()
    actx.request_id = action.request_id
    with nova_context.target_cell(actx, xp.cells['cell1']) as rctx:
        instance = objects.Instance.get_by_uuid(rctx, uuid)
        mig = objects.Migration.get_by_uuid(rctx, migration['uuid'])
        flavor = embedded_flavor.EmbeddedFlavor.from_flavor(
            xp.flavor('medium'))
        spec = objects.RequestSpec.get_by_instance_uuid(rctx, uuid)
        compute_rpcapi.ComputeAPI().prep_resize(
            rctx, migration['dest_compute'], instance, mig, flavor, spec)

    def handled():
        events = instance_action.InstanceActionEventList.get_by_action(cctxt,
                                                               action.id)
        return [e for e in events if e.event == 'compute_prep_resize'
                and e.finish_time is not None]
    wait_for(handled, timeout=30, message='late prep_resize handled')


def test_a_late_prep_resize_changes_nothing(xplane, monkeypatch):  # noqa
    xp = xplane
    uuid = xp.boot(cell='cell1')
    source = xp.host(uuid)
    first = _crash_resize(xp, uuid, 'dispatch', 'cell1')
    _restart()
    _check_rolled_back(xp, uuid, source, first, 'ACTIVE')
    # Arriving after the roll-back: refused (its migration is in error,
    # the server no longer in resize_prep).
    _late_prep_resize(xp, uuid, first)
    _check_rolled_back(xp, uuid, source, first, 'ACTIVE')
    # Arriving while a newer move is in resize_prep: its migration is
    # no longer pre-migrating, so it must not take the newer move.
    second = _crash_resize(xp, uuid, 'dispatch', 'cell1')
    assert second['uuid'] != first['uuid']
    _late_prep_resize(xp, uuid, first)
    instance = objects.Instance.get_by_uuid(_cell1(xp), uuid)
    assert instance.task_state == 'resize_prep'
    assert instance.migration_context is None
    assert held(second['uuid']) == {source: SMALL}
    assert held(uuid) == {second['dest_compute']: MEDIUM}
    assert migration_of(uuid)['status'] == 'pre-migrating'
    _restart()
    _check_rolled_back(xp, uuid, source, second, 'ACTIVE')
    _resize_again(xp, uuid, 'cell1', 'ACTIVE')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)
