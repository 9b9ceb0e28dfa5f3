"""The super conductor's cross-cell resize (cold migration), run when the
scheduler picked a host in another cell than the instance's
(conductor.tasks.migrate):

    TargetDBSetupTask -> PrepResizeAtDestTask -> PrepResizeAtSourceTask
        -> FinishResizeAtDestTask -> MappingSwapTask

as one CompositeTask (CrossCellMigrationTask): a failure rolls back the
steps done, newest first, then leaves exactly one visible copy in the
source cell as it was (task None, same vm_state, guest running or shut
off as before), the migration in error, a fault recorded; the
scheduling task before it moves the source allocation back to the
instance. The computes' part is compute RPC 1.8, synchronous calls
(nova_lite.compute.service.cross_cell_tasks).

Migration statuses (kept in the source cell's record and the target's
copy, so a restart can tell where a move stopped): pre-migrating
(target copy made, prep at the destination), migrating (prep at the
source), post-migrating (guest gone from the source), finished
(VERIFY_RESIZE, mapping in the target cell).

Before each step base.step_boundary(name) runs (its observers).

A delete wins over the move: the API deletes the source copy (the
server while the mapping is in the source cell) whatever step runs.
Each step after the target copy's setup first checks that the source
copy is still there and not being deleted (deleted_meanwhile), and so
does the mapping swap after it has swapped; a deleted server makes the
step raise InstanceNotFound, so the chain rolls back (target copy,
destination guest, attachments and port bindings, snapshot) and the
scheduling task drops the claims of the instance and the migration.
"""
from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import base
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import cross_cell
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_mapping as mapping_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)


def deleted_meanwhile(cctxt, instance_uuid):
    """Whether the server was deleted (or is being deleted) while its
    move ran: the copy in cctxt's cell gone, or deleting."""
    states = cross_cell.states(cctxt, instance_uuid)
    return (states is None or states[0] == instance_obj.DELETED
            or states[1] == instance_obj.DELETING)


def _check_not_deleted(move):
    """InstanceNotFound when the server was deleted meanwhile."""
    if deleted_meanwhile(move.sctxt, move.instance.uuid):
        LOG.info('Instance %s was deleted during its cross-cell move; '
                 'the move gives up', move.instance.uuid)
        raise exception.InstanceNotFound(instance_id=move.instance.uuid)


def snapshot_name(migration_uuid):
    """The name of the temporary snapshot image of a move."""
    return 'resize-snapshot-%s' % migration_uuid


def _save_status(migration, status):
    migration.status = status
    migration.save()


class Move(object):
    """What the steps share: the contexts of both cells, both copies of
    the instance and of the migration, the flavor, the spec, the
    destinations (primary first, then alternates of its cell)."""

    def __init__(self, context, instance, migration, new_flavor, spec,
                 selections, source_cell, target_cell):
        self.context = context
        self.instance = instance
        self.migration = migration
        self.new_flavor = new_flavor
        self.spec = spec
        self.selections = selections
        self.source_cell = source_cell
        self.target_cell = target_cell
        with nova_context.target_cell(context, source_cell) as sctxt:
            self.sctxt = sctxt
        with nova_context.target_cell(context, target_cell) as tctxt:
            self.tctxt = tctxt
        self.target_instance = self.target_migration = None
        self.snapshot_id = None
        self.rpc = compute_rpcapi.ComputeAPI()
        self.network = network_api.API()

    def save_both(self, **values):
        """Set values on both copies of the migration."""
        for migration in (self.migration, self.target_migration):
            if migration is None:
                continue
            for name, value in values.items():
                setattr(migration, name, value)
            try:
                migration.save()
            except exception.MigrationNotFound:
                pass


class TargetDBSetupTask(base.TaskBase):
    """Copy the instance into the target cell.

    On entry: the migration pre-migrating in the source cell, the
    destination claimed. On exit: migration.cross_cell_move; a hidden
    copy of the instance (its extra, info cache, metadata, tags, block
    device mappings, faults, actions and events) and of the migration
    in the target cell.
    Rollback: every row of the copy hard-deleted from the target cell.
    """

    def __init__(self, move):
        super().__init__(move.context)
        self.move = move

    def _execute(self):
        move = self.move
        move.migration.cross_cell_move = True
        move.migration.save()
        base.step_boundary('target_db_setup')
        cross_cell.copy_instance(move.sctxt, move.tctxt, move.instance.uuid,
                                 move.migration.uuid, hidden=True)
        move.target_instance = objects.Instance.get_by_uuid(
            move.tctxt, move.instance.uuid)
        move.target_migration = objects.Migration.get_by_uuid(
            move.tctxt, move.migration.uuid)

    def rollback(self, ex):
        cross_cell.hard_delete(self.move.tctxt, self.move.instance.uuid)


