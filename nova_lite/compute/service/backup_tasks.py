"""createBackup and changePassword on this host (compute RPC 1.9).

A backup is a snapshot (image_backup, then as createImage's:
image_pending_upload, image_uploading, none) into the image the compute
API made, after which the server's older backups of the same type
beyond the rotation are deleted (the newest `rotation` kept; 0 keeps
none, as Nova). A failed upload deletes its image and clears the task.
A password change hands the password to the guest (updating_password,
then none; the driver refuses a guest that does not run: the task is
cleared and the failure recorded in the action's event and as the
server's fault).
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.compute.service import image_tasks
from nova_lite.compute.service import saves
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

_BACKUP_STATES = (instance_obj.IMAGE_BACKUP,
                  instance_obj.IMAGE_PENDING_UPLOAD,
                  instance_obj.IMAGE_UPLOADING)


class BackupTasks(object):
    """backup_instance and set_admin_password of ComputeManager. host:
    this host's name; driver: its virt driver; locks: its
    InstanceLocks."""

    def __init__(self, host, driver, locks):
        self.host = host
        self.driver = driver
        self.locks = locks

    @instance_events.wrap_instance_event(prefix='compute')
    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        """On entry task image_backup, image_id queued; on exit the
        image active, no task, older backups rotated away."""
        with self.locks(instance.uuid):
            if self._upload(context, instance, image_id):
                self.rotate(context, instance, backup_type, rotation)

    def _upload(self, context, instance, image_id):
        images = image_api.API()
        try:
            image_tasks.upload_snapshot(context, instance, self.driver,
                                        self.host, image_id,
                                        instance_obj.IMAGE_BACKUP)
            return True
        except Exception as exc:
            LOG.warning('Backup of %s into %s failed on %s: %s',
                        instance.uuid, image_id, self.host, exc)
            try:
                images.delete(context.elevated(), image_id)
            except exception.ImageNotFound:
                pass
            if isinstance(exc, saves.MOVED_ON):
                return False
            saves.save_quietly(instance, list(_BACKUP_STATES),
                               task_state=None)
            raise

    def rotate(self, context, instance, backup_type, rotation):
        """Delete the instance's backups of backup_type beyond the
        newest rotation (images listed newest first)."""
        admin = context.elevated()
        images = image_api.API()
        backups = [
            image for image in images.get_all(admin)
            if (image.get('properties') or {}).get('instance_uuid')
            == instance.uuid
            and (image.get('properties') or {}).get('image_type') == 'backup'
            and (image.get('properties') or {}).get('backup_type')
            == backup_type]
        for image in backups[rotation:]:
            LOG.info('Rotating out backup %s of %s', image['id'],
                     instance.uuid)
            try:
                images.delete(admin, image['id'])
            except exception.ImageNotFound:
                pass

    @instance_events.wrap_instance_event(prefix='compute')
    def set_admin_password(self, context, instance, new_pass):
        """updating_password -> none (vm_state unchanged)."""
        with self.locks(instance.uuid):
            try:
                self.driver.set_admin_password(instance.uuid, new_pass)
            except Exception as exc:
                saves.record_fault(instance, exc, self.host)
                saves.save_quietly(instance,
                                   [instance_obj.UPDATING_PASSWORD],
                                   task_state=None)
                raise
            saves.save_quietly(instance, [instance_obj.UPDATING_PASSWORD],
                               task_state=None)

    def recover_interrupted(self, instance):
        """After a restart: a password change that never finished has
        its task cleared (the user sets it again)."""
        saves.save_quietly(instance, [instance_obj.UPDATING_PASSWORD],
                           task_state=None)
