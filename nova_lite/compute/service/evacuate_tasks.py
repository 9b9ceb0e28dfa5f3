"""Evacuate on this host (compute RPC 1.14): the destination rebuilds a
server whose compute is down; the source, when it comes back, destroys
its stale guests (as Nova's evacuated-instance clean-up).

Destination (evacuate_instance, cast by the super conductor once it
claimed this host, the migration in status pre-migrating): the
migration goes to migrating (compare-and-swap: a conductor's recovery
that rolled it back meanwhile wins, and nothing is done here), the
instance comes here (host, node, a migration context naming both ends,
task rebuild_block_device_mapping, a compare-and-swap on rebuilding),
its ports are bound here (DOWN until plugged, where plugs are
announced), its volumes' attachments move here, the guest is spawned
from the server's image (or its volumes) and its VIFs reported plugged,
waiting for their network-vif-plugged as a build does
(vif_plugging.spawn_and_wait: [DEFAULT] vif_plugging_timeout,
vif_plugging_is_fatal; a fatal miss is a failure, below), and the
server ends ACTIVE -- SHUTOFF when it was stopped or the API asked for
it (2.95) -- with the migration done. The migration keeps holding the
source host's allocation, the instance holds this host's.

A failure (or a restart of this compute in the middle: recover_host)
undoes it here: guest destroyed, volumes disconnected, ports bound to
the source again, this host's claim freed (the migration's source
allocation goes back to the instance), the server in ERROR with a
fault on its source host, the migration in error. An administrator may
evacuate it again.

Source (recover_host at start-up): for each evacuation of a server off
this host, its guest here is destroyed; once the evacuation is done,
the migration's allocation of this host is freed and the migration
completed.

steps.step_boundary (conductor.tasks.base: its observers, none in
production) runs before each step: 'evacuate_take' (destination, the
migration migrating), 'evacuate_spawn' (destination, ports and volumes
here, before the guest is spawned), 'evacuate_done' (destination, the
server rebuilt, before the migration is done) and
'evacuate_clean_source' (the source back, before it destroys its stale
guest).

Notifications: instance.evacuate, then instance.rebuild.start and .end
(or .error), from this host, as Nova's compute sends them.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import moves
from nova_lite.compute.service import saves
from nova_lite.compute.service import vif_plugging
from nova_lite.conductor.tasks import base as steps
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# The task states of an evacuation running on its destination.
_RUNNING = [instance_obj.REBUILD_BLOCK_DEVICE_MAPPING,
            instance_obj.REBUILD_SPAWNING]
# Evacuations whose server may still have a guest on its old source.
_SOURCE_STATUSES = (migration_obj.ACCEPTED, migration_obj.PRE_MIGRATING,
                    migration_obj.MIGRATING, migration_obj.DONE)


def is_evacuation(instance):
    """Whether instance is being evacuated (its migration context is an
    evacuation's)."""
    ctx = instance.migration_context or {}
    return ctx.get('migration_type') == migration_obj.EVACUATION


class EvacuateTasks(object):
    """evacuate_instance of ComputeManager and its start-up recovery.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; network_api, volumes: the network service's client
    and this host's VolumeTasks; waits: its EventWaits (None: no
    network-vif-plugged awaited).
    """

    def __init__(self, host, driver, locks, network_api, volumes,
                 waits=None):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.volumes = volumes
        self.waits = waits

    # --- destination ----------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def evacuate_instance(self, context, instance, migration,
                          admin_password=None, stopped=False,
                          request_spec=None):
        """Rebuild instance here (see the module doc) with
        admin_password (None: the image's) set in the guest. stopped:
        end SHUTOFF whatever it was (2.95). request_spec (compute RPC
        1.17): its server group's policy is checked here first
        (group_check); a violation ends the evacuation as a failed
        rebuild does: the server in ERROR on its source with the
        violation as its fault, the claim here freed, the migration in
        error."""
        with self.locks(instance.uuid):
            if not saves.save_migration(migration, migration_obj.MIGRATING,
                                        [migration_obj.PRE_MIGRATING]):
                return
            if not self._group_allows(context, instance, migration,
                                      request_spec):
                return
            was = instance.vm_state
            steps.step_boundary('evacuate_take')
            if not self._take(context, instance, migration):
                return
            notify.notify_about_instance_action(context, instance,
                                                self.host, 'evacuate')
            with notify.action(context, instance, self.host, 'rebuild',
                               error_phase=True):
                try:
                    self._rebuild(context, instance,
                                  stopped or was == instance_obj.STOPPED,
                                  admin_password)
                except Exception as exc:
                    LOG.warning('Evacuation of %s to %s failed: %s',
                                instance.uuid, self.host, exc)
                    saves.record_fault(instance, exc, self.host)
                    self._undo(context, instance, migration, _RUNNING)
                    raise
            steps.step_boundary('evacuate_done')
            saves.save_migration(migration, migration_obj.DONE,
                                 [migration_obj.MIGRATING])
            LOG.info('Instance %s evacuated from %s to %s', instance.uuid,
                     migration.source_compute, self.host)

    def _group_allows(self, context, instance, migration, request_spec):
        try:
            group_check.check(
                context, self.host, self.locks, instance,
                group_check.group_of_spec(request_spec),
                lambda: saves.save_migration(migration, migration_obj.ERROR,
                                             [migration_obj.MIGRATING]),
                'Evacuation')
        except exception.InstanceGroupPolicyViolated as exc:
            try:
                compute_inventory.placement_for(context).move_allocations(
                    context, migration.uuid, instance.uuid)
            except Exception:
                LOG.exception('Could not free the claim of %s on %s',
                              instance.uuid, self.host)
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, [instance_obj.REBUILDING],
                               vm_state=instance_obj.ERROR, task_state=None)
            return False
        return True

    def _take(self, context, instance, migration):
        """The instance comes here (compare-and-swap on rebuilding);
        False when it moved on (deleted, reset): then its claims and the
        migration end too."""
        if saves.save_quietly(
                instance, [instance_obj.REBUILDING], host=self.host,
                node=migration.dest_node,
                migration_context=moves.migration_context(
                    migration, instance.vm_state),
                task_state=instance_obj.REBUILD_BLOCK_DEVICE_MAPPING):
            return True
        placement = compute_inventory.placement_for(context)
        try:
            objects.Instance.get_by_uuid(context, instance.uuid)
        except exception.InstanceNotFound:
            # Deleted meanwhile: nothing of it is held any more.
            placement.remove_allocations(context, migration.uuid)
            placement.remove_allocations(context, instance.uuid)
        else:
            placement.move_allocations(context, migration.uuid,
                                       instance.uuid)
        saves.save_migration(migration, migration_obj.ERROR,
                             [migration_obj.MIGRATING])
        return False

    def _rebuild(self, context, instance, stopped, admin_password):
        if instance.image_ref:
            image_api.API().get(context.elevated(), instance.image_ref)
        down = self.network_api.bind_ports_to_host(context, instance.uuid,
                                                   self.host) or []
        self.volumes.disconnect_block_devices(context, instance)
        bdms, volume_backed = self.volumes.prep_block_devices(context,
                                                              instance)
        if not saves.save_quietly(
                instance, [instance_obj.REBUILD_BLOCK_DEVICE_MAPPING],
                task_state=instance_obj.REBUILD_SPAWNING):
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        flavor = instance.flavor
        steps.step_boundary('evacuate_spawn')

        def spawn():
            self.driver.spawn(instance.uuid, flavor.vcpus, flavor.memory_mb,
                              moves.disk_gb(flavor, volume_backed),
                              name=instance.display_name,
                              guest=guest_info.describe(
                                  instance, admin_password=admin_password,
                                  volume_backed=volume_backed))
        port_ids = [p['id'] for p in self.network_api.get_ports(
            context, device_id=instance.uuid)]
        if self.waits is None:
            spawn()
            if port_ids:
                self.network_api.ports_plugged(context, instance.uuid,
                                               port_ids, self.host)
        else:
            vif_plugging.spawn_and_wait(self.waits, self.network_api,
                                        context, instance, self.host,
                                        port_ids, down, spawn)
        instance.network_info = self.network_api.get_instance_nw_info(
            context, instance.uuid)
        self.volumes.plug_block_devices(context, instance, bdms)
        if admin_password:
            # Injected as the guest boots (a stopped one boots first).
            self.driver.set_admin_password(instance.uuid, admin_password)
        if stopped:
            self.driver.power_off(instance.uuid)
        if not saves.save_quietly(
                instance, [instance_obj.REBUILD_SPAWNING],
                vm_state=(instance_obj.STOPPED if stopped
                          else instance_obj.ACTIVE),
                power_state=(instance_obj.SHUTDOWN if stopped
                             else instance_obj.RUNNING),
                task_state=None, migration_context=None,
                launched_at=timeutils.utcnow()):
            raise exception.InstanceNotFound(instance_id=instance.uuid)

    def _undo(self, context, instance, migration, expected):
        """The evacuation did not finish here: what it did here undone,
        the server in ERROR on its source (if it is still in expected),
        the migration in error."""
        self.driver.destroy(instance.uuid)
        self.volumes.disconnect_block_devices(context, instance)
        try:
            self.network_api.bind_ports_to_host(
                context, instance.uuid, migration.source_compute)
        except Exception:
            LOG.exception('Could not bind the ports of %s back to %s',
                          instance.uuid, migration.source_compute)
        try:
            compute_inventory.placement_for(context).move_allocations(
                context, migration.uuid, instance.uuid)
        except Exception:
            LOG.exception('Could not free the claim of %s on %s',
                          instance.uuid, self.host)
        saves.save_quietly(instance, expected, vm_state=instance_obj.ERROR,
                           task_state=None, migration_context=None,
                           host=migration.source_compute,
                           node=migration.source_node)
        saves.save_migration(migration, migration_obj.ERROR,
                             [migration_obj.MIGRATING])

    # --- start-up -------------------------------------------------------

    def recover_host(self, context):
        """At start-up: evacuations this host was running as their
        destination are undone (the server in ERROR on its source, see
        the module doc); the stale guests of servers evacuated off this
        host are destroyed, and each evacuation that is done has its
        source allocation freed and is completed. Never raises
        (logged)."""
        try:
            migrations = migration_obj.MigrationList.get_by_host_and_status(
                context, self.host, list(_SOURCE_STATUSES))
        except Exception:
            LOG.exception('Could not list the evacuations of %s', self.host)
            return
        for migration in migrations:
            if migration.migration_type != migration_obj.EVACUATION:
                continue
            try:
                with self.locks(migration.instance_uuid):
                    if (migration.dest_compute == self.host
                            and migration.status == migration_obj.MIGRATING):
                        self._recover_destination(context, migration)
                    elif migration.source_compute == self.host:
                        self._clean_source(context, migration)
            except Exception:
                LOG.exception('Could not recover evacuation %s of %s',
                              migration.uuid, migration.instance_uuid)

    def _recover_destination(self, context, migration):
        try:
            instance = objects.Instance.get_by_uuid(context,
                                                    migration.instance_uuid)
        except exception.InstanceNotFound:
            instance = None
        LOG.warning('Evacuation of %s to %s was interrupted by a restart',
                    migration.instance_uuid, self.host)
        if instance is None:
            self.driver.destroy(migration.instance_uuid)
            saves.save_migration(migration, migration_obj.ERROR,
                                 [migration_obj.MIGRATING])
            return
        if (instance.host == self.host and instance.task_state is None
                and instance.vm_state != instance_obj.ERROR
                and migration.instance_uuid in self.driver.list_guests()):
            # Rebuilt here before the restart, only the migration's
            # status was not saved: the evacuation is done.
            saves.save_migration(migration, migration_obj.DONE,
                                 [migration_obj.MIGRATING])
            return
        saves.record_fault(instance, RuntimeError(
            'The evacuation was interrupted by a restart of the compute '
            'service on %s.' % self.host), self.host)
        self._undo(context, instance, migration,
                   [instance_obj.REBUILDING] + _RUNNING)

    def _clean_source(self, context, migration):
        uuid = migration.instance_uuid
        steps.step_boundary('evacuate_clean_source')
        if uuid in self.driver.list_guests():
            LOG.warning('Destroying the guest of %s on %s: the server '
                        'was evacuated to %s', uuid, self.host,
                        migration.dest_compute)
            self.driver.destroy(uuid, with_resize_copy=True)
        if migration.status != migration_obj.DONE:
            return
        compute_inventory.placement_for(context).remove_allocations(
            context, migration.uuid)
        saves.save_migration(migration, migration_obj.COMPLETED,
                             [migration_obj.DONE])