class PrepResizeAtDestTask(base.TaskBase):
    """Prepare the destination (compute call), trying the alternates of
    the target cell when it fails.

    On entry: the hidden target copy; the primary destination claimed
    for the instance. On exit: a destination took it (claim, migration
    context, new volume attachments in the target copy's mappings, an
    INACTIVE binding to it of each of the instance's ports beside the
    source's ACTIVE one); both migrations name it; the source copy
    carries the migration context and old/new flavor too. An alternate
    that is used first gets the instance's claim (replacing the failed
    host's); a host that fails loses its bindings before the next is
    tried.
    Rollback: the destination's attachments and port bindings dropped,
    the source copy's record of the move cleared.
    """

    def __init__(self, move):
        super().__init__(move.context)
        self.move = move
        self.host = None

    def _execute(self):
        base.step_boundary('prep_resize_at_dest')
        move = self.move
        placement = compute_inventory.placement_for(move.context)
        last = None
        for i, sel in enumerate(move.selections):
            if i:
                try:
                    placement.claim(move.context, move.instance.uuid,
                                    sel['allocation_request'],
                                    project_id=move.instance.project_id,
                                    user_id=move.instance.user_id)
                except exception.NovaLiteException as exc:
                    LOG.info('Alternate %s refused the claim: %s',
                             sel['host'], exc)
                    last = exc
                    continue
            move.save_both(dest_compute=sel['host'],
                           dest_node=sel['nodename'])
            try:
                if not move.rpc.can_send(
                        move.tctxt, sel['host'],
                        compute_rpcapi.CROSS_CELL_RESIZE_VERSION):
                    raise exception.ComputeTooOldForAction(
                        action='cross-cell resize',
                        instance_uuid=move.instance.uuid, host=sel['host'])
                # The ports must bind there before the host is taken.
                move.network.create_instance_bindings(
                    move.context, move.instance.uuid, sel['host'])
                ctx = move.rpc.prep_snapshot_based_resize_at_dest(
                    move.tctxt, sel['host'], move.target_instance,
                    move.target_migration, move.new_flavor, move.spec)
            except Exception as exc:
                LOG.warning('Prep of the cross-cell resize of %s at %s '
                            'failed: %s', move.instance.uuid, sel['host'],
                            exc)
                last = exc
                self._drop_bindings(sel['host'])
                continue
            self.host = sel['host']
            break
        if self.host is None:
            raise last or exception.NoValidHost(reason='no destination')
        _check_not_deleted(move)
        move.target_instance = objects.Instance.get_by_uuid(
            move.tctxt, move.instance.uuid)
        move.target_migration = objects.Migration.get_by_uuid(
            move.tctxt, move.migration.uuid)
        inst = move.instance
        inst.migration_context = ctx
        inst.old_flavor = inst.flavor
        inst.new_flavor = move.new_flavor
        inst.save()

    def _drop_bindings(self, host):
        try:
            self.move.network.delete_instance_bindings(
                self.move.context, self.move.instance.uuid, host)
        except Exception:
            LOG.exception('Could not delete the port bindings of %s to %s',
                          self.move.instance.uuid, host)

    def rollback(self, ex):
        move = self.move
        if self.host is not None:
            try:
                move.rpc.revert_snapshot_based_resize_at_dest(
                    move.tctxt, self.host, move.target_instance,
                    move.target_migration)
            finally:
                # Also when the destination does not answer.
                self._drop_bindings(self.host)


class PrepResizeAtSourceTask(base.TaskBase):
    """Prepare the source (compute call): power off, snapshot, guest
    destroyed with its disks kept, placeholder attachments.

    On entry: the destination prepared. On exit: the source copy in
    resize_migrated, the migrations post-migrating; self.move.
    snapshot_id the uploaded snapshot image (image-backed) or None.
    Rollback: when the step finished, the source restarts the guest as
    before (finish_revert at the source); the snapshot image deleted.
    """

    def __init__(self, move):
        super().__init__(move.context)
        self.move = move
        self.done = False

    def _execute(self):
        base.step_boundary('prep_resize_at_source')
        move = self.move
        _check_not_deleted(move)
        bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
            move.sctxt, move.instance.uuid)
        root = bdms.root_bdm()
        if root is None or not root.is_volume:
            image = image_api.API().create(
                move.context, snapshot_name(move.migration.uuid),
                status='queued', owner=move.instance.project_id)
            move.snapshot_id = image['id']
        _save_status(move.target_migration, migration_obj.MIGRATING)
        uploaded = move.rpc.prep_snapshot_based_resize_at_source(
            move.sctxt, move.migration.source_compute, move.instance,
            move.migration, move.snapshot_id)
        if not uploaded:
            self._drop_snapshot()
        self.done = True
        _save_status(move.target_migration, migration_obj.POST_MIGRATING)
        move.instance = objects.Instance.get_by_uuid(move.sctxt,
                                                     move.instance.uuid)
        move.migration = objects.Migration.get_by_uuid(
            move.sctxt, move.migration.uuid)

    def _drop_snapshot(self):
        if self.move.snapshot_id:
            try:
                image_api.API().delete(self.move.context.elevated(),
                                       self.move.snapshot_id)
            except exception.ImageNotFound:
                pass
            self.move.snapshot_id = None

    def rollback(self, ex):
        move = self.move
        self._drop_snapshot()
        if self.done and not deleted_meanwhile(move.sctxt,
                                               move.instance.uuid):
            instance = objects.Instance.get_by_uuid(move.sctxt,
                                                    move.instance.uuid)
            move.rpc.finish_revert_snapshot_based_resize_at_source(
                move.sctxt, move.migration.source_compute, instance,
                move.migration)


