"""The compute API for /servers/{id}/os-volume_attachments: list, show,
attach, detach and (2.85) update of a server's volumes.

Attach and detach are checked here against the states the Compute API
allows them in (409 otherwise, and on a locked server for
non-administrators), then the volume is reserved (attach: an attachment
without a connector; detach: the volume goes detaching) -- a compare-
and-swap in the volume service, so two racing requests cannot both
pass -- the mapping is written, the instance action recorded in the
instance's cell, and the work cast to the instance's compute (RPC 1.7),
which connects or disconnects the volume. A swap (the service role,
as Nova's policy) moves a volume's mapping to another volume: the old
one goes detaching and the new one is reserved for the server (both
compare-and-swaps in the volume service), the action swap_volume is
recorded and the server's compute (RPC 1.16: 409 for an older one)
connects the new volume, has the guest copy onto it, completes its
attachment and releases the old one (available), or rolls both back.
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


def _offloaded(instance):
    return instance.vm_state == inst_obj.SHELVED_OFFLOADED


def check_version(instance, action, shelved_allowed):
    """Attach and detach of a shelved or shelved-offloaded server need
    2.20 (shelved_allowed: the request's microversion is 2.20 or later);
    409 below, as Nova."""
    if not shelved_allowed and instance.vm_state in (
            inst_obj.SHELVED, inst_obj.SHELVED_OFFLOADED):
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)


def attach(context, instance, volume_id, device=None, tag=None,
           delete_on_termination=False):
    """Reserve volume_id for the instance, write its mapping, cast the
    attach. Returns the mapping. A shelved-offloaded server has no host
    to connect to: as Nova (2.20), the mapping is written and the
    attachment completed without a connection (volume in-use); the
    compute that unshelves the server connects it."""
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
    offloaded = _offloaded(instance)
    if not offloaded:
        # As Nova, the limit is the host's: none without one.
        block_devices.check_disk_devices(len(used) + 1)
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
        if offloaded:
            api.attachment_complete(context, attachment['id'])
    except Exception:
        block_devices.release(context, [{'attachment_id':
                                         attachment['id']}])
        if offloaded and bdm.obj_attr_is_set('id'):
            bdm.destroy()
        raise
    instance_events.record_action(cctxt, instance, actions.ATTACH_VOLUME)
    if not offloaded:
        server_actions.compute_rpc().attach_volume(cctxt, instance, bdm)
    return bdm


def detach(context, instance, volume_id):
    """Start detaching volume_id (not the root volume: 400) and cast
    the detach. A shelved-offloaded server's volume is connected
    nowhere: as Nova (2.20), its attachment and mapping are deleted
    here (the volume is available on return)."""
    _check(context, instance, 'detach_volume')
    bdm = get_attachment(instance, volume_id)
    if bdm.is_root:
        raise exception.InvalidInput(
            reason='Cannot detach a root device volume')
    if _offloaded(instance):
        cctxt = instance.context
        instance_events.record_action(cctxt, instance,
                                      actions.DETACH_VOLUME)
        block_devices.release(context, [bdm])
        bdm.destroy()
        return
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
    """Swap volume_id for new_volume_id, checked as Nova checks it
    (lock and states 409, old volume not attached 404, new volume in
    use, not available or smaller 400), then cast to the compute."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'swap_volume', ALLOW_SWAP)
    bdm = get_attachment(instance, volume_id)
    api = volume_api.API()
    old = api.get(context, volume_id)
    new = api.get(context, new_volume_id)
    if new['attachments']:
        raise exception.InvalidVolume(
            reason='New volume must be detached in order to swap.')
    if new['status'] != volume_api.AVAILABLE:
        raise exception.InvalidVolume(
            reason="volume '%s' status must be 'available'. Currently in "
                   "'%s'" % (new_volume_id, new['status']))
    if int(new['size']) < int(old['size']):
        raise exception.InvalidVolume(
            reason='New volume must be the same size or larger.')
    server_actions.check_compute(instance, 'swap_volume',
                                 compute_rpcapi.SWAP_VOLUME_VERSION)
    api.begin_detaching(context, volume_id)
    try:
        attachment = api.attachment_create(context, new_volume_id,
                                           instance.uuid)
    except Exception:
        api.roll_detaching(context, volume_id)
        raise
    cctxt = instance.context
    instance_events.record_action(cctxt, instance, actions.SWAP_VOLUME)
    server_actions.compute_rpc().swap_volume(
        cctxt, instance, volume_id, new_volume_id, attachment['id'])
    return bdm
