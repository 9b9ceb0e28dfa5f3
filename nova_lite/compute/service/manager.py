"""The nova-compute service's RPC endpoint: one per hypervisor host.

ComputeManager declares every method of the compute RPC API (its
client is nova_lite.compute.rpcapi) and the hooks the service framework
calls (init_host, periodic_tasks, cleanup_host). Each delegates to one
part, composed here from what the parts share (this host's name, its
virt driver, the per-instance locks, the network and volume services'
clients):

  build_tasks       build_and_run_instance, terminate_instance
  power_tasks       stop, start, reboot, pause, unpause, suspend,
                    resume, reset_network
  image_tasks       rebuild_instance, snapshot_instance
  resize_tasks      prep_resize ... finish_revert_resize (same cell)
  cross_cell_tasks  the *_snapshot_based_resize_* steps (cross-cell)
  volume_tasks      attach_volume, detach_volume (and the volumes of a
                    build, a delete and a cross-cell move)
  interface_tasks   attach_interface, detach_interface
  external_events   external_instance_event
  resize_recovery   a delete or a restart in the middle of a move
  shelve_tasks      shelve_instance, shelve_offload_instance,
                    unshelve_instance (and the periodic offload)
  rescue_tasks      rescue_instance, unrescue_instance
  backup_tasks      backup_instance, set_admin_password
  soft_delete_tasks soft_delete_instance, restore_instance (and the
                    periodic reclaim)
  orphans           guests of deleted servers, deletes that never
                    completed (at start-up and periodically)
  console_tasks     console output and connection info, diagnostics,
                    trigger_crash_dump, inject_network_info
  usage_audit       the periodic instance usage audit (task log)
  evacuate_tasks    evacuate_instance (destination), and the clean-up
                    of evacuated servers' guests when a source returns
  live_migration_tasks  the live migration steps, abort, force-complete
                    (and their recovery at start-up)

No database: instances are read and saved through the cell conductor
(object indirection), allocations through the scheduler's placement
topic, ports and volumes through the network and volume APIs. Every
method that touches an instance runs under its lock on this host, and
every state change is a compare-and-swap on the state it expects.
"""
import functools

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.service import backup_tasks
from nova_lite.compute.service import build_tasks
from nova_lite.compute.service import console_tasks
from nova_lite.compute.service import cross_cell_tasks
from nova_lite.compute.service import evacuate_tasks
from nova_lite.compute.service import event_waits
from nova_lite.compute.service import external_events
from nova_lite.compute.service import image_tasks
from nova_lite.compute.service import interface_tasks
from nova_lite.compute.service import live_migration_tasks
from nova_lite.compute.service import locks
from nova_lite.compute.service import orphans
from nova_lite.compute.service import power_tasks
from nova_lite.compute.service import reimage
from nova_lite.compute.service import rescue_tasks
from nova_lite.compute.service import resize_recovery
from nova_lite.compute.service import resize_tasks
from nova_lite.compute.service import resource_tracker
from nova_lite.compute.service import shelve_tasks
from nova_lite.compute.service import soft_delete_tasks
from nova_lite.compute.service import usage_audit
from nova_lite.compute.service import volume_tasks
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake
from nova_lite.volume import api as volume_api

LOG = logging.getLogger(__name__)


def _expected(*exceptions):
    """oslo.messaging's expected_exceptions (raised to the caller, not
    logged as errors), keeping the method's name and signature."""
    def decorate(fn):
        return functools.wraps(fn)(messaging.expected_exceptions(
            *exceptions)(fn))
    return decorate


