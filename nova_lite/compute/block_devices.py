"""Block device mappings of a boot request, and the volume cleanup every
path that deletes a server shares.

parse() turns the validated block_device_mapping_v2 of a create request
(and its imageRef) into the image it boots from (None: volume-backed)
and the mappings as dicts (objects.block_device.BDM_DICT_FIELDS); an
image-backed server gets its root disk mapping (source image,
destination local, boot index 0), as in Nova. check() looks the volumes
and images up for the project (400 for any mistake) and returns the
image metadata the server boots with; reserve() creates the reserved
attachments of existing volumes (so two boots cannot take one volume)
and release() undoes it.

Supported mappings: image -> local (the root disk, boot index 0),
image -> volume and blank -> volume (a new volume of volume_size GiB
the compute creates), snapshot -> volume (a new volume the compute
creates from a volume snapshot, of its size unless volume_size says),
volume -> volume (an existing volume). Local blank disks (ephemeral,
swap) are refused with 400.

An image made by createImage of a volume-backed server names snapshots
in its block_device_mapping property (with bdm_v2): booting from it
boots from those mappings (image_mappings), as Nova does.
"""
import copy
import string

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.objects import block_device as bdm_obj
from nova_lite.volume import api as volume_api

LOG = logging.getLogger(__name__)

SOURCE_IMAGE = bdm_obj.SOURCE_IMAGE
SOURCE_VOLUME = bdm_obj.SOURCE_VOLUME
SOURCE_BLANK = bdm_obj.SOURCE_BLANK
SOURCE_SNAPSHOT = 'snapshot'
DEST_LOCAL = bdm_obj.DEST_LOCAL
DEST_VOLUME = bdm_obj.DEST_VOLUME
ROOT_DEVICE = '/dev/vda'
_BAD_SEQUENCE = ('Boot sequence for the instance and image/block device '
                 'mapping combination is not valid.')


def _int_or_none(value):
    if value is None or value == '':
        return None
    return int(value)


def _one(api_bdm):
    """One API mapping as a dict of BDM_DICT_FIELDS (400 for a bad
    combination)."""
    source = api_bdm.get('source_type')
    if source is None:
        raise exception.InvalidBDM(reason='source_type is required.')
    dest = api_bdm.get('destination_type') or (
        DEST_LOCAL if source in (SOURCE_IMAGE, SOURCE_BLANK)
        else DEST_VOLUME)
    boot_index = _int_or_none(api_bdm.get('boot_index'))
    if boot_index is not None and boot_index < 0:
        boot_index = None
    size = _int_or_none(api_bdm.get('volume_size'))
    bdm = {'source_type': source, 'destination_type': dest,
           'boot_index': boot_index,
           'device_name': api_bdm.get('device_name'),
           'device_type': api_bdm.get('device_type'),
           'disk_bus': api_bdm.get('disk_bus'),
           'guest_format': api_bdm.get('guest_format'),
           'delete_on_termination': bool(
               api_bdm.get('delete_on_termination', False)),
           'volume_size': size, 'tag': api_bdm.get('tag'),
           'volume_id': None, 'image_id': None, 'snapshot_id': None,
           'attachment_id': None}
    uuid = api_bdm.get('uuid')
    if api_bdm.get('volume_type'):
        raise exception.InvalidBDM(
            reason='Volume type %s could not be found.'
                   % api_bdm['volume_type'])
    if source == SOURCE_SNAPSHOT:
        bdm['snapshot_id'] = uuid or api_bdm.get('snapshot_id')
        if not bdm['snapshot_id']:
            raise exception.InvalidBDM(
                reason="A snapshot mapping needs the snapshot's uuid.")
        if dest != DEST_VOLUME:
            raise exception.InvalidBDM(
                reason="Snapshots can only be mapped with "
                       "destination_type 'volume'.")
    elif source == SOURCE_IMAGE:
        bdm['image_id'] = uuid or api_bdm.get('image_id')
        if not bdm['image_id']:
            raise exception.InvalidBDM(reason='An image mapping needs the '
                                              "image's uuid.")
        if dest == DEST_LOCAL and boot_index != 0:
            raise exception.InvalidBDM(
                reason='Mapping image to local is not supported.')
        if dest == DEST_VOLUME and not size:
            raise exception.InvalidBDM(
                reason="Images with destination_type 'volume' need to "
                       "have a non-zero size specified")
    elif source == SOURCE_VOLUME:
        bdm['volume_id'] = uuid or api_bdm.get('volume_id')
        if not bdm['volume_id']:
            raise exception.InvalidBDM(
                reason="A volume mapping needs the volume's uuid.")
        if dest != DEST_VOLUME:
            raise exception.InvalidBDM(
                reason="Volumes can only be mapped with destination_type "
                       "'volume'.")
    elif source == SOURCE_BLANK:
        if dest == DEST_LOCAL:
            raise exception.InvalidBDM(
                reason='Local blank disks (ephemeral, swap) are not '
                       'supported.')
        if not size:
            raise exception.InvalidBDM(
                reason="Blank volumes (source: 'blank', dest: 'volume') "
                       "need to have non-zero size")
    return bdm


