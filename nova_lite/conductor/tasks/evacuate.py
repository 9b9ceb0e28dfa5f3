"""The super conductor's evacuation (compute_task RPC 1.5):
evacuate_server rebuilds a server whose compute is down (or forced
down) on another host of its cell.

The API set the server's task to rebuilding, recorded the evacuate
action and created the migration (type evacuation, status accepted) in
one transaction. Here, as one CompositeTask:

    migrate.UpdateRequestSpecTask   (the spec: not the source host, the
                                     host an administrator named, the
                                     server's cell, its group's members)
    -> migrate.ScheduleMoveTask     (the scheduler picks and claims), or
       ForcedClaimTask              (force, 2.29-2.67: the named host
                                     claimed without the scheduler)
    -> CastEvacuateTask             (migration pre-migrating; cast to
                                     the destination's compute)

The claim hands the instance's source allocation to the migration and
claims the destination for the instance, as a resize does: both hosts
stay held until the source compute comes back and frees the source's
(nova_lite.compute.service.evacuate_tasks). A failure anywhere (no
valid host, a host of another cell, a destination too old for compute
RPC 1.14) rolls back the steps done (the claim given back, the spec as
it was): the migration ends in error, the server where it was with no
task and a fault, and the action's event conductor_evacuate_server
records the error.

A super conductor that dies before the hand-off leaves the evacuation
to the start-up recovery of the next one (recover): an evacuation whose
migration is still accepted or pre-migrating and whose conductor event
started and never finished is rolled back as above (one whose event
never started has its cast still queued: it runs once a super conductor
consumes it). The migration's status is the
arbiter: recovery takes it with a compare-and-swap to error from
accepted/pre-migrating, the destination compute with one from
pre-migrating to migrating; whichever comes second does nothing.
"""
import copy

from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import migrate
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# The event manager.ComputeTaskManager.evacuate_server records around
# evacuate_server.
EVENT = 'conductor_evacuate_server'
# Statuses of an evacuation the super conductor has not handed off.
_NOT_HANDED_OFF = [migration_obj.ACCEPTED, migration_obj.PRE_MIGRATING]
RECOVERED = ('Evacuation interrupted by a restart of the super conductor '
             'before it was handed to a compute; rolled back.')


class _Holder(object):
    """What ScheduleMoveTask reads its migration from."""

    def __init__(self, migration):
        self.migration = migration


class ForcedClaimTask(migrate.ScheduleMoveTask):
    """force (2.29-2.67): claim the named host without the scheduler.

    On entry: the migration (accepted) naming no destination yet.
    On exit: as ScheduleMoveTask's: the source allocation the
    migration's, the host's node claimed for the instance, the
    migration naming it. NoValidHost when the host has no compute node
    in the server's cell (a host of another cell) or no room.
    Rollback: ScheduleMoveTask's.
    """

    def __init__(self, context, instance, migration_task, spec_task, host):
        super().__init__(context, instance, migration_task, spec_task)
        self.host = host

    def _execute(self):
        base.step_boundary('schedule')
        migration = self.migration_task.migration
        nodes = objects.ComputeNodeList.get_all_by_host(self.context,
                                                        self.host)
        if not nodes:
            raise exception.NoValidHost(
                reason='Compute host %s is not in the cell of the server.'
                % self.host)
        node = nodes[0]
        spec = self.spec_task.spec
        try:
            compute_inventory.placement_for(self.context).claim(
                self.context, self.instance.uuid,
                {node.uuid: spec.resources()},
                project_id=self.instance.project_id,
                user_id=self.instance.user_id, move_to=migration.uuid)
        except exception.InsufficientResources as exc:
            raise exception.NoValidHost(reason=str(exc))
        self.claimed = True
        self.selections = [{'host': node.host,
                            'nodename': node.hypervisor_hostname}]
        migration.dest_compute = node.host
        migration.dest_node = node.hypervisor_hostname
        migration.save()
        return self.selections[0]


class CastEvacuateTask(base.TaskBase):
    """Hand the evacuation to the destination's compute.

    On entry: the destination claimed; its compute speaks compute RPC
    1.14 (ComputeTooOldForAction otherwise).
    On exit: the migration pre-migrating (compare-and-swap on
    accepted), evacuate_instance cast to the destination.
    """

    def __init__(self, context, instance, migration, admin_password,
                 stopped, spec_task=None):
        super().__init__(context)
        self.instance = instance
        self.migration = migration
        self.admin_password = admin_password
        self.stopped = stopped
        self.spec_task = spec_task

    def _execute(self):
        base.step_boundary('dispatch')
        migration = self.migration
        rpc = compute_rpcapi.ComputeAPI()
        dest = migration.dest_compute
        if not rpc.can_send(self.context, dest,
                            compute_rpcapi.EVACUATE_VERSION):
            raise exception.ComputeTooOldForAction(
                action='evacuate', instance_uuid=self.instance.uuid,
                host=dest)
        migration.status = migration_obj.PRE_MIGRATING
        migration.save(expected_status=[migration_obj.ACCEPTED])
        # The spec (its server group) for the destination's late check
        # of the group's policy (a destination at compute RPC 1.17).
        rpc.evacuate_instance(self.context, dest, self.instance, migration,
                              admin_password=self.admin_password,
                              stopped=self.stopped,
                              request_spec=(self.spec_task.spec
                                            if self.spec_task else None))


