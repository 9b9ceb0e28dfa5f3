"""The compute service's side of a cross-cell resize (compute RPC 1.8).

The super conductor orchestrates (nova_lite.conductor.tasks.
cross_cell_migrate): each method here is one synchronous call of it,
serialised per instance on this host, recorded as an event of the
user's action in this host's cell, and emitting the notifications a
same-cell resize emits from the same step. The instance passed is the
copy in this host's cell (the target cell's hidden copy at the
destination, the source copy at the source).

  dest    prep_snapshot_based_resize_at_dest     resize_prep: claim
          checked, old/new flavor and migration context recorded, new
          (reserved) volume attachments in the target copy's mappings
          (the conductor made the ports' INACTIVE bindings to this host
          before the call)
  source  prep_snapshot_based_resize_at_source   resize_migrating ->
          resize_migrated: guest powered off, root disk snapshot
          uploaded (image-backed), guest destroyed with its disks kept,
          placeholder volume attachments
  dest    finish_snapshot_based_resize_at_dest   resize_finish -> None,
          VERIFY_RESIZE: the ports' bindings here ACTIVE (the source's
          INACTIVE), volumes connected, guest spawned from the snapshot
          (or its volumes), snapshot deleted
  source  confirm_snapshot_based_resize_at_source  the kept guest, its
          placeholder attachments and the migration's allocation gone
  dest    revert_snapshot_based_resize_at_dest   the new guest and its
          attachments gone, the ports' bindings to the source ACTIVE
          and those to this host deleted
  source  finish_revert_snapshot_based_resize_at_source  the ports'
          bindings here ACTIVE and the destination's deleted, volumes
          connected, the kept guest running again with the old flavor,
          the server as before the move

The source's (INACTIVE) port bindings are deleted by the conductor's
confirm. Every binding change is idempotent (a rerun finds it done).

A failure inside a step undoes that step here and raises (the conductor
rolls back the steps done before).
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import block_devices
from nova_lite.compute import instance_events
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import moves
from nova_lite.compute.service import saves
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.notifications import instance as notify
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)


class CrossCellTasks(object):
    """The 1.8 methods of ComputeManager. host: this host's name;
    driver: its virt driver; locks: its InstanceLocks; network_api: the
    network service's client; volumes: the VolumeTasks of this host
    (mappings, attachments, connections)."""

    def __init__(self, host, driver, locks, network_api, volumes):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.volumes = volumes

    def _volume_backed(self, bdms):
        root = bdms.root_bdm()
        return bool(root is not None and root.is_volume)

    def _bind_ports(self, context, instance, host, drop_host=None):
        """The instance's ports ACTIVE on host (their bindings to
        drop_host, if given, deleted); its network info refreshed."""
        self.network_api.activate_instance_bindings(context, instance.uuid,
                                                    host)
        if drop_host and drop_host != host:
            self.network_api.delete_instance_bindings(
                context, instance.uuid, drop_host)
        instance.network_info = self.network_api.get_instance_nw_info(
            context, instance.uuid)

    # --- destination: prep ---------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def prep_snapshot_based_resize_at_dest(self, context, instance,
                                           migration, new_flavor,
                                           request_spec=None):
        """On entry the target cell's hidden copy in resize_prep. On
        exit it carries old/new flavor and the migration context (also
        returned), its volume mappings hold new reserved attachments.
        The server group's policy is checked here first (group_check):
        InstanceGroupPolicyViolated, nothing done, and the super
        conductor tries the next alternate."""
        with self.locks(instance.uuid):
            group_check.check(context, self.host, self.locks, instance,
                              group_check.group_of_spec(request_spec),
                              lambda: None, 'Cross-cell resize')
            notify.notify_about_instance_exists(context, instance,
                                                self.host)
            notify.notify_about_resize_prep(context, instance, self.host,
                                            new_flavor, notify.START)
            bdms = self.volumes.bdms(context, instance)
            self.driver.check_resize_claim(
                instance.uuid, new_flavor.vcpus, new_flavor.memory_mb,
                moves.disk_gb(new_flavor, self._volume_backed(bdms)))
            made = []
            try:
                for bdm in bdms.volumes():
                    self.volumes.reserve_attachment(context, instance, bdm)
                    made.append(bdm)
                migration.dest_host = CONF.my_ip
                migration.save()
                instance.old_flavor = instance.flavor
                instance.new_flavor = new_flavor
                instance.migration_context = moves.migration_context(
                    migration, instance.vm_state)
                instance.progress = 0
                instance.save(expected_task_state=[instance_obj.RESIZE_PREP])
            except Exception:
                block_devices.release(context, made)
                raise
            notify.notify_about_resize_prep(context, instance, self.host,
                                            new_flavor, notify.END)
            return instance.migration_context

    # --- source: prep ----------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def prep_snapshot_based_resize_at_source(self, context, instance,
                                             migration, snapshot_id=None):
        """On entry resize_prep, migration pre-migrating. On exit
        resize_migrated, migration post-migrating, the guest destroyed
        here with its disks kept (and a snapshot of an image-backed
        root disk uploaded into snapshot_id), the volume mappings
        holding placeholder (reserved) attachments. Returns whether a
        snapshot was uploaded. A failure restores the guest and its
        volumes here (task state left to the conductor)."""
        with self.locks(instance.uuid):
            saves.save_migration(migration, migration_obj.MIGRATING,
                                 [migration_obj.PRE_MIGRATING])
            instance.task_state = instance_obj.RESIZE_MIGRATING
            instance.save(expected_task_state=[instance_obj.RESIZE_PREP])
            with notify.action(context, instance, self.host, 'resize'):
                bdms = self.volumes.bdms(context, instance)
                uploaded = False
                try:
                    if self.driver.get_power_state(instance.uuid) not in (
                            None, 'shutdown'):
                        self.driver.power_off(instance.uuid)
                    if snapshot_id and not self._volume_backed(bdms):
                        disk = self.driver.snapshot(instance.uuid)
                        image_api.API().update(
                            context, snapshot_id, status='active',
                            size=disk['size'], checksum=disk['checksum'])
                        uploaded = True
                    self.driver.migrate_disk_and_power_off(
                        instance.uuid, migration.dest_compute)
                    for bdm in bdms.volumes():
                        self.driver.detach_volume(instance.uuid,
                                                  bdm.device_name)
                        old = bdm.attachment_id
                        self.volumes.reserve_attachment(context, instance,
                                                        bdm)
                        if old:
                            block_devices.release(
                                context, [{'attachment_id': old}])
                except Exception as exc:
                    LOG.warning('Cross-cell resize of %s failed on its '
                                'source %s: %s', instance.uuid, self.host,
                                exc)
                    self._restore_here(context, instance, bdms)
                    raise
            saves.save_migration(migration, migration_obj.POST_MIGRATING,
                                 [migration_obj.MIGRATING])
            instance.power_state = instance_obj.SHUTDOWN
            instance.task_state = instance_obj.RESIZE_MIGRATED
            instance.save(expected_task_state=[
                instance_obj.RESIZE_MIGRATING])
            return uploaded

    def _restore_here(self, context, instance, bdms):
        """Undo a failed prep at the source: the guest back as it was,
        its volumes connected again."""
        power_on = moves.powers_on(instance)
        flavor = instance.old_flavor or instance.flavor
        try:
            if self.driver.has_resize_copy(instance.uuid):
                self.driver.finish_revert_migration(
                    instance.uuid, flavor.vcpus, flavor.memory_mb,
                    moves.disk_gb(flavor, self._volume_backed(bdms)),
                    power_on=power_on)
            elif power_on and self.driver.get_power_state(
                    instance.uuid) == 'shutdown':
                self.driver.power_on(instance.uuid)
            for bdm in bdms.volumes():
                self.volumes.reconnect(context, instance, bdm)
        except Exception:
            LOG.exception('Could not restore %s on %s', instance.uuid,
                          self.host)

    # --- destination: finish -------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def finish_snapshot_based_resize_at_dest(self, context, instance,
                                             migration, snapshot_id=None):
        """On entry resize_migrated (the hidden target copy). On exit
        the guest runs here (shut off if it was stopped) with the new
        flavor, task None, vm_state resized, migration finished, the
        snapshot deleted. A failure drops what it made here and
        raises."""
        with self.locks(instance.uuid):
            new = instance.new_flavor
            # The new flavor from here on, as a same-cell resize (a
            # failure rolls the hidden copy back).
            moves.set_flavor(instance, new)
            instance.task_state = instance_obj.RESIZE_FINISH
            instance.save(expected_task_state=[
                instance_obj.RESIZE_MIGRATED])
            power_on = moves.powers_on(instance)
            with notify.action(context, instance, self.host,
                               'resize_finish'):
                bdms = self.volumes.bdms(context, instance)
                volume_backed = self._volume_backed(bdms)
                try:
                    self._bind_ports(context, instance, self.host)
                    for bdm in bdms.volumes():
                        self.volumes.connect(context, instance, bdm)
                    self.driver.finish_migration(
                        instance.uuid, new.vcpus, new.memory_mb,
                        moves.disk_gb(new, volume_backed),
                        image_ref=(None if volume_backed
                                   else snapshot_id or instance.image_ref),
                        power_on=power_on, guest=guest_info.describe(
                            instance, volume_backed=volume_backed))
                    # As Nova's finish_migration: the VIFs plugged, no
                    # network-vif-plugged awaited (the mapping still
                    # names the source's cell, where it would go).
                    self._plugged(context, instance, self.host)
                    self.volumes.plug_block_devices(context, instance, bdms)
                except Exception:
                    self._drop_guest_here(context, instance, bdms)
                    # The source's bindings ACTIVE again (its guest
                    # still plugged); this host's (INACTIVE) go with the
                    # prep's rollback.
                    self.network_api.activate_instance_bindings(
                        context, instance.uuid, migration.source_compute)
                    self._plugged(context, instance,
                                  migration.source_compute)
                    raise
                if snapshot_id:
                    _delete_image(context, snapshot_id)
                saves.save_migration(migration, migration_obj.FINISHED,
                                     [migration_obj.POST_MIGRATING])
                instance.host = self.host
                instance.node = migration.dest_node
                instance.vm_state = instance_obj.RESIZED
                instance.power_state = (instance_obj.RUNNING if power_on
                                        else instance_obj.SHUTDOWN)
                instance.task_state = None
                instance.launched_at = timeutils.utcnow()
                instance.save(expected_task_state=[
                    instance_obj.RESIZE_FINISH])

    def _port_ids(self, instance):
        return [v['id'] for v in instance.network_info or ()]

    def _plugged(self, context, instance, host):
        """The guest on host has its VIFs plugged: ports DOWN there
        become ACTIVE (no wait)."""
        try:
            self.network_api.ports_plugged(context, instance.uuid,
                                           self._port_ids(instance), host)
        except Exception:
            LOG.exception('Could not report the ports of %s plugged on %s',
                          instance.uuid, host)

    def _drop_guest_here(self, context, instance, bdms):
        try:
            self.driver.destroy(instance.uuid)
        except Exception:
            LOG.exception('Could not destroy %s on %s', instance.uuid,
                          self.host)
        for bdm in bdms.volumes():
            self.driver.detach_volume(instance.uuid, bdm.device_name)

    # --- confirm and revert --------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def confirm_snapshot_based_resize_at_source(self, context, instance,
                                                migration):
        """The source copy: the kept guest and the placeholder
        attachments go, and the migration's (source) allocation."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'resize_confirm'):
            self.driver.confirm_migration(instance.uuid)
            self.driver.destroy(instance.uuid, with_resize_copy=True)
            bdms = self.volumes.bdms(context, instance)
            for bdm in bdms.volumes():
                block_devices.release(context, [bdm])
            compute_inventory.placement_for(context).remove_allocations(
                context, migration.uuid)

    @instance_events.wrap_instance_event(prefix='compute')
    def revert_snapshot_based_resize_at_dest(self, context, instance,
                                             migration):
        """The target copy: the guest here and its volume attachments
        go (the source's placeholders keep the volumes reserved); the
        ports' bindings to the source ACTIVE (again), those to this
        host deleted."""
        with self.locks(instance.uuid):
            notify.notify_about_instance_action(
                context, instance, self.host, 'resize_revert', notify.START)
            bdms = self.volumes.bdms(context, instance)
            self._drop_guest_here(context, instance, bdms)
            for bdm in bdms.volumes():
                block_devices.release(context, [bdm])
            if migration.source_compute:
                self.network_api.activate_instance_bindings(
                    context, instance.uuid, migration.source_compute)
            self.network_api.delete_instance_bindings(
                context, instance.uuid, self.host)

    @instance_events.wrap_instance_event(prefix='compute')
    def finish_revert_snapshot_based_resize_at_source(self, context,
                                                      instance, migration):
        """The source copy (visible again, resize_reverting, or any step
        of a failed move): the ports' bindings here ACTIVE and those to
        the destination deleted, volumes connected, the kept guest
        running again (shut off if it was stopped) with the old flavor,
        the server as before the move (task None)."""
        with self.locks(instance.uuid):
            old = instance.old_flavor or instance.flavor
            bdms = self.volumes.bdms(context, instance)
            power_on = moves.powers_on(instance)
            self._bind_ports(context, instance, self.host,
                             drop_host=migration.dest_compute)
            if self.driver.has_resize_copy(instance.uuid):
                self.driver.finish_revert_migration(
                    instance.uuid, old.vcpus, old.memory_mb,
                    moves.disk_gb(old, self._volume_backed(bdms)),
                    power_on=power_on)
            self._plugged(context, instance, self.host)
            for bdm in bdms.volumes():
                self.volumes.reconnect(context, instance, bdm)
            moves.as_before(instance, migration, old)
            instance.task_state = None
            try:
                instance.save(expected_task_state=list(
                    instance_obj.RESIZE_TASK_STATES))
            except saves.MOVED_ON as exc:
                LOG.info('Instance %s moved on during its revert: %s',
                         instance.uuid, exc)
            notify.notify_about_instance_action(
                context, instance, self.host, 'resize_revert', notify.END)


def _delete_image(context, image_id):
    try:
        image_api.API().delete(context.elevated(), image_id)
    except exception.ImageNotFound:
        pass
