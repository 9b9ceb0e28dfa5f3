"""The super conductor's resize and cold migration orchestration:
migrate_server.

    CreateMigrationTask -> UpdateRequestSpecTask -> ScheduleMoveTask
        -> CastPrepResizeTask (a host of the instance's cell), or
           cross_cell_migrate.CrossCellMigrationTask (a host of
           another cell, when the API allowed a cross-cell move)

run as one CompositeTask: a failure anywhere rolls back the steps done,
newest first (the source allocation back to the instance and the
destination claim dropped, the request spec as it was, the migration in
error), and then the server leaves resize_prep as it was (task None,
same vm_state) with the failure recorded in its instance action and as
its fault (as Nova's conductor does). The computes do the rest
(nova_lite.compute.service.resize_tasks).

Before scheduling and before the hand-off (the prep_resize cast or the
cross-cell chain), base.step_boundary runs ('schedule', 'dispatch':
its observers). A super conductor that dies between the
migration's creation and the hand-off leaves the move to its start-up
recovery (move_recovery).
"""
from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import group_info
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import cross_cell_migrate
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


class CreateMigrationTask(base.TaskBase):
    """Create the migration record in the instance's cell.

    On entry: the instance in task_state resize_prep, on its source host.
    On exit: a Migration in status pre-migrating (self.migration), of
    type resize (new flavor) or migration (same flavor), uuid = the
    placement consumer that will hold the source allocation; none when
    the instance was deleted meanwhile (InstanceNotFound: the move ends
    there, nothing to undo).
    Rollback: the migration goes to error.
    """

    def __init__(self, context, instance, new_flavor):
        super().__init__(context)
        self.instance = instance
        self.new_flavor = new_flavor
        self.migration = None

    def _execute(self):
        inst = self.instance
        resize = self.new_flavor.flavorid != inst.flavor.flavorid
        migration = objects.Migration(
            self.context, uuid=uuidutils.generate_uuid(),
            instance_uuid=inst.uuid, source_compute=inst.host,
            source_node=inst.node, status=migration_obj.PRE_MIGRATING,
            migration_type=(migration_obj.RESIZE if resize
                            else migration_obj.MIGRATION),
            old_instance_type_id=inst.flavor.id,
            new_instance_type_id=self.new_flavor.id,
            project_id=inst.project_id, user_id=inst.user_id,
            hidden=False, cross_cell_move=False)
        migration.create()
        self.migration = migration
        return migration

    def rollback(self, ex):
        if self.migration is not None:
            self.migration.status = migration_obj.ERROR
            self.migration.save()


class UpdateRequestSpecTask(base.TaskBase):
    """Record the new flavor in the request spec and say where the
    scheduler may go: the instance's cell only (cross-cell moves are not
    done here), not the source host unless [DEFAULT]
    allow_resize_to_same_host (a resize; never a migration), the host an
    administrator named. A cross-cell move (allow_cross_cell) lets
    the scheduler take hosts of every cell (requested_destination:
    cell_uuid None, allow_cross_cell_move, source_cell_uuid).

    On entry: the instance's request spec (API DB).
    On exit: self.spec, saved with the new flavor; the spec's
    ignore_hosts and requested_destination as this move needs them.
    Rollback: the spec as it was.
    """

    def __init__(self, context, instance, new_flavor, cell_uuid, host,
                 resize, allow_cross_cell=False):
        super().__init__(context)
        self.allow_cross_cell = allow_cross_cell
        self.instance = instance
        self.new_flavor = new_flavor
        self.cell_uuid = cell_uuid
        self.host = host
        self.resize = resize
        self.spec = self.original = None

    def _execute(self):
        spec = objects.RequestSpec.get_by_instance_uuid(
            self.context, self.instance.uuid)
        self.original = spec.obj_clone()
        same_host = self.resize and CONF.allow_resize_to_same_host
        spec.flavor = self.new_flavor
        spec.ignore_hosts = [] if same_host else [self.instance.host]
        # A host forced at boot binds the boot only (as Nova resets its
        # forced destinations before a move).
        spec.force_hosts = []
        spec.force_nodes = []
        if self.allow_cross_cell:
            spec.requested_destination = {
                'cell_uuid': None, 'host': self.host,
                'allow_cross_cell_move': True,
                'source_cell_uuid': self.cell_uuid}
        else:
            spec.requested_destination = {'cell_uuid': self.cell_uuid,
                                          'host': self.host}
        spec.save()
        # The server group's policy holds on the move too: the hosts of
        # its other members, for the scheduler's filters.
        group_info.refresh(self.context, spec, [self.instance.uuid])
        self.spec = spec
        return spec

    def rollback(self, ex):
        if self.original is None:
            return
        try:
            objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        except exception.RequestSpecNotFound:
            return   # the server was deleted meanwhile: its spec went
        self.original.context = self.context
        self.original.save()