def image_mappings(image, api_bdms):
    """(image id or None, mappings in the API's form) for a boot from
    image whose properties hold a volume-backed server's mappings
    (block_device_mapping with bdm_v2): they are booted from, with the
    request's own mappings (which replace the image's of the same
    device, and its root when they have one) -- None, api_bdms
    otherwise left as they are, image's id kept."""
    props = (image or {}).get('properties') or {}
    mapped = props.get('block_device_mapping')
    if not mapped or not _true(props.get('bdm_v2')):
        return (image or {}).get('id'), api_bdms
    if isinstance(mapped, str):
        mapped = jsonutils.loads(mapped)
    requested = list(api_bdms or ())
    devices = {b.get('device_name') for b in requested
               if b.get('device_name')}
    user_root = any(_int_or_none(b.get('boot_index')) == 0
                    for b in requested)
    merged = []
    for mapping in mapped:
        if mapping.get('device_name') in devices:
            continue
        if user_root and _int_or_none(mapping.get('boot_index')) == 0:
            continue
        entry = {k: v for k, v in mapping.items() if v is not None
                 and k not in ('snapshot_id', 'volume_id', 'image_id',
                               'no_device', 'volume_type')}
        entry['uuid'] = (mapping.get('snapshot_id')
                         or mapping.get('volume_id')
                         or mapping.get('image_id'))
        merged.append(entry)
    return None, merged + requested


def _true(value):
    return value is True or str(value).lower() in ('true', '1', 'yes')


def parse(image_ref, api_bdms):
    """(image id or None for a volume-backed server, [bdm dict]) of a
    create request's imageRef and block_device_mapping_v2."""
    bdms = [_one(b) for b in api_bdms or ()]
    indexes = sorted(b['boot_index'] for b in bdms
                     if b['boot_index'] is not None)
    if indexes != list(range(len(indexes))):
        raise exception.InvalidBDM(reason=_BAD_SEQUENCE)
    root = next((b for b in bdms if b['boot_index'] == 0), None)
    if root is None:
        if not image_ref:
            raise exception.InvalidInput(reason='Missing imageRef attribute')
        root = {'source_type': SOURCE_IMAGE, 'destination_type': DEST_LOCAL,
                'boot_index': 0, 'image_id': image_ref,
                'delete_on_termination': True}
        bdms.insert(0, root)
    elif (image_ref and root['destination_type'] == DEST_LOCAL
          and root['image_id'] != image_ref):
        # (A root volume with an imageRef beside it is booted from, as
        # Nova does: Tempest's stable-rescue tests boot so from a blank
        # volume. Only a local root from another image conflicts.)
        raise exception.InvalidBDM(reason=_BAD_SEQUENCE)
    root['device_name'] = root.get('device_name') or ROOT_DEVICE
    used = [b['device_name'] for b in bdms if b.get('device_name')]
    for bdm in bdms:
        if not bdm.get('device_name'):
            bdm['device_name'] = next_device_name(used)
            used.append(bdm['device_name'])
    if root['destination_type'] == DEST_LOCAL:
        return root['image_id'], bdms
    return None, bdms


def is_volume_backed(bdms):
    return bdm_obj.is_volume_backed(bdms)


def _volume(context, api, volume_id):
    try:
        return api.get(context, volume_id)
    except exception.VolumeNotFound:
        raise exception.InvalidBDM(
            reason='failed to get volume %s.' % volume_id)


