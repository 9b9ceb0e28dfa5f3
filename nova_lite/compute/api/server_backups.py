"""The compute API of createBackup, changePassword and restore (POST
/servers/{id}/action) and of /servers/{id}/os-server-password
(forceDelete is nova_lite.compute.api.servers.delete with force).

- createBackup: ACTIVE, SHUTOFF, PAUSED or SUSPENDED with no task (409
  otherwise); an image-backed server only (400 for a volume-backed
  one, as Nova). A new image (queued; image_type backup, backup_type,
  instance_uuid and the server image's properties) is made here and
  the compute uploads it, then deletes the server's older backups of
  that type beyond ``rotation``.
- changePassword: ACTIVE with no task, not locked for
  non-administrators (409); the compute hands the password to the
  guest.
- restore: SOFT_DELETED with no task, not locked for non-administrators
  (409); the compute powers the guest on again (task restoring).
- os-server-password: the encrypted password a guest posted (Nova's
  metadata service keeps it in the server's system metadata as
  password_0..password_3, 255 characters each); read, or cleared to
  the empty string.
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_images
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action as actions
from nova_lite import quota

BACKUP_VM_STATES = server_images.SNAPSHOT_VM_STATES
_VERSION = compute_rpcapi.SHELVE_RESCUE_VERSION
# Where the guest's encrypted password is kept, in chunks (as Nova).
PASSWORD_KEYS = tuple('password_%d' % i for i in range(4))
_CHUNK = 255


def backup(context, instance, name, backup_type, rotation, metadata=None):
    """Back the server up into a new image; returns it (queued)."""
    if 0 <= CONF.metadata_items < len(metadata or {}):
        raise exception.ImageMetadataLimitExceeded()
    server_actions.check_state(instance, 'createBackup', BACKUP_VM_STATES)
    if not instance.image_ref:
        raise exception.InvalidInput(
            reason='Backup is not supported for volume-backed instances.')
    server_actions.check_compute(instance, actions.BACKUP, _VERSION)
    properties = dict(metadata or {})
    properties.update({'backup_type': backup_type})
    properties = server_images.snapshot_properties(context, instance,
                                                   properties)
    properties['image_type'] = 'backup'
    image = image_api.API().create(
        context, name, status='queued', properties=properties,
        owner=instance.project_id, min_disk=instance.flavor.root_gb or 0)
    try:
        server_actions.start_on_compute(
            instance, actions.BACKUP, 'backup_instance',
            instance_obj.IMAGE_BACKUP, [None], version=_VERSION,
            image_id=image['id'], backup_type=backup_type,
            rotation=rotation)
    except Exception:
        try:
            image_api.API().delete(context.elevated(), image['id'])
        except exception.ImageNotFound:
            pass
        raise
    return image


def change_password(context, instance, password):
    """Set the guest's administrator password: task updating_password."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'changePassword',
                               (instance_obj.ACTIVE,))
    server_actions.start_on_compute(
        instance, actions.CHANGE_PASSWORD, 'set_admin_password',
        instance_obj.UPDATING_PASSWORD, [None], version=_VERSION,
        new_pass=password)


def restore(context, instance):
    """Restore a soft-deleted server: task restoring, then ACTIVE. As
    Nova: a soft-deleted server does not count against the quota, so
    its instance, cores and ram must fit again (TooManyInstances, 403);
    counting from placement its allocations, which it kept, count."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'restore',
                               (instance_obj.SOFT_DELETED,))
    if not quota.from_placement():
        quota.check_deltas(context, instance.project_id, instance.user_id,
                           {'instances': 1,
                            'cores': instance.flavor.vcpus,
                            'ram': instance.flavor.memory_mb})
    server_actions.start_on_compute(
        instance, actions.RESTORE, 'restore_instance',
        instance_obj.RESTORING, [None], version=_VERSION)


def get_password(instance):
    """The encrypted password the guest posted ('' for none)."""
    sysmeta = instance.system_metadata or {}
    return ''.join(sysmeta.get(key) or '' for key in PASSWORD_KEYS)


def set_password(instance, password):
    """Keep password (encrypted, at most 1020 characters) as Nova's
    metadata service does; '' clears it."""
    sysmeta = dict(instance.system_metadata or {})
    for i, key in enumerate(PASSWORD_KEYS):
        sysmeta[key] = password[i * _CHUNK:(i + 1) * _CHUNK]
    instance.system_metadata = sysmeta
    instance.save()


def clear_password(context, instance):
    """Forget the guest's encrypted password (a server still being
    scheduled has none to forget)."""
    if not instance.obj_attr_is_set('id'):
        return
    set_password(instance, '')