def evacuate_server(cctxt, instance, migration, cell_uuid, host=None,
                    force=False, admin_password=None, stopped=False):
    """Run the evacuation of instance (context targeted at its cell,
    task rebuilding, migration accepted) to host (the scheduler's pick
    when None; force: without the scheduler). stopped: the server ends
    SHUTOFF (2.95). On failure the server is back as it was (task None,
    a fault), the migration in error, and the error is raised."""
    current = objects.Migration.get_by_uuid(cctxt, migration.uuid)
    if current.status != migration_obj.ACCEPTED:
        LOG.info('Evacuation %s of %s: %s meanwhile, nothing to do',
                 migration.uuid, instance.uuid, current.status)
        return
    spec_task = migrate.UpdateRequestSpecTask(
        cctxt, instance, instance.flavor, cell_uuid, host, resize=False)
    holder = _Holder(current)
    if force:
        schedule = ForcedClaimTask(cctxt, instance, holder, spec_task, host)
    else:
        schedule = migrate.ScheduleMoveTask(cctxt, instance, holder,
                                            spec_task)
    task = base.CompositeTask(cctxt, [
        spec_task, schedule,
        CastEvacuateTask(cctxt, instance, current, admin_password,
                         stopped, spec_task)])
    try:
        task.execute()
    except Exception as exc:
        LOG.info('Evacuation of %s failed: %s', instance.uuid, exc)
        _roll_back(instance, current, _message(exc))
        raise


def _message(exc):
    return (exc.format_message()
            if isinstance(exc, exception.NovaLiteException)
            else '%s: %s' % (type(exc).__name__, exc))


def _roll_back(instance, migration, message):
    """The evacuation did not start: the migration in error
    (compare-and-swap), the server with no task and a fault (its
    vm_state as it was: it is still where it was). False when a compute
    or a delete had it first."""
    migration.status = migration_obj.ERROR
    try:
        migration.save(expected_status=_NOT_HANDED_OFF)
    except (exception.MigrationStatusConflict,
            exception.MigrationNotFound) as exc:
        LOG.info('Evacuation %s moved on meanwhile: %s', migration.uuid,
                 exc)
        return False
    instance.task_state = None
    try:
        instance.save(expected_task_state=[instance_obj.REBUILDING])
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound):
        return True
    try:
        instance.add_fault(500, message[:255])
    except Exception:
        LOG.exception('Could not record the fault of %s', instance.uuid)
    return True


# --- start-up recovery -----------------------------------------------------

def recover(context):
    """Roll back every evacuation of every cell that a super conductor
    started and never handed off (see the module doc). Returns {migration
    uuid: 'rolled back'}."""
    done = {}
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                rebuilding = objects.InstanceList.get_by_filters(
                    cctxt, {'task_state': [instance_obj.REBUILDING]})
            except Exception:
                LOG.exception('Could not read the evacuations of cell %s',
                              cell.uuid)
                continue
            for instance in rebuilding:
                try:
                    migration = _not_handed_off(cctxt, instance)
                    if migration is not None and _recover_one(
                            cctxt, instance, migration):
                        done[migration.uuid] = 'rolled back'
                except Exception:
                    LOG.exception('Could not recover the evacuation of %s',
                                  instance.uuid)
    return done


def _event(cctxt, instance):
    """The newest evacuate action of instance and its conductor event
    (either None)."""
    actions = instance_action.InstanceActionList.get_by_instance_uuid(
        cctxt, instance.uuid)
    action = next((a for a in actions
                   if a.action == instance_action.EVACUATE), None)
    if action is None:
        return None, None
    events = [e for e in instance_action.InstanceActionEventList.
              get_by_action(cctxt, action.id) if e.event == EVENT]
    return action, (events[0] if events else None)


def _not_handed_off(cctxt, instance):
    try:
        migration = objects.Migration.get_in_progress_by_instance(
            cctxt, instance.uuid, _NOT_HANDED_OFF)
    except exception.MigrationNotFound:
        return None
    if migration.migration_type != migration_obj.EVACUATION:
        return None
    _action, event = _event(cctxt, instance)
    if event is None or event.finish_time is not None:
        # Not started: its cast still waits in the queue for a super
        # conductor (this one, once it consumes); or handed off.
        return None
    return migration


def _recover_one(cctxt, instance, migration):
    if not _roll_back(instance, migration, RECOVERED):
        return False
    # What the migration holds (the source, once claimed) goes back to
    # the instance, replacing the destination claim.
    compute_inventory.placement_for(cctxt).move_allocations(
        cctxt, migration.uuid, instance.uuid)
    action, event = _event(cctxt, instance)
    if event is not None:
        actx = copy.copy(cctxt)
        actx.request_id = action.request_id
        instance_action.InstanceActionEvent.event_finish(
            actx, instance.uuid, EVENT, result=instance_action.ERROR,
            details=RECOVERED, host=CONF.host, want_result=False)
    LOG.warning('Evacuation %s of %s was interrupted before its hand-off; '
                'rolled back', migration.uuid, instance.uuid)
    return True
