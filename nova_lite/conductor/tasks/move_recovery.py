"""A super conductor's start-up recovery of resizes and cold migrations
it started (conductor.tasks.migrate.migrate_server) and never handed
off: it stopped after the migration record was created and before the
prep_resize cast (same cell) or the cross-cell chain's first step.

Such a move is rolled back as migrate_server's own rollback would: the
migration's allocation (the instance's source allocation) moved back to
the instance, replacing the destination claim the scheduler made for
it; the request spec's flavor back to the instance's (the spec's other
fields the move changed -- ignore_hosts, requested_destination -- are
recorded nowhere else, so they stay: each move sets them anew); the
migration in error; the server's task_state None with its vm_state
unchanged and a fault saying why; the action's conductor_migrate_server
event finished with result Error.

How a move that was not handed off is told from one that was (and
whose compute has not got to it yet): migrate_server runs inside the
conductor_migrate_server event of the move's instance action, started
before the migration is created and finished once the hand-off
returned (manager.ComputeTaskManager.migrate_server). So a move is
taken as not handed off when the instance is in task_state resize_prep,
its newest migration is pre-migrating and not a cross-cell move
(cross_cell_recovery owns those: the chain's first step marks the
migration cross_cell_move before anything else), and the event of its
newest resize or migrate action is unfinished. No schema or object
change is needed.

The one window that rule gets wrong -- killed after the cast and before
the event was finished, a prep_resize still queued or running -- is
settled by the instance's task_state compare-and-swap, done first:
recovery takes the move only by saving task_state resize_prep -> None.
The compute's point of no return, resize_instance at the source, swaps
resize_prep -> resize_migrating before it touches the guest
(prep_resize's own swap, resize_prep -> resize_prep recording the
migration context, does not exclude recovery). So either the source
got there first and recovery leaves the move alone, or recovery did
(clearing a migration context a prep_resize may have recorded) and the
compute's swap fails: it gives up, moving back what the migration
holds -- nothing by then -- so it frees no allocation it does not own.
A prep_resize that comes even later, after a new move put the server
back in resize_prep, finds its migration no longer pre-migrating and
gives up without touching the server or allocations
(nova_lite.compute.service.resize_tasks; a compute older than that
check would take the newer move's resize_prep).

An event whose block a BaseException left (a kill, a stop, a step
observer's crash: base.step_boundary) stays unfinished
(compute.instance_events), so a simulated crash reads as a SIGKILL
does.

Assumes one super conductor per deployment: no other one runs the move
while this one recovers. Known limits: a kill during the scheduler call
(after the 'schedule' boundary) relies on the scheduler having
committed its claim before the restart reads it (a claim committed
later stays with the migration: a placement check_allocations
finding); a recovery itself killed after its swap and before its last
step leaves the remaining steps (allocations, spec, migration status,
event) undone, as the server is no longer in resize_prep for the next
start to find; a move killed before its migration was created (the
event started, no migration yet) is not found.
"""
import copy

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# The event manager.ComputeTaskManager.migrate_server records around
# migrate_server.
EVENT = 'conductor_migrate_server'
MOVE_ACTIONS = (instance_action.RESIZE, instance_action.MIGRATE)
MESSAGE = ('Resize or migration interrupted by a restart of the super '
           'conductor before it was handed to a compute; rolled back.')


def recover(context):
    """Roll back every move migrate_server started and never handed off
    (see the module doc). Returns {migration uuid: 'rolled back'}."""
    done = {}
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                prepping = objects.InstanceList.get_by_filters(
                    cctxt, {'task_state': [instance_obj.RESIZE_PREP]})
            except Exception:
                LOG.exception('Could not read the moves of cell %s',
                              cell.uuid)
                continue
            for instance in prepping:
                try:
                    found = _not_handed_off(cctxt, instance)
                    if found and _roll_back(cctxt, instance, *found):
                        LOG.warning('Move %s of %s was interrupted before '
                                    'its hand-off; rolled back',
                                    found[0].uuid, instance.uuid)
                        done[found[0].uuid] = 'rolled back'
                except Exception:
                    LOG.exception('Could not recover the move of %s',
                                  instance.uuid)
    return done


def _not_handed_off(cctxt, instance):
    """(migration, action) of instance's move when it was not handed
    off, else None."""
    try:
        migration = objects.Migration.get_in_progress_by_instance(
            cctxt, instance.uuid, [migration_obj.PRE_MIGRATING])
    except exception.MigrationNotFound:
        return None
    if migration.cross_cell_move:
        return None
    actions = instance_action.InstanceActionList.get_by_instance_uuid(
        cctxt, instance.uuid)
    action = next((a for a in actions if a.action in MOVE_ACTIONS), None)
    if action is None:
        return None
    events = [e for e in instance_action.InstanceActionEventList.
              get_by_action(cctxt, action.id) if e.event == EVENT]
    if not events or any(e.finish_time is not None for e in events):
        return None
    return migration, action


def _roll_back(cctxt, instance, migration, action):
    """Take the move (task_state swap) and undo it; False when the
    compute (or a delete) had it first."""
    instance.task_state = None
    instance.migration_context = None
    instance.old_flavor = instance.new_flavor = None
    try:
        instance.save(expected_task_state=[instance_obj.RESIZE_PREP])
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound) as exc:
        LOG.info('Move %s of %s went on meanwhile: %s', migration.uuid,
                 instance.uuid, exc)
        return False
    compute_inventory.placement_for(cctxt).move_allocations(
        cctxt, migration.uuid, instance.uuid)
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(cctxt,
                                                        instance.uuid)
        if spec.flavor.flavorid != instance.flavor.flavorid:
            spec.flavor = instance.flavor
            spec.save()
    except exception.RequestSpecNotFound:
        pass
    migration.status = migration_obj.ERROR
    try:
        migration.save(expected_status=[migration_obj.PRE_MIGRATING])
    except exception.MigrationStatusConflict as exc:
        LOG.info('Migration %s moved on meanwhile: %s', migration.uuid,
                 exc)
    instance.add_fault(500, MESSAGE)
    actx = copy.copy(cctxt)
    actx.request_id = action.request_id
    instance_action.InstanceActionEvent.event_finish(
        actx, instance.uuid, EVENT, result=instance_action.ERROR,
        details=MESSAGE, host=CONF.host, want_result=False)
    return True
