"""The compute service manager: one per hypervisor host. No database:
instances are read and saved through the cell conductor (object
indirection), allocations through the scheduler's placement topic, ports
through the network API.

Building: networking -> spawning -> ACTIVE/RUNNING. A spawn that fails
undoes what it did here (guest, ports, the claim on this host) and hands
the instance back to its cell conductor to try the next alternate host;
nothing here calls up to the API DB. Build and terminate of one
instance are serialised on this host, and every state change is a
compare-and-swap on the task state, so a delete racing a build ends
with the server deleted and nothing left behind.
"""
import collections
import traceback

import eventlet
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import cross_cell_tasks
from nova_lite.compute.service import image_tasks
from nova_lite.compute.service import resize_recovery
from nova_lite.compute.service import resize_tasks
from nova_lite.compute.service import resource_tracker
from nova_lite.compute.service import volume_tasks
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.notifications import instance as notify
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)


class _Locks(object):
    """One green lock per instance uuid, dropped when nobody holds it."""

    def __init__(self):
        self._locks = collections.defaultdict(eventlet.semaphore.Semaphore)
        self._users = collections.Counter()

    def __call__(self, key):
        locks = self

        class _Held(object):
            def __enter__(self):
                locks._users[key] += 1
                locks._locks[key].acquire()

            def __exit__(self, *exc):
                locks._locks[key].release()
                locks._users[key] -= 1
                if not locks._users[key]:
                    del locks._users[key]
                    locks._locks.pop(key, None)
        return _Held()


# Each task state of a power action: (driver method, the vm_state and
# power_state it ends in). Reboots of any kind end as a hard reboot.
_POWER_TASKS = {
    instance_obj.POWERING_OFF: ('power_off', instance_obj.STOPPED,
                                instance_obj.SHUTDOWN),
    instance_obj.POWERING_ON: ('power_on', instance_obj.ACTIVE,
                               instance_obj.RUNNING),
    instance_obj.PAUSING: ('pause', instance_obj.PAUSED,
                           instance_obj.POWER_PAUSED),
    instance_obj.UNPAUSING: ('unpause', instance_obj.ACTIVE,
                             instance_obj.RUNNING),
    instance_obj.SUSPENDING: ('suspend', instance_obj.SUSPENDED,
                              instance_obj.POWER_SUSPENDED),
    instance_obj.RESUMING: ('resume', instance_obj.ACTIVE,
                            instance_obj.RUNNING),
}
_POWER_TASKS.update({state: ('reboot', instance_obj.ACTIVE,
                             instance_obj.RUNNING)
                     for state in instance_obj.SOFT_REBOOT_STATES
                     + instance_obj.HARD_REBOOT_STATES})