def check(context, bdms, max_count, check_image):
    """Look the mappings' volumes and images up for context's project
    (400 for a missing or unusable one). check_image(image_id) checks
    an image (raises 400s) and returns it; the root image of an
    image-backed server is the caller's to check. Returns the image
    metadata a volume-backed server boots with ({} when its volume has
    none), or None for an image-backed server."""
    api = volume_api.API()
    seen = set()
    boot_meta = None
    for bdm in bdms:
        if bdm['source_type'] == SOURCE_VOLUME:
            volume_id = bdm['volume_id']
            if max_count > 1:
                raise exception.InvalidInput(
                    reason='Cannot attach one or more volumes to multiple '
                           'instances')
            if volume_id in seen:
                raise exception.InvalidBDM(
                    reason='volume %s is mapped twice.' % volume_id)
            seen.add(volume_id)
            volume = _volume(context, api, volume_id)
            # As Nova (before it looks at the status): a volume whose
            # bootable flag is off (blank, or os-set_bootable false) is
            # no root disk.
            if bdm['boot_index'] == 0 and not volume.get('bootable', True):
                raise exception.InvalidBDMVolumeNotBootable(id=volume_id)
            if volume['status'] != volume_api.AVAILABLE:
                raise exception.InvalidVolume(
                    reason="volume '%s' status must be 'available'. "
                           "Currently in '%s'" % (volume_id,
                                                  volume['status']))
            if bdm['boot_index'] == 0:
                image_id = volume['volume_image_metadata'].get('image_id')
                boot_meta = ({'id': image_id, 'min_disk': 0, 'min_ram': 0,
                              'name': None} if image_id else {})
        elif (bdm['source_type'] == SOURCE_IMAGE
              and bdm['destination_type'] == DEST_VOLUME):
            image = check_image(bdm['image_id'])
            if (image.get('min_disk') or 0) > bdm['volume_size']:
                raise exception.InvalidBDM(
                    reason='Volume is smaller than the minimum size '
                           'specified in image metadata.')
            if bdm['boot_index'] == 0:
                boot_meta = image
        elif bdm['source_type'] == SOURCE_SNAPSHOT:
            try:
                snapshot = api.get_snapshot(context, bdm['snapshot_id'])
            except exception.SnapshotNotFound:
                raise exception.InvalidBDM(
                    reason='failed to get snapshot %s.'
                           % bdm['snapshot_id'])
            if bdm['boot_index'] == 0:
                image_id = snapshot.get('image_id')
                boot_meta = ({'id': image_id, 'min_disk': 0, 'min_ram': 0,
                              'name': None} if image_id else {})
        elif bdm['source_type'] == SOURCE_BLANK and bdm['boot_index'] == 0:
            boot_meta = {}
    return boot_meta


def for_instances(bdms, count):
    """One copy of the mappings per instance of a multi-create."""
    return [copy.deepcopy(bdms) for _ in range(count)]


def reserve(context, instance_uuid, bdms):
    """Reserve every existing volume of bdms for the instance (an
    attachment without a connector): the attachment id goes into its
    mapping. All or none (InvalidVolume when one is taken meanwhile)."""
    api = volume_api.API()
    done = []
    try:
        for bdm in bdms:
            if bdm['source_type'] == SOURCE_VOLUME:
                bdm['attachment_id'] = api.attachment_create(
                    context, bdm['volume_id'], instance_uuid)['id']
                done.append(bdm)
    except Exception:
        release(context, done)
        raise


def release(context, bdms):
    """Delete the attachments of bdms (dicts or objects); missing ones
    are fine."""
    api = volume_api.API()
    for bdm in bdms:
        attachment_id = _get(bdm, 'attachment_id')
        if not attachment_id:
            continue
        try:
            api.attachment_delete(context, attachment_id)
        except exception.VolumeAttachmentNotFound:
            pass


def _get(bdm, name):
    return bdm.get(name) if isinstance(bdm, dict) else getattr(bdm, name)


def cleanup_volumes(context, bdms, api=None):
    """What deleting a server does to its volumes, wherever it is
    deleted (its compute, or the API when the compute cannot): every
    attachment is deleted, then the volumes of delete_on_termination
    mappings. Errors are logged, never raised (the server goes away
    anyway, as in Nova)."""
    api = api or volume_api.API()
    for bdm in bdms:
        if _get(bdm, 'destination_type') != DEST_VOLUME:
            continue
        try:
            release(context, [bdm])
            if _get(bdm, 'delete_on_termination') and _get(bdm,
                                                           'volume_id'):
                api.delete(context, _get(bdm, 'volume_id'))
        except exception.NovaLiteException as exc:
            LOG.warning('Could not clean up volume %s: %s',
                        _get(bdm, 'volume_id'), exc)


def check_disk_devices(count):
    """TooManyDiskDevices (403) when a server would have count disk
    devices, more than [compute] max_disk_devices_to_attach allows."""
    limit = CONF.compute.max_disk_devices_to_attach
    if 0 <= limit < count:
        raise exception.TooManyDiskDevices(maximum=limit)


def next_device_name(used):
    """The first /dev/vdX (b on) not among the device names used."""
    taken = {name.rsplit('/', 1)[-1][2:] for name in used if name}
    for letter in string.ascii_lowercase[1:]:
        if letter not in taken:
            return '/dev/vd%s' % letter
    raise exception.InvalidInput(reason='No free device name left.')
