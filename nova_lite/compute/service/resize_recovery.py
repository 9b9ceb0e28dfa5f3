"""The compute service's side of a delete or a restart in the middle of
a resize or cold migration (reusing the public steps of
resize_tasks.ResizeTasks): the set-aside guest and the migration's
claim of a deleted server go with it, and no move stays in a task
state after a restart, nor leaks a claim.
"""
from oslo_log import log as logging

from nova_lite.compute.service import saves
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)


class ResizeRecovery(object):
    """A delete or a restart of this host in the middle of a move.
    host: this host's name; locks: its InstanceLocks; resize: its
    ResizeTasks."""

    def __init__(self, host, locks, resize):
        self.host = host
        self.locks = locks
        self.resize = resize

    def release_move(self, context, instance):
        """terminate_instance of a server with a move in progress: the
        guest set aside here and the migration's allocation go too, and
        the migration ends in error (unless it ended already)."""
        ctx = instance.migration_context
        if not ctx:
            return
        try:
            compute_inventory.placement_for(context).remove_allocations(
                context, ctx['migration_uuid'])
            migration = migration_obj.Migration.get_by_uuid(
                context, ctx['migration_uuid'])
            if migration.status in migration_obj.IN_PROGRESS:
                saves.save_migration(migration, migration_obj.ERROR,
                                     [migration.status])
        except Exception:
            LOG.exception('Could not release the move of %s',
                          instance.uuid)

    def recover_move(self, context, instance):
        """After a restart of this compute, an instance on this host in
        a move task state never stays so: a move not yet past the
        source's power-off (resize_prep, resize_migrating) goes back to
        the source, its guest running there again (as Nova's
        _init_instance reverts a crashed migration); one past it
        (resize_migrated, resize_finish, resize_reverting) is sent back
        to the source by the destination (the source allocation was
        held all along); a revert whose instance is already back on
        this source is finished here. A step whose cast is still queued
        finds the task state changed and gives up. Returns whether it
        acted."""
        ctx = instance.migration_context
        task = instance.task_state
        if not ctx or task not in instance_obj.RESIZE_TASK_STATES:
            return False
        LOG.warning('%s of %s was interrupted by a restart of %s',
                    task, instance.uuid, self.host)
        migration = migration_obj.Migration.get_by_uuid(
            context, ctx['migration_uuid'])
        exc = RuntimeError('The move was interrupted by a restart of the '
                           'compute service on %s.' % self.host)
        if (task == instance_obj.RESIZE_REVERTING
                and migration.source_compute == self.host
                and migration.dest_compute != self.host):
            # Back on this source: only the end of the revert is left.
            self._finish_revert_after_restart(context, instance, migration)
            return True
        with self.locks(instance.uuid):
            if task in (instance_obj.RESIZE_PREP,
                        instance_obj.RESIZE_MIGRATING):
                self.resize.restore_source_guest(instance)
                self.resize.roll_back_on_source(context, instance,
                                                migration, exc, [task])
                return True
            saves.record_fault(instance, exc, self.host)
            back = self.resize.send_back(
                context, instance, migration, [task],
                migration.status if task == instance_obj.RESIZE_REVERTING
                else migration_obj.ERROR)
        if back:
            self.resize.cast_finish_revert(context, instance, migration)
        return True

    def recover_host_moves(self, context):
        """After a restart: moves of this host whose instance lives on
        the other host -- a resize_prep this destination was preparing
        goes back (claims as before the move); a confirm this source
        was running runs again (each step is idempotent); a revert the
        destination handed to this source is finished
        (_recover_source_reverts)."""
        self._recover_source_reverts(context)
        migrations = migration_obj.MigrationList.get_by_host_and_status(
            context, self.host, [migration_obj.PRE_MIGRATING,
                                 migration_obj.CONFIRMING])
        if not migrations:
            return
        instances = {i.uuid: i for i in
                     instance_obj.InstanceList.get_by_filters(
                         context, {'uuid': [m.instance_uuid
                                            for m in migrations]})}
        for migration in migrations:
            instance = instances.get(migration.instance_uuid)
            if instance is None or instance.host == self.host:
                continue    # gone, or recover_move's
            try:
                if (migration.status == migration_obj.CONFIRMING
                        and migration.source_compute == self.host
                        and instance.vm_state == instance_obj.RESIZED):
                    self.resize.confirm_resize(context, instance, migration)
                elif (migration.status == migration_obj.PRE_MIGRATING
                      and migration.dest_compute == self.host
                      and instance.task_state == instance_obj.RESIZE_PREP):
                    LOG.warning('Preparing the move of %s was interrupted '
                                'by a restart of %s', instance.uuid,
                                self.host)
                    with self.locks(instance.uuid):
                        self.resize.roll_back_on_source(
                            context, instance, migration, RuntimeError(
                                'The move was interrupted by a restart '
                                'of the compute service on %s.'
                                % self.host), [instance_obj.RESIZE_PREP])
            except Exception:
                LOG.exception('Could not recover migration %s of %s',
                              migration.uuid, instance.uuid)

    def _recover_source_reverts(self, context):
        """After a restart of this source: reverts (resize_reverting,
        also a failed finish sent back) whose instance still names the
        destination as its host, and whose destination has done its
        part -- its guest and the instance's claim there dropped, so
        the instance no longer holds an allocation while the migration
        does (or the source's finish had already moved it back) -- are
        finished here: finish_revert_resize was cast to this source
        while it was down, or it died finishing. A revert whose
        destination has not done its part is left to the destination
        (its cast, or its own restart's recovery)."""
        reverting = instance_obj.InstanceList.get_by_filters(
            context, {'task_state': [instance_obj.RESIZE_REVERTING]})
        for instance in reverting:
            ctx = instance.migration_context or {}
            if (ctx.get('source_compute') != self.host
                    or ctx.get('dest_compute') == self.host
                    or instance.host == self.host):
                continue
            try:
                migration = migration_obj.Migration.get_by_uuid(
                    context, ctx['migration_uuid'])
                placement = compute_inventory.placement_for(context)
                held = [bool(placement.get_consumer(
                    context, consumer).get('allocations'))
                    for consumer in (instance.uuid, migration.uuid)]
                if all(held):
                    continue    # the destination still holds its claim
                self._finish_revert_after_restart(context, instance,
                                                  migration)
            except Exception:
                LOG.exception('Could not finish the revert of %s',
                              instance.uuid)

    def _finish_revert_after_restart(self, context, instance, migration):
        LOG.warning('The revert of %s was interrupted by a restart of %s; '
                    'finishing it', instance.uuid, self.host)
        with self.locks(instance.uuid):
            self.resize.finish_revert(context, instance, migration)
