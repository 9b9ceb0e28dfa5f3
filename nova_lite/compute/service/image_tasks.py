"""The compute service's side of rebuild and createImage (compute RPC
1.5). Each runs serialised with build, terminate and the other actions
of its instance (the per-instance locks), as one event of the action
the API recorded, and every state change is a compare-and-swap on the
task state: a delete meanwhile wins and nothing more is done.
"""
import sys
import traceback

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import guest_info
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.notifications import instance as notify
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


# Task states a stop of the compute interrupts mid-way (the first ones,
# rebuilding and image_snapshot, still have their cast in the queue).
_INTERRUPTED_REBUILD = (instance_obj.REBUILD_BLOCK_DEVICE_MAPPING,
                        instance_obj.REBUILD_SPAWNING)
_INTERRUPTED_SNAPSHOT = (instance_obj.IMAGE_PENDING_UPLOAD,
                         instance_obj.IMAGE_UPLOADING)
INTERRUPTED = _INTERRUPTED_REBUILD + _INTERRUPTED_SNAPSHOT


def upload_snapshot(context, instance, driver, host, image_id, task):
    """Snapshot the guest's disk into image_id (made by the API,
    queued): the task from ``task`` to image_pending_upload, then
    image_uploading, then None, the image active, and
    instance.snapshot.start / .end sent around it (createImage and
    createBackup alike). Whatever fails is raised: the caller deletes
    the image and settles the server."""
    instance.task_state = instance_obj.IMAGE_PENDING_UPLOAD
    instance.save(expected_task_state=[task])
    with notify.image_action(context, instance, host, 'snapshot',
                             image_id):
        disk = driver.snapshot(instance.uuid)
        instance.task_state = instance_obj.IMAGE_UPLOADING
        instance.save(expected_task_state=[
            instance_obj.IMAGE_PENDING_UPLOAD])
        image_api.API().update(context, image_id, status='active',
                               size=disk['size'],
                               checksum=disk['checksum'])
        instance.task_state = None
        instance.save(expected_task_state=[instance_obj.IMAGE_UPLOADING])