class ComputeManager(image_tasks.ImageTasks, resize_tasks.ResizeTasks,
                     resize_recovery.ResizeRecovery,
                     volume_tasks.VolumeTasks,
                     cross_cell_tasks.CrossCellTasks):
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
        self._locks = _Locks()

    def init_host(self, context, service_ref):
        self.service_ref = service_ref
        self.driver.init_host(self.host)
        self._recover_instances(context)
        self.update_available_resource(context)

    def _recover_instances(self, context):
        """Finish what a stop of this service interrupted: a delete is
        completed; a build goes to ERROR with a fault, its guest, ports
        and claim freed (never left in BUILD); a rebuild or snapshot as
        image_tasks.ImageTasks._recover_image_task says; a resize or
        migration as resize_recovery.ResizeRecovery says."""
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
                self._recover_image_task(instance)
            elif instance.task_state in instance_obj.RESIZE_TASK_STATES:
                try:
                    self._recover_move(context, instance)
                except Exception:
                    LOG.exception('Could not recover the move of %s',
                                  instance.uuid)
            elif instance.task_state in _POWER_TASKS:
                # An action the stop interrupted: run it to its end
                # (every driver power operation is idempotent).
                LOG.warning('%s of %s was interrupted by a restart of %s; '
                            'finishing it', instance.task_state,
                            instance.uuid, self.host)
                try:
                    with self._locks(instance.uuid):
                        self._power_action(instance, instance.task_state)
                except Exception:
                    LOG.exception('Could not finish %s of %s',
                                  instance.task_state, instance.uuid)
            elif (instance.vm_state == instance_obj.BUILDING
                  and instance.task_state in (instance_obj.NETWORKING,
                                              instance_obj.SPAWNING)):
                # Started by the process that stopped. A build still in
                # task_state scheduling has its cast waiting in this
                # host's queue: it runs once the RPC server consumes.
                LOG.warning('Build of %s was interrupted by a restart of '
                            '%s; it goes to ERROR', instance.uuid,
                            self.host)
                self._undo_build(context, instance)
                instance.vm_state = instance_obj.ERROR
                instance.task_state = None
                instance.network_info = []
                try:
                    instance.save(expected_vm_state=[
                        instance_obj.BUILDING], expected_task_state=[
                        instance_obj.NETWORKING, instance_obj.SPAWNING])
                except exception.NovaLiteException:
                    continue
                instance.add_fault(
                    500, 'Instance build was interrupted by a restart of '
                    'its compute service.', host=self.host)
        try:
            self._recover_host_moves(context)
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
        return CONF.update_resources_interval

    # --- RPC API 1.0 --------------------------------------------------

    def ping(self, context):
        return {'host': self.host, 'guests': len(self.driver.list_guests())}

    def describe_node(self, context, compute_node):
        return {'host': self.host,
                'fields': sorted(f for f in compute_node.fields
                                 if compute_node.obj_attr_is_set(f))}

    # --- RPC API 1.1 --------------------------------------------------

    def get_guests(self, context):
        guests = self.driver.list_guests()
        return {'count': len(guests), 'guests': sorted(guests)}

    # --- RPC API 1.2 --------------------------------------------------

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()

    # --- RPC API 1.3: servers -----------------------------------------

    def _placement(self, context):
        return compute_inventory.placement_for(context)

    def build_and_run_instance(self, context, instance, request_spec,
                               requested_networks, host_list,
                               admin_password=None):
        with self._locks(instance.uuid), instance_events.EventReporter(
                context, 'compute__do_build_and_run_instance', self.host,
                instance.uuid) as event:
            self._build(context, instance, request_spec,
                        requested_networks, host_list, event)

    def _build(self, context, instance, request_spec, requested_networks,
               host_list, event):
        try:
            instance.task_state = instance_obj.NETWORKING
            instance.save(expected_task_state=[instance_obj.SCHEDULING,
                                               None],
                          expected_vm_state=[instance_obj.BUILDING])
        except (exception.UnexpectedTaskStateError,
                exception.InstanceInvalidState,
                exception.InstanceNotFound):
            # Deleted meanwhile: whoever deleted it cleans up.
            LOG.info('Instance %s was deleted before its build started',
                     instance.uuid)
            self._free_claim(context, instance)
            return
        notify.notify_about_instance_create(context, instance, self.host,
                                            notify.START)
        try:
            nw_info = self.network_api.allocate_for_instance(
                context, instance.uuid, instance.project_id,
                requested_networks, self.host)
            instance.network_info = nw_info
            bdms, volume_backed = self._prep_block_devices(context,
                                                           instance)
            instance.task_state = instance_obj.SPAWNING
            instance.save(expected_task_state=[instance_obj.NETWORKING])
            flavor = instance.flavor
            # A volume-backed server's root disk is its volume.
            self.driver.spawn(instance.uuid, flavor.vcpus, flavor.memory_mb,
                              (0 if volume_backed else flavor.root_gb)
                              + flavor.ephemeral_gb,
                              name=instance.display_name)
            self._plug_block_devices(context, instance, bdms)
            instance.vm_state = instance_obj.ACTIVE
            instance.power_state = instance_obj.RUNNING
            instance.task_state = None
            instance.launched_at = timeutils.utcnow()
            instance.save(expected_task_state=[instance_obj.SPAWNING])
            LOG.info('Instance %s is ACTIVE on %s', instance.uuid, self.host)
            notify.notify_about_instance_create(context, instance, self.host,
                                                notify.END)
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            LOG.info('Instance %s was deleted while building; cleaning up',
                     instance.uuid)
            self._undo_build(context, instance)
        except Exception as exc:
            LOG.warning('Build of instance %s failed on %s: %s',
                        instance.uuid, self.host, exc)
            notify.notify_about_instance_create(context, instance, self.host,
                                                notify.ERROR, exc)
            event.failed(exc, exc.__traceback__)
            self._undo_build(context, instance)
            self._reschedule(context, instance, request_spec,
                             requested_networks, host_list, exc)

    def _free_claim(self, context, instance):
        try:
            self._placement(context).remove_allocations(context,
                                                        instance.uuid)
        except Exception:
            LOG.exception('Could not free the allocations of %s',
                          instance.uuid)

    def _undo_build(self, context, instance):
        self.driver.destroy(instance.uuid)
        self._disconnect_block_devices(context, instance)
        try:
            self.network_api.deallocate_for_instance(context,
                                                     instance.uuid)
        except Exception:
            LOG.exception('Could not free the ports of %s', instance.uuid)
        self._free_claim(context, instance)

    def _reschedule(self, context, instance, request_spec,
                    requested_networks, host_list, exc):
        alternates = [h for h in (host_list or [])
                      if h['host'] != self.host]
        try:
            instance.network_info = []
            instance.host = None
            instance.node = None
            instance.task_state = instance_obj.SCHEDULING
            instance.save(expected_task_state=[instance_obj.NETWORKING,
                                               instance_obj.SPAWNING])
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            return
        conductor_rpcapi.ConductorAPI(
            transport=getattr(context, 'mq_connection', None)
        ).build_instances(context, instance, request_spec,
                          requested_networks, alternates,
                          {'host': self.host, 'message': str(exc)[:255],
                           'details': traceback.format_exc()})

    @instance_events.wrap_instance_event(prefix='compute')
    def terminate_instance(self, context, instance):
        with self._locks(instance.uuid):
            notify.notify_about_instance_action(context, instance, self.host,
                                                'delete', notify.START)
            self._cleanup_block_devices(context, instance)
            self.driver.destroy(instance.uuid, with_resize_copy=True)
            try:
                self.network_api.deallocate_for_instance(context,
                                                         instance.uuid)
            finally:
                self._free_claim(context, instance)
                self._release_move(context, instance)
            try:
                instance.destroy()
            except exception.InstanceNotFound:
                pass
            LOG.info('Instance %s deleted on %s', instance.uuid, self.host)
            notify.notify_about_instance_action(context, instance, self.host,
                                                'delete', notify.END)

    # --- RPC API 1.4: server actions ------------------------------------
    #
    # The API set the task state (compare-and-swap) and recorded the
    # action before casting; each method here runs one event of it,
    # serialised per instance with build and terminate, and ends with
    # the state Nova ends in (or, on failure, the task state cleared).

    def _power_action(self, instance, task_state, event=None):
        """Run task_state's driver operation and save the state it ends
        in, if the instance is still in task_state (a delete may have
        overtaken it: then nothing is saved), finishing event (an
        EventReporter; None: a restart's recovery, no event) with it. A
        driver failure clears the task state and raises."""
        method, vm_state, power_state = _POWER_TASKS[task_state]
        try:
            if method == 'reboot':
                self.driver.reboot(instance.uuid, hard=True)
            else:
                getattr(self.driver, method)(instance.uuid)
        except Exception:
            self._save_quietly(instance, [task_state], task_state=None)
            raise
        self._save_quietly(instance, [task_state], vm_state=vm_state,
                           power_state=power_state, task_state=None,
                           finishing=event)

    def _save_quietly(self, instance, expected_task_state, finishing=None,
                      **values):
        """Save values if the instance is in expected_task_state; False
        (logged) when it has moved on (deleted, reset) meanwhile.
        finishing: the EventReporter this save ends (save_and_finish)."""
        for name, value in values.items():
            setattr(instance, name, value)
        try:
            if finishing is None:
                instance.save(expected_task_state=expected_task_state)
            else:
                finishing.save_and_finish(
                    instance, expected_task_state=expected_task_state)
            return True
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound) as exc:
            LOG.info('Instance %s moved on meanwhile: %s', instance.uuid,
                     exc)
            return False

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def stop_instance(self, context, instance, event):
        """powering-off -> stopped, SHUTDOWN."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'power_off'):
            self._power_action(instance, instance_obj.POWERING_OFF, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def start_instance(self, context, instance, event):
        """powering-on -> active, RUNNING."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'power_on'):
            self._power_action(instance, instance_obj.POWERING_ON, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def reboot_instance(self, context, instance, reboot_type, event):
        """rebooting -> reboot_pending -> reboot_started -> active (the
        _hard states for HARD); a soft reboot of a guest that is not
        running fails (task state cleared)."""
        hard = reboot_type == 'HARD'
        requested, pending, started = (
            instance_obj.HARD_REBOOT_STATES if hard
            else instance_obj.SOFT_REBOOT_STATES)
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'reboot', error_phase=True):
            if not self._save_quietly(instance, [requested],
                                      task_state=pending):
                return
            if not self._save_quietly(instance, [pending],
                                      task_state=started):
                return
            try:
                self.driver.reboot(instance.uuid, hard=hard)
            except Exception:
                self._save_quietly(instance, [started], task_state=None)
                raise
            self._save_quietly(instance, [started],
                               vm_state=instance_obj.ACTIVE,
                               power_state=instance_obj.RUNNING,
                               task_state=None, finishing=event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def pause_instance(self, context, instance, event):
        """pausing -> paused, PAUSED."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'pause'):
            self._power_action(instance, instance_obj.PAUSING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def unpause_instance(self, context, instance, event):
        """unpausing -> active, RUNNING."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'unpause'):
            self._power_action(instance, instance_obj.UNPAUSING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def suspend_instance(self, context, instance, event):
        """suspending -> suspended, SUSPENDED."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'suspend'):
            self._power_action(instance, instance_obj.SUSPENDING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def resume_instance(self, context, instance, event):
        """resuming -> active, RUNNING."""
        with self._locks(instance.uuid), notify.action(
                context, instance, self.host, 'resume'):
            self._power_action(instance, instance_obj.RESUMING, event)

    @instance_events.wrap_instance_event(prefix='compute')
    def reset_network(self, context, instance):
        """Re-plug the guest's networking (no state change)."""
        with self._locks(instance.uuid):
            self.driver.reset_network(instance.uuid)
