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
  resize_recovery   a delete or a restart in the middle of a move
  orphans           guests of deleted servers, deletes that never
                    completed (at start-up and periodically)

No database: instances are read and saved through the cell conductor
(object indirection), allocations through the scheduler's placement
topic, ports and volumes through the network and volume APIs. Every
method that touches an instance runs under its lock on this host, and
every state change is a compare-and-swap on the state it expects.
"""
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.service import build_tasks
from nova_lite.compute.service import cross_cell_tasks
from nova_lite.compute.service import image_tasks
from nova_lite.compute.service import locks
from nova_lite.compute.service import orphans
from nova_lite.compute.service import power_tasks
from nova_lite.compute.service import resize_recovery
from nova_lite.compute.service import resize_tasks
from nova_lite.compute.service import resource_tracker
from nova_lite.compute.service import volume_tasks
from nova_lite.conf import CONF
from nova_lite.network import api as network_api
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake
from nova_lite.volume import api as volume_api

LOG = logging.getLogger(__name__)


class ComputeManager(object):
    # 1.6: resize and cold migration; 1.7: volume attachments; 1.8:
    # cross-cell resize steps.
    target = messaging.Target(version='1.8')

    def __init__(self, host):
        self.host = host
        self.service_name = 'compute'
        self.driver = fake.load_driver(host)
        self.rt = resource_tracker.ResourceTracker(host, self.driver)
        self.service_ref = None
        self.network_api = network_api.API()
        self.volume_api = volume_api.API()
        held = locks.InstanceLocks()
        self._volumes = volume_tasks.VolumeTasks(host, self.driver, held,
                                                 self.volume_api)
        self._resize = resize_tasks.ResizeTasks(host, self.driver, held)
        self._recovery = resize_recovery.ResizeRecovery(host, held,
                                                        self._resize)
        self._builds = build_tasks.BuildTasks(
            host, self.driver, held, self.network_api, self._volumes,
            self._recovery)
        self._power = power_tasks.PowerTasks(host, self.driver, held)
        self._images = image_tasks.ImageTasks(host, self.driver, held)
        self._cross_cell = cross_cell_tasks.CrossCellTasks(
            host, self.driver, held, self.network_api, self._volumes)
        self._orphans = orphans.Reaper(host, self.driver, held,
                                       self.network_api,
                                       self.terminate_instance)

    # --- the service framework's hooks ----------------------------------

    def init_host(self, context, service_ref):
        self.service_ref = service_ref
        self.driver.init_host(self.host)
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
            elif instance.task_state in instance_obj.RESIZE_TASK_STATES:
                try:
                    self._recovery.recover_move(context, instance)
                except Exception:
                    LOG.exception('Could not recover the move of %s',
                                  instance.uuid)
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

    def cleanup_host(self):
        pass

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
        next_look = self._orphans.run_if_due(context)
        if next_look is None:
            return CONF.update_resources_interval
        return min(CONF.update_resources_interval, next_look)

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

    # --- RPC API 1.3: servers (build_tasks) -----------------------------

    def build_and_run_instance(self, context, instance, request_spec,
                               requested_networks, host_list,
                               admin_password=None):
        self._builds.build_and_run_instance(
            context, instance, request_spec, requested_networks, host_list,
            admin_password=admin_password)

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

    def rebuild_instance(self, context, instance, image_ref, admin_password,
                         preserve_ephemeral=False):
        self._images.rebuild_instance(
            context, instance, image_ref, admin_password,
            preserve_ephemeral=preserve_ephemeral)

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