class ImageTasks(object):
    """rebuild_instance and snapshot_instance of ComputeManager. host:
    this host's name; driver: its virt driver; locks: its
    InstanceLocks; reimager: its RootVolumeReimage (2.93 rebuilds)."""

    def __init__(self, host, driver, locks, reimager=None):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.reimager = reimager

    def recover_interrupted(self, instance):
        """After a restart of this host (task in INTERRUPTED): an
        interrupted rebuild goes to ERROR with a fault (as Nova does);
        an interrupted snapshot has its task state cleared (its image
        stays queued; a user deletes it)."""
        LOG.warning('%s of %s was interrupted by a restart of %s',
                    instance.task_state, instance.uuid, self.host)
        if instance.task_state in _INTERRUPTED_REBUILD:
            self._fail_action(instance, RuntimeError(
                'Rebuild was interrupted by a restart of its compute '
                'service.'), list(_INTERRUPTED_REBUILD))
        else:
            self._fail_action(instance, None, list(_INTERRUPTED_SNAPSHOT),
                              vm_state=instance.vm_state)

    @instance_events.wrap_instance_event(prefix='compute')
    def rebuild_instance(self, context, instance, image_ref, admin_password,
                         preserve_ephemeral=False, reimage_boot_volume=False):
        """Re-spawn the guest from image_ref on this host.

        On entry task_state is rebuilding (set by the compute API with
        the new image_ref); then rebuild_block_device_mapping,
        rebuild_spawning and None, vm_state active (stopped, powered
        off, when it was stopped). A failure leaves the server in ERROR
        with a fault; a delete meanwhile wins (nothing more is done).
        Notifications: instance.rebuild.start, then .end (or .error with
        the fault), as Nova's compute sends them. reimage_boot_volume: a
        volume-backed server's root volume is reimaged with image_ref
        in the rebuild_block_device_mapping step (reimage.py).
        """
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'rebuild', error_phase=True):
            self._rebuild(context, instance, image_ref, preserve_ephemeral,
                          reimage_boot_volume, admin_password)

    def _rebuild(self, context, instance, image_ref, preserve_ephemeral,
                 reimage_boot_volume=False, admin_password=None):
        was_stopped = instance.vm_state == instance_obj.STOPPED
        root = None
        try:
            instance.task_state = instance_obj.REBUILD_BLOCK_DEVICE_MAPPING
            instance.save(expected_task_state=[instance_obj.REBUILDING])
            if reimage_boot_volume and not instance.image_ref:
                root = self.reimager.reimage(context, instance, image_ref)
            instance.task_state = instance_obj.REBUILD_SPAWNING
            instance.save(expected_task_state=[
                instance_obj.REBUILD_BLOCK_DEVICE_MAPPING])
            flavor = instance.flavor
            # A volume-backed server (no image_ref): its root is a volume.
            self.driver.rebuild(instance.uuid, flavor.vcpus,
                                flavor.memory_mb,
                                (flavor.root_gb if instance.image_ref
                                 else 0) + flavor.ephemeral_gb,
                                image_ref,
                                preserve_ephemeral=preserve_ephemeral,
                                name=instance.display_name,
                                power_on=not was_stopped,
                                guest=guest_info.describe(
                                    instance,
                                    admin_password=admin_password))
            if root is not None:
                self.reimager.reconnect(context, instance, root)
            instance.vm_state = (instance_obj.STOPPED if was_stopped
                                 else instance_obj.ACTIVE)
            instance.power_state = (instance_obj.SHUTDOWN if was_stopped
                                    else instance_obj.RUNNING)
            instance.task_state = None
            instance.launched_at = timeutils.utcnow()
            instance.save(expected_task_state=[
                instance_obj.REBUILD_SPAWNING])
            LOG.info('Instance %s rebuilt from image %s on %s',
                     instance.uuid, image_ref, self.host)
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            LOG.info('Instance %s was deleted while rebuilding',
                     instance.uuid)
        except Exception as exc:
            LOG.warning('Rebuild of instance %s failed on %s: %s',
                        instance.uuid, self.host, exc)
            self._fail_action(instance, exc, [
                instance_obj.REBUILDING,
                instance_obj.REBUILD_BLOCK_DEVICE_MAPPING,
                instance_obj.REBUILD_SPAWNING])
            raise

    def _fail_action(self, instance, exc, task_states, vm_state=None):
        """The action failed: task cleared (vm_state ERROR, with a fault
        recorded first so that ERROR is never shown without it, unless a
        vm_state is given); a delete meanwhile wins."""
        if vm_state is None:
            details = (traceback.format_exc()
                       if sys.exc_info()[1] is not None else None)
            try:
                instance.add_fault(500, str(exc)[:255], details=details,
                                   host=self.host)
            except exception.InstanceNotFound:
                return
        instance.vm_state = vm_state or instance_obj.ERROR
        instance.task_state = None
        try:
            instance.save(expected_task_state=task_states)
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            return

    @instance_events.wrap_instance_event(prefix='compute')
    def snapshot_instance(self, context, instance, image_id):
        """Upload a snapshot of the guest into image_id (made queued by
        the compute API), which ends active.

        On entry task_state is image_snapshot; then image_pending_upload,
        image_uploading and None; vm_state is unchanged. On a failure
        the image is deleted and the task state cleared (vm_state
        unchanged, as Nova does).
        """
        with self.locks(instance.uuid):
            self._snapshot(context, instance, image_id)

    def _snapshot(self, context, instance, image_id):
        images = image_api.API()
        try:
            upload_snapshot(context, instance, self.driver, self.host,
                            image_id, instance_obj.IMAGE_SNAPSHOT)
            LOG.info('Instance %s snapshot into image %s on %s',
                     instance.uuid, image_id, self.host)
        except Exception as exc:
            deleted = isinstance(exc, (exception.UnexpectedTaskStateError,
                                       exception.InstanceNotFound))
            LOG.warning('Snapshot of instance %s into image %s failed on '
                        '%s: %s', instance.uuid, image_id, self.host, exc)
            try:
                images.delete(context.elevated(), image_id)
            except exception.ImageNotFound:
                pass
            if not deleted:
                self._fail_action(instance, exc, [
                    instance_obj.IMAGE_SNAPSHOT,
                    instance_obj.IMAGE_PENDING_UPLOAD,
                    instance_obj.IMAGE_UPLOADING],
                    vm_state=instance.vm_state)
                raise
