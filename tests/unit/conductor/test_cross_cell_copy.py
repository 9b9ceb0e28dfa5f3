"""objects.cross_cell (db/main/instance_copy.py) on two real cell
databases: a copy carries the instance's related rows, actions and
events, and the migration (hidden); copying again or syncing actions
adds nothing twice and carries later events over; hard_delete leaves
nothing. And the step observers of the conductor's tasks."""
from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import base
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import cross_cell
from nova_lite.objects import instance_action
import nova_lite_test_hooks
from tests.functional.db.inventory_helpers import StatementCounter


def _ctx(env, name):
    with nova_context.target_cell(env.ctxt, env.cells[name]) as cctxt:
        return cctxt


def _events(ctxt, uuid):
    found = {}
    for action in instance_action.InstanceActionList.get_by_instance_uuid(
            ctxt, uuid):
        found[action.action] = sorted(
            e.event for e in instance_action.InstanceActionEventList
            .get_by_action(ctxt, action.id))
    return found


def test_copy_sync_and_hard_delete(cells_env):
    source, target = _ctx(cells_env, 'cell1'), _ctx(cells_env, 'cell2')
    uuid = uuidutils.generate_uuid()
    inst = objects.Instance(source, uuid=uuid, host='cell1-compute1',
                            vm_state='active', metadata={'role': 'web'},
                            system_metadata={}, tags=['blue'],
                            network_info=[{'id': 'port'}], keypairs=[])
    inst.create()
    objects.BlockDeviceMapping(
        source, uuid=uuidutils.generate_uuid(), instance_uuid=uuid,
        source_type='volume', destination_type='volume', boot_index=0,
        volume_id=uuidutils.generate_uuid(), device_name='/dev/vda'
    ).create()
    instance_action.InstanceAction.action_start(source, uuid, 'resize')
    instance_action.InstanceActionEvent.event_start(source, uuid, 'one')
    migration = objects.Migration(
        source, uuid=uuidutils.generate_uuid(), instance_uuid=uuid,
        status='pre-migrating', source_compute='cell1-compute1',
        hidden=False, cross_cell_move=True)
    migration.create()

    for _ in range(2):     # a second copy replaces the first
        cross_cell.copy_instance(source, target, uuid, migration.uuid)
    copy = objects.Instance.get_by_uuid(target, uuid)
    assert copy.hidden and copy.metadata == {'role': 'web'}
    assert copy.tags == ['blue'] and copy.network_info == [{'id': 'port'}]
    assert len(objects.BlockDeviceMappingList.get_by_instance_uuid(
        target, uuid)) == 1
    copied = objects.Migration.get_by_uuid(target, migration.uuid)
    assert copied.hidden and copied.cross_cell_move
    assert _events(target, uuid) == {'resize': ['one']}

    instance_action.InstanceActionEvent.event_start(source, uuid, 'two')
    for _ in range(2):
        cross_cell.sync_actions(source, target, uuid)
    assert _events(target, uuid) == {'resize': ['one', 'two']}

    assert cross_cell.set_hidden(target, uuid, False, migration.uuid)
    assert not objects.Instance.get_by_uuid(target, uuid).hidden
    assert not objects.Migration.get_by_uuid(target, migration.uuid).hidden
    assert cross_cell.migrations_in(target, ['pre-migrating']) == [
        migration.uuid]

    cross_cell.hard_delete(target, uuid)
    assert not cross_cell.exists(target, uuid)
    with pytest.raises(exception.MigrationNotFound):
        objects.Migration.get_by_uuid(target, migration.uuid)
    assert _events(target, uuid) == {}
    assert cross_cell.exists(source, uuid)


def test_step_boundary_calls_every_observer_with_the_step(monkeypatch):
    seen = []
    monkeypatch.setattr(base, 'STEP_OBSERVERS', [
        lambda name: seen.append(('first', name)),
        lambda name: seen.append(('second', name))])
    base.step_boundary('mapping_swap')
    assert seen == [('first', 'mapping_swap'), ('second', 'mapping_swap')]


