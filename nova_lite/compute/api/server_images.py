"""The compute API of the two actions that take a server to or from an
image: rebuild (the guest re-spawned from an image, on its own host) and
snapshot (createImage: a new image of the server in the image service).

Both act on the server's instance in its cell. What a user can get wrong
is checked before anything is written (the caller has found the server,
404 for another project's, and checked its policy, 403): the lock (409,
rebuild only, as in Nova), the vm and task states (409), the image
(400). Then, as every server action does
(nova_lite.compute.api.server_actions.start_on_compute): the first task
state is set with a compare-and-swap on "no task" (of two racing
actions, or an action and a delete, exactly one wins and the other gets
a 409), the instance action (rebuild, createImage) is recorded and a
cast to the server's compute (compute RPC 1.5; 409 for an older compute,
before anything is written) does the rest, recording its events and
clearing the task state.
"""
from oslo_serialization import jsonutils

from nova_lite.compute.api import server_actions
from nova_lite.compute.api import servers as compute_servers
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action as actions
from nova_lite.volume import api as volume_api

# vm_states an action is allowed in (with no task running), as in Nova.
REBUILD_VM_STATES = (instance_obj.ACTIVE, instance_obj.STOPPED,
                     instance_obj.ERROR)
SNAPSHOT_VM_STATES = (instance_obj.ACTIVE, instance_obj.STOPPED,
                      instance_obj.PAUSED, instance_obj.SUSPENDED)
# Image properties a snapshot does not inherit from its server's image.
_NOT_INHERITED = frozenset(['instance_uuid', 'image_type',
                            'base_image_ref', 'owner_id', 'user_id',
                            'image_location', 'boot_roles'])


# --- rebuild ---------------------------------------------------------------

def _set_keypair(context, instance, key_name):
    """The caller's key pair key_name (as Nova: the requester's, not the
    server owner's) on the instance; None unsets it."""
    if key_name is None:
        instance.key_name = instance.key_data = None
        instance.keypairs = []
        return
    try:
        keypair = objects.KeyPair.get_by_name(context, context.user_id,
                                              key_name)
    except exception.NotFound:
        raise exception.InvalidInput(reason='Invalid key_name provided.')
    instance.key_name, instance.key_data = keypair.name, keypair.public_key
    instance.keypairs = [keypair.name]


_UNSET = object()


def rebuild(context, instance, image_id, admin_password=None,
            preserve_ephemeral=False, name=None, metadata=None,
            access_ip_v4=_UNSET, access_ip_v6=_UNSET, description=_UNSET,
            key_name=_UNSET, user_data=_UNSET, auto_disk_config=None,
            hostname=None, reimage_boot_volume=False):
    """Rebuild the server of instance (as server_actions.get returns
    it) from image_id on its host; returns the instance in task_state
    rebuilding (vm_state unchanged).

    The values given replace the server's (metadata: all of it); key_name
    and user_data None unset them; _UNSET leaves a value as it is.
    auto_disk_config None: the new image's default (as on create).
    hostname (2.90): the guest's new host name (None: unchanged).
    On the compute: rebuilding -> rebuild_block_device_mapping ->
    rebuild_spawning -> None, vm_state active (stopped if it was).
    reimage_boot_volume (microversion 2.93): a volume-backed server
    may take any image, its root volume reimaged by the volume service
    (compute RPC 1.16: 409 for an older compute); without it only the
    image its volume came from (400), the volume left as it is."""
    # At most [DEFAULT] metadata_items on a rebuild (403, as on create).
    if (metadata is not None and CONF.metadata_items >= 0
            and len(metadata) > CONF.metadata_items):
        raise exception.MetadataLimitExceeded(allowed=CONF.metadata_items)
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'rebuild', REBUILD_VM_STATES)
    volume_backed = not instance.image_ref
    image = compute_servers.check_image(
        context, image_id, instance.flavor,
        not_found=exception.ImageNotFoundForRebuild(),
        volume_backed=volume_backed)
    reimage = volume_backed and reimage_boot_volume
    if reimage:
        server_actions.check_compute(
            instance, actions.REBUILD,
            compute_rpcapi.REIMAGE_BOOT_VOLUME_VERSION)
    elif volume_backed:
        _check_volume_backed_rebuild(context, instance, image['id'])
    instance.auto_disk_config = compute_servers.disk_config_for(
        image, auto_disk_config)
    if key_name is not _UNSET:
        _set_keypair(context, instance, key_name)
    if not volume_backed:
        instance.image_ref = image['id']
        instance.system_metadata = \
            compute_servers.with_image_system_metadata(
                instance.system_metadata, image, instance.flavor)
    if name is not None:
        instance.display_name = name
    if hostname is not None:
        instance.hostname = hostname
    if metadata is not None:
        instance.metadata = dict(metadata)
    for field, value in (('access_ip_v4', access_ip_v4),
                         ('access_ip_v6', access_ip_v6),
                         ('display_description', description),
                         ('user_data', user_data)):
        if value is not _UNSET:
            setattr(instance, field, value)
    instance.progress = 0
    server_actions.start_on_compute(
        instance, actions.REBUILD, 'rebuild_instance',
        instance_obj.REBUILDING, [None],
        version=(compute_rpcapi.REIMAGE_BOOT_VOLUME_VERSION if reimage
                 else compute_rpcapi.REBUILD_SNAPSHOT_VERSION),
        image_ref=image['id'], admin_password=admin_password,
        preserve_ephemeral=preserve_ephemeral,
        **({'reimage_boot_volume': True} if reimage else {}))
    return instance


