"""The compute service's side of resize and cold migration (compute RPC
1.6).

The super conductor has created the migration (pre-migrating) and the
scheduler has claimed the destination for the instance while handing
the source allocation to the migration (consumer: migration.uuid). Then,
each step a cast, an event of the user's action, serialised per instance
on its host, every save a compare-and-swap on the state it expects:

  dest    prep_resize          resize_prep: old/new flavor and the
                               migration context recorded
  source  resize_instance      resize_migrating -> resize_migrated,
                               migration migrating -> post-migrating,
                               guest powered off and set aside, host=dest
  dest    finish_resize        resize_finish -> None, vm_state resized
                               (VERIFY_RESIZE), flavor = new, migration
                               finished
  source  confirm_resize       set-aside guest and the migration's
                               (source) allocation dropped, migration
                               confirmed, active (stopped if it was)
  dest    revert_resize        new guest and the instance's (dest)
                               allocation dropped, then
  source  finish_revert_resize the migration's allocation moved back to
                               the instance, old guest and flavor back,
                               migration reverted

The ports follow as Nova's port bindings do (Neutron's
/ports/{id}/bindings): prep_resize adds an INACTIVE binding of each port
on the destination beside the source's ACTIVE one; finish_resize
activates the destination's before the guest starts there (ports DOWN
until it reports them plugged, which sends network-vif-plugged; as
Nova's finish_migration nothing waits for it); confirm_resize deletes
the source's; finish_revert_resize activates the source's again and
deletes the destination's, and the source waits for the ports'
network-vif-plugged once the old guest runs again, as Nova's
finish_revert_resize does (vif_plugging: [DEFAULT]
vif_plugging_timeout; missing when vif_plugging_is_fatal, the revert
fails as a driver failure does: ERROR, fault, migration error); a
failure before the guest runs at the destination deletes the
destination's. A resize to the same host
leaves the one binding alone.

A driver failure in resize_instance or finish_resize rolls the move back
(allocations as before, server as before on the source, migration
error, a fault recorded); a delete that overtakes a step (its CAS fails)
leaves the step to clean up only what it made, and the allocations of
both consumers are removed, so nothing is left behind (a delete or a
restart mid-move: resize_recovery, which reuses the public steps of
ResizeTasks).
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import moves
from nova_lite.compute.service import saves
from nova_lite.compute.service import vif_plugging
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.notifications import instance as notify
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)


class ResizeTasks(object):
    """prep_resize ... finish_revert_resize of ComputeManager, and the
    steps the recovery of an interrupted move reuses. host: this host's
    name; driver: its virt driver; locks: its InstanceLocks;
    network_api: the network service's client; waits: its EventWaits
    (None: no wait for network-vif-plugged)."""

    def __init__(self, host, driver, locks, network=None, waits=None):
        self.host = host
        self.waits = waits
        self.driver = driver
        self.locks = locks
        self.network_api = network or network_api.API()

    # --- port bindings ---------------------------------------------------

    @staticmethod
    def _moves_host(migration):
        return migration.source_compute != migration.dest_compute

    def _bind_inactive_here(self, context, instance, migration):
        """Destination, prep: an INACTIVE binding of each port here. A
        failure only logs: the activation at the finish makes what is
        missing."""
        if not self._moves_host(migration):
            return
        try:
            self.network_api.create_instance_bindings(
                context, instance.uuid, self.host)
        except Exception:
            LOG.exception('Could not bind the ports of %s on %s',
                          instance.uuid, self.host)

    def _activate_here(self, context, instance, drop_host=None):
        """The ports ACTIVE on this host (DOWN until plugged, where plugs
        are announced); their bindings to drop_host deleted. Returns
        how many changed."""
        changed = self.network_api.activate_instance_bindings(
            context, instance.uuid, self.host)
        if drop_host and drop_host != self.host:
            self.network_api.delete_instance_bindings(
                context, instance.uuid, drop_host)
        return changed

    def _plugged_here(self, context, instance):
        """The guest runs here with its VIFs: the network service is
        told (network-vif-plugged is sent; nothing waits for it, as
        Nova's finish_migration), the info cache refreshed. Logged, not
        raised, on failure."""
        try:
            port_ids = [p['id'] for p in self.network_api.get_ports(
                context, device_id=instance.uuid)]
            if port_ids:
                self.network_api.ports_plugged(context, instance.uuid,
                                               port_ids, self.host)
            instance.network_info = self.network_api.get_instance_nw_info(
                context, instance.uuid)
        except Exception:
            LOG.exception('Could not report the ports of %s plugged on %s',
                          instance.uuid, self.host)

    def _announced_ports(self, context, instance):
        """The ids of the instance's ports whose plug here is announced
        (network-vif-plugged): [] with no EventWaits or where plugs are
        not announced."""
        if self.waits is None or not self.network_api.plugs_announced():
            return []
        return [p['id'] for p in self.network_api.get_ports(
            context, device_id=instance.uuid)]

    def _drop_bindings(self, context, instance, host):
        try:
            self.network_api.delete_instance_bindings(context,
                                                      instance.uuid, host)
        except Exception:
            LOG.exception('Could not delete the bindings of the ports of '
                          '%s to %s', instance.uuid, host)

    def _rpc(self):
        return compute_rpcapi.ComputeAPI()

    def _abandon(self, context, instance, migration, exc):
        """A step found the instance moved on (its CAS failed). Deleted:
        both consumers' allocations go (the delete's terminate may have
        run before the claims were all made). Otherwise (an
        administrator reset it): the claims are put back as before the
        move. The migration ends in error either way."""
        placement = compute_inventory.placement_for(context)
        LOG.info('Instance %s moved on during its %s: %s', instance.uuid,
                 migration.migration_type, exc)
        try:
            if saves.was_deleted(exc):
                placement.remove_allocations(context, migration.uuid)
                placement.remove_allocations(context, instance.uuid)
            else:
                placement.move_allocations(context, migration.uuid,
                                           instance.uuid)
        except Exception:
            LOG.exception('Could not release the claims of migration %s',
                          migration.uuid)
        saves.save_migration(migration, migration_obj.ERROR,
                             list(migration_obj.IN_PROGRESS))

    def roll_back_on_source(self, context, instance, migration, exc,
                            task_states):
        """The move failed before the guest runs at the destination
        (instance in one of task_states; the caller holds its lock):
        the source allocation goes back to the instance (replacing the
        destination claim), the guest runs (or not) on the source as
        before, the migration ends in error, exc is recorded as a
        fault, the task state is cleared."""
        try:
            compute_inventory.placement_for(context).move_allocations(
                context, migration.uuid, instance.uuid)
        except Exception:
            LOG.exception('Could not move the allocations of migration %s '
                          'back to %s', migration.uuid, instance.uuid)
        if self._moves_host(migration) and migration.dest_compute:
            # The destination's INACTIVE bindings (prep_resize's).
            self._drop_bindings(context, instance, migration.dest_compute)
        saves.save_migration(migration, migration_obj.ERROR)
        saves.record_fault(instance, exc, self.host)
        moves.as_before(instance, migration, instance.old_flavor)
        saves.save_quietly(instance, list(task_states), task_state=None)

    # --- destination: prep_resize ----------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def prep_resize(self, context, instance, migration, new_flavor,
                    request_spec=None):
        """On entry task_state resize_prep, migration pre-migrating, the
        destination claimed. On exit the instance carries old_flavor,
        new_flavor and its migration context; resize_instance is cast
        to the source."""
        with self.locks(instance.uuid):
            notify.notify_about_instance_exists(context, instance,
                                                self.host)
            notify.notify_about_resize_prep(context, instance, self.host,
                                            new_flavor, notify.START)
            # As Nova's resize claim: the destination's address.
            migration.dest_host = CONF.my_ip
            migration.status = migration_obj.PRE_MIGRATING
            try:
                migration.save(expected_status=[migration_obj.PRE_MIGRATING])
            except exception.MigrationStatusConflict as exc:
                # Settled meanwhile (e.g. rolled back by a restarted super
                # conductor): neither the server, which may be in a newer
                # move by now, nor any allocation is this call's.
                LOG.info('Migration %s moved on before its prep_resize: '
                         '%s', migration.uuid, exc)
                return
            except exception.MigrationNotFound as exc:
                LOG.info('Migration %s moved on meanwhile: %s',
                         migration.uuid, exc)
            if not self._group_allows(context, instance, migration,
                                      request_spec):
                return
            old_vm_state = instance.vm_state
            instance.old_flavor = instance.flavor
            instance.new_flavor = new_flavor
            instance.migration_context = moves.migration_context(migration,
                                                           old_vm_state)
            instance.progress = 0
            try:
                instance.save(expected_task_state=[
                    instance_obj.RESIZE_PREP])
            except saves.MOVED_ON as exc:
                self._abandon(context, instance, migration, exc)
                return
            self._bind_inactive_here(context, instance, migration)
            notify.notify_about_resize_prep(context, instance, self.host,
                                            new_flavor, notify.END)
        self._rpc().resize_instance(context, migration.source_compute,
                                    instance, migration)

    def _group_allows(self, context, instance, migration, request_spec):
        """The late check of the server group's policy (group_check).
        On a violation the move ends here: the migration in error (under
        the group's lock), the source allocation back with the instance
        (the destination claim dropped), the violation recorded as a
        fault, the task state cleared; False then."""
        try:
            group_check.check(
                context, self.host, self.locks, instance,
                group_check.group_of_spec(request_spec),
                lambda: saves.save_migration(migration, migration_obj.ERROR),
                migration.migration_type.capitalize())
        except exception.InstanceGroupPolicyViolated as exc:
            try:
                compute_inventory.placement_for(context).move_allocations(
                    context, migration.uuid, instance.uuid)
            except Exception:
                LOG.exception('Could not move the allocations of '
                              'migration %s back to %s', migration.uuid,
                              instance.uuid)
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, [instance_obj.RESIZE_PREP],
                               task_state=None)
            return False
        return True

    # --- source: resize_instance -----------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def resize_instance(self, context, instance, migration):
        """On entry resize_prep; resize_migrating while the guest is
        powered off and set aside; on exit resize_migrated, host = the
        destination, migration post-migrating; finish_resize is cast to
        the destination."""
        with self.locks(instance.uuid):
            if not self._resize_instance(context, instance, migration):
                return
        self._rpc().finish_resize(context, migration.dest_compute,
                                  instance, migration)

    def _resize_instance(self, context, instance, migration):
        try:
            saves.save_migration(migration, migration_obj.MIGRATING,
                                 [migration_obj.PRE_MIGRATING])
            instance.task_state = instance_obj.RESIZE_MIGRATING
            instance.save(expected_task_state=[instance_obj.RESIZE_PREP])
        except saves.MOVED_ON as exc:
            self._abandon(context, instance, migration, exc)
            return False
        with notify.action(context, instance, self.host, 'resize'):
            try:
                self.driver.migrate_disk_and_power_off(
                    instance.uuid, migration.dest_compute)
            except Exception as exc:
                LOG.warning('Resize of %s failed on its source %s: %s',
                            instance.uuid, self.host, exc)
                self.restore_source_guest(instance)
                self.roll_back_on_source(
                    context, instance, migration, exc,
                    [instance_obj.RESIZE_MIGRATING])
                raise
            saves.save_migration(migration, migration_obj.POST_MIGRATING,
                                 [migration_obj.MIGRATING])
            instance.host = migration.dest_compute
            instance.node = migration.dest_node
            instance.power_state = instance_obj.SHUTDOWN
            instance.task_state = instance_obj.RESIZE_MIGRATED
            try:
                instance.save(expected_task_state=[
                    instance_obj.RESIZE_MIGRATING])
            except saves.MOVED_ON as exc:
                # The delete's terminate (sent here) destroys the guest.
                self._abandon(context, instance, migration, exc)
                return False
        return True

    def restore_source_guest(self, instance):
        """The guest set aside on this source (if any) runs again (shut
        off if it was stopped) with its old flavor; a failure is
        logged, never raised."""
        if not self.driver.has_resize_copy(instance.uuid):
            return
        flavor = instance.old_flavor or instance.flavor
        try:
            self.driver.finish_revert_migration(
                instance.uuid, flavor.vcpus, flavor.memory_mb,
                moves.disk_gb(flavor), power_on=moves.powers_on(instance))
        except Exception:
            LOG.exception('Could not restart %s on %s', instance.uuid,
                          self.host)

    # --- destination: finish_resize --------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def finish_resize(self, context, instance, migration):
        """On entry resize_migrated; resize_finish while the guest
        starts here with the new flavor; on exit vm_state resized,
        task None (VERIFY_RESIZE), migration finished. A driver failure
        sends the server back to its source (as a revert does)."""
        with self.locks(instance.uuid):
            failed = self._finish_resize(context, instance, migration)
        if failed:
            self.cast_finish_revert(context, instance, migration)

    def _finish_resize(self, context, instance, migration):
        """True when the move failed and must go back to the source."""
        new = instance.new_flavor
        try:
            # The server shows its new flavor from here on, as in Nova (a
            # failure sends it back, where the old flavor is restored).
            moves.set_flavor(instance, new)
            instance.task_state = instance_obj.RESIZE_FINISH
            instance.save(expected_task_state=[
                instance_obj.RESIZE_MIGRATED])
        except saves.MOVED_ON as exc:
            self._abandon(context, instance, migration, exc)
            return False
        power_on = moves.powers_on(instance)
        with notify.action(context, instance, self.host, 'resize_finish'):
            try:
                if self._moves_host(migration):
                    self._activate_here(context, instance)
                self.driver.finish_migration(
                    instance.uuid, new.vcpus, new.memory_mb,
                    moves.disk_gb(new), image_ref=instance.image_ref,
                    power_on=power_on, guest=guest_info.describe(instance))
            except Exception as exc:
                LOG.warning('Finishing the resize of %s failed on %s: %s; '
                            'it goes back to %s', instance.uuid, self.host,
                            exc, migration.source_compute)
                saves.record_fault(instance, exc, self.host)
                return self.send_back(context, instance, migration,
                                      [instance_obj.RESIZE_FINISH],
                                      migration_obj.ERROR)
            if self._moves_host(migration):
                self._plugged_here(context, instance)
            saves.save_migration(migration, migration_obj.FINISHED,
                                 [migration_obj.POST_MIGRATING])
            instance.vm_state = instance_obj.RESIZED
            instance.power_state = (instance_obj.RUNNING if power_on
                                    else instance_obj.SHUTDOWN)
            instance.task_state = None
            instance.launched_at = timeutils.utcnow()
            try:
                instance.save(expected_task_state=[
                    instance_obj.RESIZE_FINISH])
            except saves.MOVED_ON as exc:
                if saves.was_deleted(exc):
                    self.driver.destroy(instance.uuid)
                self._abandon(context, instance, migration, exc)
        return False

    def send_back(self, context, instance, migration, task_states,
                  status):
        """At the destination, the instance in one of task_states (the
        caller holds its lock): drop what the move made here (guest,
        the instance's claim here), mark the server resize_reverting
        and the migration status. True when the source must now finish
        the revert (cast_finish_revert); False when the instance moved
        on meanwhile (the move abandoned)."""
        try:
            self.driver.destroy(instance.uuid)
        except Exception:
            LOG.exception('Could not destroy %s on %s', instance.uuid,
                          self.host)
        instance.task_state = instance_obj.RESIZE_REVERTING
        try:
            instance.save(expected_task_state=list(task_states))
        except saves.MOVED_ON as exc:
            self._abandon(context, instance, migration, exc)
            return False
        compute_inventory.placement_for(context).remove_allocations(
            context, instance.uuid)
        saves.save_migration(migration, status)
        return True

    # --- source: confirm_resize ------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def confirm_resize(self, context, instance, migration):
        """On entry vm_state resized, migration confirming. On exit the
        set-aside guest and the migration's (source) allocation are
        gone, migration confirmed, the server active (stopped if it
        was) with the new flavor only. A driver failure leaves it in
        VERIFY_RESIZE (migration finished again) to be retried."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'resize_confirm'):
            try:
                self.driver.confirm_migration(instance.uuid)
            except Exception as exc:
                saves.record_fault(instance, exc, self.host)
                saves.save_migration(migration, migration_obj.FINISHED,
                                     [migration_obj.CONFIRMING])
                raise
            compute_inventory.placement_for(context).remove_allocations(
                context, migration.uuid)
            if self._moves_host(migration):
                # The source's (INACTIVE since the finish).
                self._drop_bindings(context, instance, self.host)
            saves.save_migration(migration, migration_obj.CONFIRMED,
                                 [migration_obj.CONFIRMING])
            instance.old_flavor = instance.new_flavor = None
            instance.migration_context = None
            instance.vm_state = (
                instance_obj.STOPPED
                if instance.power_state == instance_obj.SHUTDOWN
                else instance_obj.ACTIVE)
            try:
                instance.save(expected_task_state=[None],
                              expected_vm_state=[instance_obj.RESIZED])
            except saves.MOVED_ON as exc:
                LOG.info('Instance %s moved on while its resize was '
                         'confirmed: %s', instance.uuid, exc)

    # --- destination, then source: revert --------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def revert_resize(self, context, instance, migration):
        """On entry resize_reverting, migration reverting. The guest here
        and the instance's allocation here are dropped, then
        finish_revert_resize is cast to the source. A driver failure
        leaves it in VERIFY_RESIZE (migration finished again)."""
        with self.locks(instance.uuid):
            notify.notify_about_instance_action(
                context, instance, self.host, 'resize_revert', notify.START)
            try:
                self.driver.destroy(instance.uuid)
            except Exception as exc:
                saves.record_fault(instance, exc, self.host)
                saves.save_migration(migration, migration_obj.FINISHED,
                                     [migration_obj.REVERTING])
                saves.save_quietly(instance,
                                   [instance_obj.RESIZE_REVERTING],
                                   task_state=None)
                raise
            compute_inventory.placement_for(context).remove_allocations(
                context, instance.uuid)
        self.cast_finish_revert(context, instance, migration)

    @instance_events.wrap_instance_event(prefix='compute')
    def finish_revert_resize(self, context, instance, migration):
        """On entry resize_reverting. The migration's allocation becomes
        the instance's again (so a revert succeeds on a source that is
        now full: it was held all along), the set-aside guest runs again
        with the old flavor, migration reverted (error when the revert
        undoes a failed move), the server active (stopped if it was)."""
        with self.locks(instance.uuid):
            self.finish_revert(context, instance, migration)

    def cast_finish_revert(self, context, instance, migration):
        """Hand the revert to the source (finish_revert_resize, a
        cast)."""
        self._rpc().finish_revert_resize(
            context, migration.source_compute, instance, migration)

    def finish_revert(self, context, instance, migration):
        """finish_revert_resize's work on this source, the caller
        holding the instance's lock (see finish_revert_resize)."""
        placement = compute_inventory.placement_for(context)
        placement.move_allocations(context, migration.uuid, instance.uuid)
        old = instance.old_flavor or instance.flavor
        instance.host = migration.source_compute
        instance.node = migration.source_node
        try:
            awaited = []
            if self._moves_host(migration) and self._activate_here(
                    context, instance, drop_host=migration.dest_compute):
                awaited = self._announced_ports(context, instance)
            with vif_plugging.waiting_for(self.waits, instance, awaited):
                self.driver.finish_revert_migration(
                    instance.uuid, old.vcpus, old.memory_mb,
                    moves.disk_gb(old), power_on=moves.powers_on(instance))
                if self._moves_host(migration):
                    self._plugged_here(context, instance)
        except Exception as exc:
            saves.record_fault(instance, exc, self.host)
            saves.save_migration(migration, migration_obj.ERROR)
            saves.save_quietly(instance, [instance_obj.RESIZE_REVERTING],
                               vm_state=instance_obj.ERROR, task_state=None)
            raise
        moves.as_before(instance, migration, old)
        instance.task_state = None
        try:
            instance.save(expected_task_state=[
                instance_obj.RESIZE_REVERTING])
        except saves.MOVED_ON as exc:
            if saves.was_deleted(exc):
                self.driver.destroy(instance.uuid, with_resize_copy=True)
            self._abandon(context, instance, migration, exc)
            return
        if migration.status == migration_obj.REVERTING:
            saves.save_migration(migration, migration_obj.REVERTED,
                                 [migration_obj.REVERTING])
        notify.notify_about_instance_action(context, instance, self.host,
                                            'resize_revert', notify.END)
