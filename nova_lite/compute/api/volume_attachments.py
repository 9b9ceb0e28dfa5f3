"""The compute API for /servers/{id}/os-volume_attachments: list, show,
attach, detach and (2.85) update of a server's volumes.

Attach and detach are checked here against the states the Compute API
allows them in (409 otherwise, and on a locked server for
non-administrators), then the volume is reserved (attach: an attachment
without a connector; detach: the volume goes detaching) -- a compare-
and-swap in the volume service, so two racing requests cannot both
pass -- the mapping is written, the instance action recorded in the
instance's cell, and the work cast to the instance's compute (RPC 1.7),
which connects or disconnects the volume. Swapping a volume for another
needs a driver that can swap; the simulated one cannot: 409
(VolumeSwapNotSupported) once the request is otherwise valid.
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute import block_devices
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import block_device as bdm_obj
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions
from nova_lite.volume import api as volume_api

# vm_states attach and detach are allowed in (no task), as Nova's.
ALLOW_ATTACH = (inst_obj.ACTIVE, inst_obj.PAUSED, inst_obj.STOPPED,
                'resized', 'soft-delete', 'shelved', 'shelved_offloaded')
ALLOW_SWAP = (inst_obj.ACTIVE, inst_obj.PAUSED, 'resized')

get_server = server_actions.get


def _check(context, instance, action, vm_states=ALLOW_ATTACH):
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, action, vm_states)


def _check_compute(instance, action):
    """409 unless the instance's compute speaks RPC 1.7 (service
    version 10): checked once the request is otherwise valid."""
    server_actions.check_compute(instance, action,
                                  compute_rpcapi.VOLUME_ATTACH_VERSION)


def _volume_bdms(instance):
    if not instance.obj_attr_is_set('id'):
        return []   # a build request: nothing attached yet
    return objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance.context, instance.uuid).volumes()


def list_attachments(instance, limit=None, offset=0):
    """The instance's volume mappings, in boot order, paged."""
    bdms = _volume_bdms(instance)[offset or 0:]
    return bdms[:limit] if limit is not None else bdms


def get_attachment(instance, volume_id):
    """The mapping of volume_id on the instance; VolumeNotAttached
    (404) when it has none."""
    for bdm in _volume_bdms(instance):
        if bdm.volume_id == volume_id:
            return bdm
    raise exception.VolumeNotAttached(volume_id=volume_id)


def attach(context, instance, volume_id, device=None, tag=None,
           delete_on_termination=False):
    """Reserve volume_id for the instance, write its mapping, cast the
    attach. Returns the mapping."""
    _check(context, instance, 'attach_volume')
    cctxt = instance.context
    api = volume_api.API()
    volume = api.get(context, volume_id)          # 404 when missing
    bdms = _volume_bdms(instance)
    if any(b.volume_id == volume_id for b in bdms):
        raise exception.InvalidVolume(
            reason='volume %s already attached' % volume_id)
    if volume['status'] != volume_api.AVAILABLE:
        raise exception.InvalidVolume(
            reason="volume '%s' status must be 'available'. Currently in "
                   "'%s'" % (volume_id, volume['status']))
    used = [b.device_name for b in objects.BlockDeviceMappingList
            .get_by_instance_uuid(cctxt, instance.uuid)]
    if device and device in used:
        raise exception.InvalidInput(
            reason='The supplied device path (%s) is in use.' % device)
    device = device or block_devices.next_device_name(used)
    _check_compute(instance, 'attach_volume')
    attachment = api.attachment_create(context, volume_id, instance.uuid)
    try:
        bdm = objects.BlockDeviceMapping(
            cctxt, instance_uuid=instance.uuid,
            source_type=bdm_obj.SOURCE_VOLUME,
            destination_type=bdm_obj.DEST_VOLUME, boot_index=None,
            volume_id=volume_id, attachment_id=attachment['id'],
            device_name=device, tag=tag,
            delete_on_termination=bool(delete_on_termination))
        bdm.create()
    except Exception:
        block_devices.release(context, [{'attachment_id':
                                         attachment['id']}])
        raise
    instance_events.record_action(cctxt, instance, actions.ATTACH_VOLUME)
    server_actions.compute_rpc().attach_volume(cctxt, instance, bdm)
    return bdm


def detach(context, instance, volume_id):
    """Start detaching volume_id (not the root volume: 400) and cast
    the detach."""
    _check(context, instance, 'detach_volume')
    bdm = get_attachment(instance, volume_id)
    if bdm.is_root:
        raise exception.InvalidInput(
            reason='Cannot detach a root device volume')
    _check_compute(instance, 'detach_volume')
    volume_api.API().begin_detaching(context, volume_id)
    cctxt = instance.context
    instance_events.record_action(cctxt, instance, actions.DETACH_VOLUME)
    server_actions.compute_rpc().detach_volume(cctxt, instance, volume_id,
                                            bdm.attachment_id)


def update(context, instance, volume_id, delete_on_termination=None):
    """Change the delete_on_termination of volume_id's mapping (2.85);
    None changes nothing."""
    bdm = get_attachment(instance, volume_id)
    if delete_on_termination is not None:
        bdm.delete_on_termination = bool(delete_on_termination)
        bdm.save()
    return bdm


def swap(context, instance, volume_id, new_volume_id):
    """Swap volume_id for new_volume_id: checked as Nova checks it, then
    refused (409): the simulated driver cannot swap volumes."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'swap_volume', ALLOW_SWAP)
    get_attachment(instance, volume_id)
    new = volume_api.API().get(context, new_volume_id)
    if new['status'] != volume_api.AVAILABLE:
        raise exception.InvalidVolume(
            reason="volume '%s' status must be 'available'. Currently in "
                   "'%s'" % (new_volume_id, new['status']))
    raise exception.VolumeSwapNotSupported(volume_id=volume_id,
                                           instance_uuid=instance.uuid)
