"""Rescue and unrescue on this host (compute RPC 1.9).

A rescue boots the guest from a rescue image (the one the request named,
else the server's own image) with its own disk attached as a second
one, and the password the API returned: the server ends RESCUED
(RUNNING). An unrescue boots it from its own disk again: ACTIVE. Each
is a compare-and-swap on the task state the API set (rescuing,
unrescuing), under the instance's lock on this host; a failure clears
the task state with a fault and leaves the vm_state as it was.
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.compute.service import saves
from nova_lite.notifications import instance as notify
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# Task states a stop of this compute may interrupt.
INTERRUPTED = (instance_obj.RESCUING, instance_obj.UNRESCUING)


class RescueTasks(object):
    """rescue_instance and unrescue_instance of ComputeManager. host:
    this host's name; driver: its virt driver; locks: its
    InstanceLocks."""

    def __init__(self, host, driver, locks):
        self.host = host
        self.driver = driver
        self.locks = locks

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def rescue_instance(self, context, instance, rescue_image_ref,
                        rescue_password, event):
        """rescuing -> RESCUED, RUNNING. Notifications:
        instance.rescue.start/.end."""
        with self.locks(instance.uuid), notify.image_action(
                context, instance, self.host, 'rescue', rescue_image_ref,
                error_phase=True):
            self._run(instance, instance_obj.RESCUING, instance_obj.RESCUED,
                      lambda: self.driver.rescue(
                          instance.uuid, rescue_image_ref,
                          admin_password=rescue_password), event)
            LOG.info('Instance %s rescued on %s from image %s',
                     instance.uuid, self.host, rescue_image_ref)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def unrescue_instance(self, context, instance, event):
        """unrescuing -> ACTIVE, RUNNING. Notifications:
        instance.unrescue.start/.end."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'unrescue'):
            self._run(instance, instance_obj.UNRESCUING, instance_obj.ACTIVE,
                      lambda: self.driver.unrescue(instance.uuid), event)

    def _run(self, instance, task_state, vm_state, operation, event=None):
        try:
            operation()
        except Exception as exc:
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, [task_state], task_state=None)
            raise
        saves.save_quietly(instance, [task_state], vm_state=vm_state,
                           power_state=instance_obj.RUNNING,
                           task_state=None, finishing=event)

    def recover_interrupted(self, context, instance):
        """After a restart of this host: an interrupted rescue or
        unrescue ends with the guest booted from its own disk, ACTIVE
        (the driver's unrescue is idempotent); the user may rescue
        again. Never raises (logged)."""
        task = instance.task_state
        LOG.warning('%s of %s was interrupted by a restart of %s; it ends '
                    'ACTIVE', task, instance.uuid, self.host)
        try:
            with self.locks(instance.uuid):
                self._run(instance, task, instance_obj.ACTIVE,
                          lambda: self.driver.unrescue(instance.uuid))
        except Exception:
            LOG.exception('Could not recover %s of %s', task, instance.uuid)