class ComputeManager(object):
    # 1.6: resize and cold migration; 1.7: volume attachments; 1.8:
    # cross-cell resize steps; 1.9: image pre-caching; 1.10: consoles
    # and introspection; 1.11: shelve, unshelve and rescue; 1.12:
    # interface attachments; 1.13: external events; 1.14: evacuate;
    # 1.15: live migration; 1.16: rebuild reimages a volume-backed
    # server's root volume, swap_volume; 1.17: evacuate_instance and
    # check_can_live_migrate_destination take the request spec; 1.18:
    # volume_snapshot_create and volume_snapshot_delete
    # (os-assisted-volume-snapshots).
    target = messaging.Target(version='1.19')

    def __init__(self, host):
        self.host = host
        self.service_name = 'compute'
        self.driver = fake.load_driver(host)
        self.rt = resource_tracker.ResourceTracker(host, self.driver)
        self.service_ref = None
        self.network_api = network_api.API()
        self.volume_api = volume_api.API()
        held = locks.InstanceLocks()
        self._waits = event_waits.EventWaits()
        self._volumes = volume_tasks.VolumeTasks(host, self.driver, held,
                                                 self.volume_api)
        self._resize = resize_tasks.ResizeTasks(host, self.driver, held,
                                                self.network_api,
                                                waits=self._waits)
        self._recovery = resize_recovery.ResizeRecovery(host, held,
                                                        self._resize)
        self._builds = build_tasks.BuildTasks(
            host, self.driver, held, self.network_api, self._volumes,
            self._recovery, self._waits)
        self._power = power_tasks.PowerTasks(host, self.driver, held,
                                             self.network_api, self._waits)
        self._images = image_tasks.ImageTasks(
            host, self.driver, held, reimage.RootVolumeReimage(
                self.driver, self._volumes, self._waits))
        self._cross_cell = cross_cell_tasks.CrossCellTasks(
            host, self.driver, held, self.network_api, self._volumes)
        self._shelve = shelve_tasks.ShelveTasks(
            host, self.driver, held, self.network_api, self._volumes,
            self._waits)
        self._rescue = rescue_tasks.RescueTasks(host, self.driver, held)
        self._backups = backup_tasks.BackupTasks(host, self.driver, held)
        self._soft_deletes = soft_delete_tasks.SoftDeleteTasks(
            host, self.driver, held, self.terminate_instance)
        self._usage_audit = usage_audit.UsageAudit(host)
        self._orphans = orphans.Reaper(host, self.driver, held,
                                       self.network_api,
                                       self.terminate_instance)
        self._consoles = console_tasks.ConsoleTasks(host, self.driver, held)
        self._evacuations = evacuate_tasks.EvacuateTasks(
            host, self.driver, held, self.network_api, self._volumes,
            self._waits)

        self._interfaces = interface_tasks.InterfaceTasks(
            host, self.driver, held, self.network_api)
        self._events = external_events.ExternalEvents(
            host, self.driver, held, self._interfaces, self._waits)
        self._live = live_migration_tasks.LiveMigrationTasks(
            host, self.driver, self.network_api, group_locks=held,
            waits=self._waits)

    # --- the service framework's hooks ----------------------------------

    def init_host(self, context, service_ref):
        self.service_ref = service_ref
        self.driver.init_host(self.host)
        # Before the instances: an interrupted evacuation here is undone
        # (not taken for an interrupted rebuild).
        self._evacuations.recover_host(context)
        self._recover_instances(context)
        self._orphans.run_once(context)
        self.update_available_resource(context)

    def _recover_instances(self, context):
        """Finish what a stop of this service interrupted, instance by
        instance on this host: a delete is completed; a build goes to
        ERROR (BuildTasks.recover_interrupted_build); a rebuild or
        snapshot as ImageTasks.recover_interrupted says; a resize or
        migration as ResizeRecovery.recover_move says; a power action
        is run to its end. Then the moves of this host whose instance
        lives on the other host (ResizeRecovery.recover_host_moves)."""
        try:
            instances = instance_obj.InstanceList.get_by_host(context,
                                                              self.host)
        except Exception:
            LOG.exception('Could not list the instances of %s', self.host)
            return
        for instance in instances:
            if instance.task_state == instance_obj.DELETING:
                self.terminate_instance(context, instance)
            elif instance.task_state in image_tasks.INTERRUPTED:
                self._images.recover_interrupted(instance)
            elif (instance.task_state in shelve_tasks.INTERRUPTED
                  or (instance.task_state == instance_obj.SPAWNING and
                      instance.vm_state == instance_obj.SHELVED_OFFLOADED)):
                self._shelve.recover_interrupted(context, instance)
            elif instance.task_state in rescue_tasks.INTERRUPTED:
                self._rescue.recover_interrupted(context, instance)
            elif instance.task_state == instance_obj.UPDATING_PASSWORD:
                self._backups.recover_interrupted(instance)
            elif instance.task_state in soft_delete_tasks.INTERRUPTED:
                self._soft_deletes.recover_interrupted(instance)
            elif instance.task_state in instance_obj.RESIZE_TASK_STATES:
                try:
                    self._recovery.recover_move(context, instance)
                except Exception:
                    LOG.exception('Could not recover the move of %s',
                                  instance.uuid)
            elif instance.task_state == instance_obj.MIGRATING:
                try:
                    self._live.recover(context, instance)
                except Exception:
                    LOG.exception('Could not recover the live migration '
                                  'of %s', instance.uuid)
            elif instance.task_state in power_tasks.TASK_STATES:
                self._power.finish_interrupted(instance)
            elif (instance.vm_state == instance_obj.BUILDING
                  and instance.task_state in build_tasks.INTERRUPTED):
                # Started by the process that stopped. A build still in
                # task_state scheduling has its cast waiting in this
                # host's queue: it runs once the RPC server consumes.
                self._builds.recover_interrupted_build(context, instance)
        try:
            self._recovery.recover_host_moves(context)
        except Exception:
            LOG.exception('Could not recover the moves of %s', self.host)
        try:
            self._live.recover_host_moves(context)
        except Exception:
            LOG.exception('Could not recover the live migrations of %s',
                          self.host)

    def cleanup_host(self):
        cleanup = getattr(self.driver, 'cleanup_host', None)
        if cleanup is not None:
            cleanup(self.host)

    def update_available_resource(self, context):
        self.rt.update_available_resource(context, self.service_ref.id)

    def periodic_tasks(self, context, raise_on_error=False):
        try:
            self.update_available_resource(context)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Error updating resources for %s', self.host)
        self._builds.finish_abandoned_builds(context)
        looks = [CONF.update_resources_interval,
                 self._soft_deletes.reclaim(context),
                 self._orphans.run_if_due(context),
                 self._usage_audit.run_if_due(context),
                 self._shelve.offload_old_shelved(context)]
        return min(look for look in looks if look is not None)

    # --- RPC API 1.0 - 1.2: the host ------------------------------------

    def ping(self, context):
        return {'host': self.host, 'guests': len(self.driver.list_guests())}

    def describe_node(self, context, compute_node):
        return {'host': self.host,
                'fields': sorted(f for f in compute_node.fields
                                 if compute_node.obj_attr_is_set(f))}

    def get_guests(self, context):
        guests = self.driver.list_guests()
        return {'count': len(guests), 'guests': sorted(guests)}

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()

    # --- RPC API 1.9: image pre-caching ---------------------------------

    def cache_images(self, context, image_ids):
        """Cache images on the simulated hypervisor ahead of boots."""
        self.driver.cache_images(image_ids)

    # --- RPC API 1.3: servers (build_tasks) -----------------------------

    def build_and_run_instance(self, context, instance, request_spec,
                               requested_networks, host_list,
                               admin_password=None, injected_files=None):
        """1.3; 1.19: injected_files, the personality files the guest
        gets on its root disk."""
        self._builds.build_and_run_instance(
            context, instance, request_spec, requested_networks, host_list,
            admin_password=admin_password, injected_files=injected_files)

    def terminate_instance(self, context, instance):
        self._builds.terminate_instance(context, instance)

    # --- RPC API 1.4: server actions (power_tasks) ----------------------
    #
    # The API set the task state (compare-and-swap) and recorded the
    # action before casting; each runs one event of it.

    def stop_instance(self, context, instance):
        self._power.stop_instance(context, instance)

    def start_instance(self, context, instance):
        self._power.start_instance(context, instance)

    def reboot_instance(self, context, instance, reboot_type):
        self._power.reboot_instance(context, instance, reboot_type)

    def pause_instance(self, context, instance):
        self._power.pause_instance(context, instance)

    def unpause_instance(self, context, instance):
        self._power.unpause_instance(context, instance)

    def suspend_instance(self, context, instance):
        self._power.suspend_instance(context, instance)

    def resume_instance(self, context, instance):
        self._power.resume_instance(context, instance)

    def reset_network(self, context, instance):
        self._power.reset_network(context, instance)

    # --- RPC API 1.5: rebuild and createImage (image_tasks) -------------

    def swap_volume(self, context, instance, old_volume_id, new_volume_id,
                    new_attachment_id):
        self._volumes.swap_volume(context, instance, old_volume_id,
                                  new_volume_id, new_attachment_id)

    # --- RPC API 1.17: assisted volume snapshots (volume_tasks) --------

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        self._volumes.volume_snapshot_create(context, instance, volume_id,
                                             create_info)

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        self._volumes.volume_snapshot_delete(context, instance, volume_id,
                                             snapshot_id, delete_info)

    def rebuild_instance(self, context, instance, image_ref, admin_password,
                         preserve_ephemeral=False, reimage_boot_volume=False):
        self._images.rebuild_instance(
            context, instance, image_ref, admin_password,
            preserve_ephemeral=preserve_ephemeral,
            reimage_boot_volume=reimage_boot_volume)

    def snapshot_instance(self, context, instance, image_id):
        self._images.snapshot_instance(context, instance, image_id)

    # --- RPC API 1.6: resize and cold migration (resize_tasks) ----------

    def prep_resize(self, context, instance, migration, new_flavor,
                    request_spec=None):
        self._resize.prep_resize(context, instance, migration, new_flavor,
                                 request_spec=request_spec)

    def resize_instance(self, context, instance, migration):
        self._resize.resize_instance(context, instance, migration)

    def finish_resize(self, context, instance, migration):
        self._resize.finish_resize(context, instance, migration)

    def confirm_resize(self, context, instance, migration):
        self._resize.confirm_resize(context, instance, migration)

    def revert_resize(self, context, instance, migration):
        self._resize.revert_resize(context, instance, migration)

    def finish_revert_resize(self, context, instance, migration):
        self._resize.finish_revert_resize(context, instance, migration)

    # --- RPC API 1.7: volume attachments (volume_tasks) -----------------

    def attach_volume(self, context, instance, bdm):
        self._volumes.attach_volume(context, instance, bdm)

    def detach_volume(self, context, instance, volume_id, attachment_id):
        self._volumes.detach_volume(context, instance, volume_id,
                                    attachment_id)

    # --- RPC API 1.12: interface attachments (interface_tasks) ---------

    # The caller's mistakes (the API answers 404, 409 or 400): no
    # traceback logged.
    @_expected(
        exception.NetworkNotFound, exception.PortNotFound,
        exception.PortInUse, exception.FixedIpAlreadyInUse,
        exception.FixedIpInvalid, exception.NoMoreFixedIps)
    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None):
        return self._interfaces.attach_interface(
            context, instance, network_id, port_id, requested_ip, tag=tag)

    def detach_interface(self, context, instance, port_id):
        self._interfaces.detach_interface(context, instance, port_id)

    # --- RPC API 1.13: external events (external_events) --------------

    def external_instance_event(self, context, instance, events):
        self._events.external_instance_event(context, instance, events)

    # --- RPC API 1.14: evacuate (evacuate_tasks) -----------------------

    def evacuate_instance(self, context, instance, migration,
                          admin_password=None, stopped=False,
                          request_spec=None):
        self._evacuations.evacuate_instance(
            context, instance, migration, admin_password=admin_password,
            stopped=stopped, request_spec=request_spec)

    # --- RPC API 1.15: live migration (live_migration_tasks) ------------

    def check_can_live_migrate_destination(self, context, instance,
                                           migration, block_migration,
                                           disk_over_commit,
                                           request_spec=None):
        return self._live.check_can_live_migrate_destination(
            context, instance, migration, block_migration,
            disk_over_commit, request_spec=request_spec)

    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        return self._live.check_can_live_migrate_source(
            context, instance, migrate_data)

    def live_migration(self, context, instance, migration, migrate_data):
        self._live.live_migration(context, instance, migration,
                                  migrate_data)

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        return self._live.pre_live_migration(context, instance, migration,
                                             migrate_data)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        self._live.post_live_migration_at_destination(context, instance,
                                                      migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        self._live.rollback_live_migration_at_destination(
            context, instance, migration)

    def live_migration_abort(self, context, instance, migration_id):
        self._live.live_migration_abort(context, instance, migration_id)

    def live_migration_force_complete(self, context, instance,
                                      migration_id):
        self._live.live_migration_force_complete(context, instance,
                                                 migration_id)

    # --- RPC API 1.8: cross-cell resize steps (cross_cell_tasks) --------

    def prep_snapshot_based_resize_at_dest(self, context, instance,
                                           migration, new_flavor,
                                           request_spec=None):
        return self._cross_cell.prep_snapshot_based_resize_at_dest(
            context, instance, migration, new_flavor,
            request_spec=request_spec)

    def prep_snapshot_based_resize_at_source(self, context, instance,
                                             migration, snapshot_id=None):
        return self._cross_cell.prep_snapshot_based_resize_at_source(
            context, instance, migration, snapshot_id=snapshot_id)

    def finish_snapshot_based_resize_at_dest(self, context, instance,
                                             migration, snapshot_id=None):
        self._cross_cell.finish_snapshot_based_resize_at_dest(
            context, instance, migration, snapshot_id=snapshot_id)

    def confirm_snapshot_based_resize_at_source(self, context, instance,
                                                migration):
        self._cross_cell.confirm_snapshot_based_resize_at_source(
            context, instance, migration)

    def revert_snapshot_based_resize_at_dest(self, context, instance,
                                             migration):
        self._cross_cell.revert_snapshot_based_resize_at_dest(
            context, instance, migration)

    def finish_revert_snapshot_based_resize_at_source(self, context,
                                                      instance, migration):
        self._cross_cell.finish_revert_snapshot_based_resize_at_source(
            context, instance, migration)

    # --- RPC API 1.10: consoles and introspection (console_tasks) --------

    def get_console_output(self, context, instance, tail_length=None):
        return self._consoles.get_console_output(context, instance,
                                                 tail_length=tail_length)

    def get_console_connect_info(self, context, instance, protocol,
                                 console_type):
        return self._consoles.get_console_connect_info(
            context, instance, protocol, console_type)

    def get_diagnostics(self, context, instance):
        return self._consoles.get_diagnostics(context, instance)

    def trigger_crash_dump(self, context, instance):
        self._consoles.trigger_crash_dump(context, instance)

    def inject_network_info(self, context, instance):
        self._consoles.inject_network_info(context, instance)

    # --- RPC API 1.11: shelve (shelve_tasks), rescue (rescue_tasks),
    # backups and passwords (backup_tasks) --------------------------------

    def shelve_instance(self, context, instance, image_id):
        self._shelve.shelve_instance(context, instance, image_id)

    def shelve_offload_instance(self, context, instance):
        self._shelve.shelve_offload_instance(context, instance)

    def unshelve_instance(self, context, instance, request_spec=None):
        self._shelve.unshelve_instance(context, instance,
                                       request_spec=request_spec)

    def rescue_instance(self, context, instance, rescue_image_ref,
                        rescue_password):
        self._rescue.rescue_instance(context, instance, rescue_image_ref,
                                     rescue_password)

    def unrescue_instance(self, context, instance):
        self._rescue.unrescue_instance(context, instance)

    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        self._backups.backup_instance(context, instance, image_id,
                                      backup_type, rotation)

    def set_admin_password(self, context, instance, new_pass):
        self._backups.set_admin_password(context, instance, new_pass)

    def soft_delete_instance(self, context, instance):
        self._soft_deletes.soft_delete_instance(context, instance)

    def restore_instance(self, context, instance):
        self._soft_deletes.restore_instance(context, instance)