def test_step_observers_stop_a_step_with_what_they_raise(monkeypatch):
    """The tests' plugin (tests/plugin): a failure is an Exception (the
    step rolls back), a crash is not (nothing does)."""
    with nova_lite_test_hooks.observing(
            nova_lite_test_hooks.fail_at('mapping_swap')):
        base.step_boundary('prep_resize_at_dest')
        with pytest.raises(nova_lite_test_hooks.SimulatedStepFailure):
            base.step_boundary('mapping_swap')
    with nova_lite_test_hooks.observing(
            nova_lite_test_hooks.crash_at('mapping_swap')):
        with pytest.raises(nova_lite_test_hooks.SimulatedCrash):
            base.step_boundary('mapping_swap')
    assert not issubclass(nova_lite_test_hooks.SimulatedCrash, Exception)
    base.step_boundary('mapping_swap')      # observers gone: nothing
    assert base.STEP_OBSERVERS == []


def test_the_plugin_installs_what_the_environment_asks_for(monkeypatch):
    monkeypatch.setattr(base, 'STEP_OBSERVERS', [])
    nova_lite_test_hooks.install()
    assert base.STEP_OBSERVERS == []
    monkeypatch.setenv(nova_lite_test_hooks.FAIL_ENV, 'schedule')
    nova_lite_test_hooks.install()
    base.step_boundary('dispatch')
    with pytest.raises(nova_lite_test_hooks.SimulatedStepFailure):
        base.step_boundary('schedule')


def test_syncing_actions_costs_the_same_however_long_the_history(
        cells_env):
    """sync_actions reads the target's actions and events in two
    statements and writes only what changed: no statement per action
    or event of the history (N+1)."""
    source, target = _ctx(cells_env, 'cell1'), _ctx(cells_env, 'cell2')
    uuid = uuidutils.generate_uuid()
    objects.Instance(source, uuid=uuid, host='cell1-compute1',
                     vm_state='active', metadata={}, system_metadata={},
                     tags=[], network_info=[], keypairs=[]).create()
    counter = StatementCounter(target=main_db.get_engines(target))

    def history(n):
        for i in range(n):
            ctxt = source.elevated()
            ctxt.request_id = 'req-%s' % uuidutils.generate_uuid()
            instance_action.InstanceAction.action_start(ctxt, uuid, 'stop')
            instance_action.InstanceActionEvent.event_start(ctxt, uuid, 'e')
            instance_action.InstanceActionEvent.event_finish(ctxt, uuid,
                                                             'e')

    def statements_of_a_sync():
        counter.statements['target'].clear()
        with counter.counting():
            cross_cell.sync_actions(source, target, uuid)
        return [s.split()[0].upper() for s in counter.statements['target']]

    history(2)
    cross_cell.copy_instance(source, target, uuid, None)
    short = statements_of_a_sync()
    history(20)
    cross_cell.sync_actions(source, target, uuid)
    long = statements_of_a_sync()
    assert short == long == ['SELECT', 'SELECT']
    # A change is carried over, alone.
    ctxt = source.elevated()
    ctxt.request_id = 'req-last'
    instance_action.InstanceAction.action_start(ctxt, uuid, 'start')
    instance_action.InstanceActionEvent.event_start(ctxt, uuid, 'e')
    assert statements_of_a_sync() == ['SELECT', 'SELECT', 'INSERT',
                                      'INSERT']
    instance_action.InstanceActionEvent.event_finish(ctxt, uuid, 'e')
    assert statements_of_a_sync() == ['SELECT', 'SELECT', 'UPDATE',
                                      'UPDATE']
    finished = [e for a in instance_action.InstanceActionList
                .get_by_instance_uuid(target, uuid) if a.action == 'start'
                for e in instance_action.InstanceActionEventList
                .get_by_action(target, a.id)]
    assert [e.result for e in finished] == ['Success']