class ScheduleMoveTask(base.TaskBase):
    """Pick the destination and claim it.

    On entry: the migration (pre-migrating) and the updated spec.
    On exit: one scheduler transaction handed the instance's source
    allocation to the migration and claimed the new flavor on the
    destination for the instance; the migration names the destination.
    Rollback: the migration's allocation moved back to the instance
    (replacing the destination claim).
    """

    def __init__(self, context, instance, migration_task, spec_task):
        super().__init__(context)
        self.instance = instance
        self.migration_task = migration_task
        self.spec_task = spec_task
        self.claimed = False
        self.selections = []

    def _execute(self):
        base.step_boundary('schedule')
        migration = self.migration_task.migration
        selections = scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, self.spec_task.spec, [self.instance.uuid],
            return_alternates=self.spec_task.allow_cross_cell,
            migration_uuid=migration.uuid)
        self.claimed = True
        self.selections = selections[0]
        dest = selections[0][0]
        migration.dest_compute = dest['host']
        migration.dest_node = dest['nodename']
        migration.save()
        return dest

    def rollback(self, ex):
        if not self.claimed:
            return
        placement = compute_inventory.placement_for(self.context)
        if cross_cell_migrate.deleted_meanwhile(self.context,
                                                self.instance.uuid):
            # The delete freed the instance's claims (or is freeing
            # them); the migration's must not come back to it.
            placement.remove_allocations(
                self.context, self.migration_task.migration.uuid)
            placement.remove_allocations(self.context, self.instance.uuid)
            return
        moved = placement.move_allocations(
            self.context, self.migration_task.migration.uuid,
            self.instance.uuid)
        if not moved:
            # The instance held nothing to hand over (deleted meanwhile):
            # what it holds now is the destination claim alone.
            placement.remove_allocations(self.context, self.instance.uuid)


class CastPrepResizeTask(base.TaskBase):
    """Hand the move to the destination compute.

    On entry: the destination claimed; its compute speaks compute RPC
    1.6 (ComputeTooOldForAction otherwise, rolled back).
    On exit: prep_resize cast to the destination.
    """

    def __init__(self, context, instance, migration_task, spec_task,
                 new_flavor):
        super().__init__(context)
        self.instance = instance
        self.migration_task = migration_task
        self.spec_task = spec_task
        self.new_flavor = new_flavor

    def _execute(self):
        migration = self.migration_task.migration
        rpc = compute_rpcapi.ComputeAPI()
        dest = migration.dest_compute
        if not rpc.can_send(self.context, dest,
                            compute_rpcapi.RESIZE_VERSION):
            raise exception.ComputeTooOldForAction(
                action=migration.migration_type,
                instance_uuid=self.instance.uuid, host=dest)
        rpc.prep_resize(self.context, dest, self.instance, migration,
                        self.new_flavor, self.spec_task.spec)


class DispatchMoveTask(base.TaskBase):
    """Hand the move on: CastPrepResizeTask for a destination in the
    instance's cell, the cross-cell chain for one in another cell.

    On entry: the destination claimed (ScheduleMoveTask).
    On exit: what the task run says; its failure rolled it back.
    """

    def __init__(self, context, instance, migration_task, spec_task,
                 schedule_task, new_flavor, cell_uuid):
        super().__init__(context)
        self.args = (instance, migration_task, spec_task, new_flavor)
        self.schedule_task = schedule_task
        self.cell_uuid = cell_uuid

    def _execute(self):
        base.step_boundary('dispatch')
        instance, migration_task, spec_task, new_flavor = self.args
        dest = self.schedule_task.selections[0]
        if dest.get('cell_uuid') in (None, self.cell_uuid):
            return CastPrepResizeTask(self.context, instance, migration_task,
                                      spec_task, new_flavor).execute()
        ctxt = self.context
        move = cross_cell_migrate.Move(
            ctxt, instance, migration_task.migration, new_flavor,
            spec_task.spec, self.schedule_task.selections,
            objects.CellMapping.get_by_uuid(ctxt, self.cell_uuid),
            objects.CellMapping.get_by_uuid(ctxt, dest['cell_uuid']))
        return cross_cell_migrate.CrossCellMigrationTask(move).execute()


def migrate_server(cctxt, instance, new_flavor, cell_uuid, host=None,
                   allow_cross_cell=False):
    """Run the move of instance (context targeted at its cell, task
    resize_prep) to new_flavor (its own flavor for a cold migration),
    to host if an administrator named one; to another cell when
    allow_cross_cell and the scheduler picks a host there. On failure
    the server is back as it was (task None) and the error is
    raised."""
    resize = new_flavor.flavorid != instance.flavor.flavorid
    migration_task = CreateMigrationTask(cctxt, instance, new_flavor)
    spec_task = UpdateRequestSpecTask(cctxt, instance, new_flavor,
                                      cell_uuid, host, resize,
                                      allow_cross_cell)
    schedule_task = ScheduleMoveTask(cctxt, instance, migration_task,
                                     spec_task)
    task = base.CompositeTask(cctxt, [
        migration_task, spec_task, schedule_task,
        DispatchMoveTask(cctxt, instance, migration_task, spec_task,
                         schedule_task, new_flavor, cell_uuid)])
    try:
        task.execute()
    except Exception as exc:
        LOG.info('%s of %s failed: %s', 'Resize' if resize else 'Migration',
                 instance.uuid, exc)
        instance.task_state = None
        try:
            instance.save(expected_task_state=[instance_obj.RESIZE_PREP])
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            pass
        else:
            _record_fault(instance, exc)
        raise


def _record_fault(instance, exc):
    """The failure as the server's fault, as Nova's conductor records
    every failed move (the server keeps its vm_state: it is still where
    it was)."""
    message = (exc.format_message()
               if isinstance(exc, exception.NovaLiteException)
               else '%s: %s' % (type(exc).__name__, exc))
    try:
        instance.add_fault(500, message[:255])
    except Exception:
        LOG.exception('Could not record the fault of %s', instance.uuid)