class FinishResizeAtDestTask(base.TaskBase):
    """Spawn at the destination (compute call).

    On entry: the guest gone from the source. On exit: the hidden
    target copy in VERIFY_RESIZE (vm_state resized, new flavor, host
    the destination), its migration finished, the snapshot deleted.
    Rollback: the new guest and its attachments dropped (when the step
    finished; a failure inside it drops them there).
    """

    def __init__(self, move, dest_task):
        super().__init__(move.context)
        self.move = move
        self.dest_task = dest_task
        self.done = False

    def _execute(self):
        base.step_boundary('finish_resize_at_dest')
        move = self.move
        _check_not_deleted(move)
        cross_cell.sync_actions(move.sctxt, move.tctxt, move.instance.uuid)
        target = move.target_instance
        target.task_state = instance_obj.RESIZE_MIGRATED
        target.power_state = instance_obj.SHUTDOWN
        target.save()
        move.target_migration = objects.Migration.get_by_uuid(
            move.tctxt, move.migration.uuid)
        move.rpc.finish_snapshot_based_resize_at_dest(
            move.tctxt, self.dest_task.host, target, move.target_migration,
            move.snapshot_id)
        move.snapshot_id = None
        self.done = True

    def rollback(self, ex):
        move = self.move
        if self.done:
            move.rpc.revert_snapshot_based_resize_at_dest(
                move.tctxt, self.dest_task.host, move.target_instance,
                move.target_migration)


class MappingSwapTask(base.TaskBase):
    """Make the target copy the server, in the order that never shows
    two copies or none: target copy visible -> instance mapping to the
    target cell -> source copy hidden (migrations alike).

    On entry: the target copy in VERIFY_RESIZE. On exit: the mapping
    in the target cell, the source copy and its migration hidden, the
    source migration finished; actions and events of the source copy
    carried over.
    Rollback: the reverse order back to the source cell.
    """

    def __init__(self, move):
        super().__init__(move.context)
        self.move = move

    def _execute(self):
        base.step_boundary('mapping_swap')
        move = self.move
        _check_not_deleted(move)
        uuid, muuid = move.instance.uuid, move.migration.uuid
        cross_cell.sync_actions(move.sctxt, move.tctxt, uuid)
        cross_cell.set_hidden(move.tctxt, uuid, False, muuid)
        mapping_obj.set_cell(move.context, [uuid],
                                          move.target_cell.uuid)
        cross_cell.set_hidden(move.sctxt, uuid, True, muuid)
        # A delete that began on the source copy before the swap wins
        # (rolled back, swap included); one after it finds the server
        # in the target cell, in VERIFY_RESIZE.
        _check_not_deleted(move)
        _save_status(move.migration, migration_obj.FINISHED)

    def rollback(self, ex):
        move = self.move
        uuid, muuid = move.instance.uuid, move.migration.uuid
        cross_cell.set_hidden(move.sctxt, uuid, False, muuid)
        mapping_obj.set_cell(move.context, [uuid],
                                          move.source_cell.uuid)
        cross_cell.set_hidden(move.tctxt, uuid, True, muuid)


class CrossCellMigrationTask(base.CompositeTask):
    """The chain of the module doc. On failure, after the steps' own
    rollbacks: the source copy as before the move (task None, its
    vm_state, no record of the move), a fault, the migration in error
    (the scheduling task before it gives the claims back)."""

    def __init__(self, move):
        dest = PrepResizeAtDestTask(move)
        super().__init__(move.context, [
            TargetDBSetupTask(move), dest, PrepResizeAtSourceTask(move),
            FinishResizeAtDestTask(move, dest), MappingSwapTask(move)])
        self.move = move

    def rollback(self, ex):
        super().rollback(ex)
        move = self.move
        try:
            instance = objects.Instance.get_by_uuid(move.sctxt,
                                                    move.instance.uuid)
            old_vm_state = (instance.migration_context or {}).get(
                'old_vm_state') or instance.vm_state
            instance.add_fault(500, str(ex)[:255])
            instance.migration_context = None
            instance.old_flavor = instance.new_flavor = None
            instance.vm_state = old_vm_state
            instance.power_state = (instance_obj.SHUTDOWN
                                    if old_vm_state == instance_obj.STOPPED
                                    else instance_obj.RUNNING)
            instance.task_state = None
            instance.save(expected_task_state=list(
                instance_obj.RESIZE_TASK_STATES))
        except exception.NovaLiteException as exc:
            LOG.info('Instance %s moved on during its failed cross-cell '
                     'resize: %s', move.instance.uuid, exc)