def _check_volume_backed_rebuild(context, instance, image_id):
    """A volume-backed server is rebuilt only with the image its root
    volume came from (as Nova before microversion 2.93): 400
    otherwise."""
    root = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance.context, instance.uuid).root_bdm()
    volume_image = None
    if root is not None and root.volume_id:
        try:
            volume_image = volume_api.API().get(
                context, root.volume_id)['volume_image_metadata'].get(
                'image_id')
        except exception.VolumeNotFound:
            pass
    if image_id != volume_image:
        raise exception.InvalidInput(
            reason='Unable to rebuild with a different image for a '
                   'volume-backed server.')


# --- snapshot (createImage) ------------------------------------------------

def _snapshot_properties(context, instance, metadata):
    """The new image's properties: those of the server's image (when it
    can still be read), the snapshot's own, then the request's."""
    properties = {}
    base = instance.image_ref
    if base:
        try:
            properties.update(
                (k, v) for k, v in image_api.API().get(
                    context, base)['properties'].items()
                if k not in _NOT_INHERITED)
        except exception.ImageNotFound:
            pass
    properties.update({'instance_uuid': instance.uuid,
                       'image_type': 'snapshot',
                       'base_image_ref': base or '',
                       'owner_id': instance.project_id,
                       'user_id': context.user_id})
    properties.update(metadata or {})
    return properties


def snapshot_properties(context, instance, metadata=None):
    """The properties of a new snapshot image of instance (shelve's
    too): its image's, the snapshot's own, then metadata."""
    return _snapshot_properties(context, instance, metadata)


def snapshot(context, instance, name, metadata=None):
    """Snapshot the server of instance (as server_actions.get returns
    it) into a new image (status queued, owned by the server's project);
    returns the image. The compute uploads it (image active) and clears
    the task state: image_snapshot -> image_pending_upload ->
    image_uploading -> None. On a failure the image is deleted."""
    if 0 <= CONF.metadata_items < len(metadata or {}):
        raise exception.ImageMetadataLimitExceeded()
    server_actions.check_state(instance, 'createImage', SNAPSHOT_VM_STATES)
    server_actions.check_compute(
        instance, actions.CREATE_IMAGE,
        compute_rpcapi.REBUILD_SNAPSHOT_VERSION)
    image = image_api.API().create(
        context, name, status='queued',
        properties=_snapshot_properties(context, instance, metadata),
        owner=instance.project_id, min_disk=instance.flavor.root_gb or 0)
    try:
        server_actions.start_on_compute(
            instance, actions.CREATE_IMAGE, 'snapshot_instance',
            instance_obj.IMAGE_SNAPSHOT, [None],
            version=compute_rpcapi.REBUILD_SNAPSHOT_VERSION,
            image_id=image['id'])
    except Exception:
        _delete_image(context, image['id'])
        raise
    return image


# The keys of a mapping in a volume-backed snapshot's
# block_device_mapping property (Nova's BlockDeviceMapping
# get_image_mapping: the mapping without its server, volume and
# attachment).
_IMAGE_MAPPING_KEYS = ('boot_index', 'delete_on_termination',
                       'destination_type', 'device_name', 'device_type',
                       'disk_bus', 'guest_format', 'image_id', 'no_device',
                       'snapshot_id', 'source_type', 'tag', 'volume_id',
                       'volume_size', 'volume_type')


def _image_mapping(bdm, snapshot_id=None):
    mapping = {key: getattr(bdm, key, None) for key in _IMAGE_MAPPING_KEYS}
    if snapshot_id is not None:
        mapping.update(source_type='snapshot', snapshot_id=snapshot_id,
                       volume_id=None, image_id=None)
    return mapping


def snapshot_volume_backed(context, instance, name, metadata=None):
    """createImage of a volume-backed server, as Nova does it without
    its compute: a snapshot of each of its volumes (forced: they are in
    use) and a new image with no data (size 0, active) whose properties
    name them (block_device_mapping, bdm_v2, root_device_name) besides
    the usual snapshot properties. Recorded as action createImage, event
    api_snapshot_instance. Returns the image."""
    if 0 <= CONF.metadata_items < len(metadata or {}):
        raise exception.ImageMetadataLimitExceeded()
    server_actions.check_state(instance, 'createImage', SNAPSHOT_VM_STATES)
    properties = _snapshot_properties(context, instance, metadata)
    for key in ('block_device_mapping', 'bdm_v2', 'root_device_name'):
        properties.pop(key, None)
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance.context, instance.uuid)
    root = bdms.root_bdm()
    if root is not None and root.device_name:
        properties['root_device_name'] = root.device_name
    instance_events.record_action(instance.context, instance,
                                  actions.CREATE_IMAGE)
    volumes = volume_api.API()
    mapping = []
    with instance_events.EventReporter(instance.context,
                                       'api_snapshot_instance', CONF.host,
                                       instance.uuid):
        for bdm in bdms:
            if not bdm.is_volume:
                mapping.append(_image_mapping(bdm))
                continue
            volume = volumes.get(context, bdm.volume_id)
            snap = volumes.create_snapshot_force(
                context, bdm.volume_id, 'snapshot for %s' % name,
                volume.get('description'))
            mapping.append(_image_mapping(bdm, snap['id']))
    if mapping:
        # Image properties are strings, as Glance keeps Nova's.
        properties['block_device_mapping'] = jsonutils.dumps(mapping)
        properties['bdm_v2'] = 'True'
    return image_api.API().create(
        context, name, status='active', size=0, properties=properties,
        owner=instance.project_id, min_disk=instance.flavor.root_gb or 0,
        min_ram=0)


def _delete_image(context, image_id):
    try:
        image_api.API().delete(context.elevated(), image_id)
    except exception.ImageNotFound:
        pass
