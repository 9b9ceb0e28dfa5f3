"""The compute API of shelve, shelveOffload, unshelve, rescue and
unrescue (POST /servers/{id}/action).

Each is refused on a locked server for non-administrators (409) and in
a state Nova refuses it in (409), then, as every server action
(server_actions.start_on_compute): the task state set with a
compare-and-swap on "no task", the instance action recorded, and a cast
to the server's compute (compute RPC 1.9; 409 for an older compute,
before anything is written). Unshelve goes to the super conductor
instead (compute_task RPC 1.4), which schedules an offloaded server
anew within its cell.

- shelve: ACTIVE, SHUTOFF, PAUSED or SUSPENDED. An image-backed server
  is snapshotted into a new image '<name>-shelved' (queued here, made
  active by the compute); a volume-backed one is offloaded at once
  (no image), as Nova does.
- shelveOffload: SHELVED.
- unshelve: SHELVED or SHELVED_OFFLOADED; from 2.77 an availability
  zone for an offloaded server (409 for a SHELVED one, 400 for a zone
  that does not exist), saved on the server and its request spec; from
  2.91 null unpins it, and administrators may name a host (400 for an
  unknown one, 409 for one outside the zone the server is pinned to;
  compute_task RPC 1.5).
- rescue: ACTIVE, SHUTOFF or ERROR; a volume-backed server only from
  2.87, with a rescue image that names its rescue device or bus
  (hw_rescue_device, hw_rescue_bus) (400 otherwise).
- unrescue: RESCUED.
"""
from nova_lite.compute.api import availability_zones
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_images
from nova_lite.compute.api import servers as compute_servers
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action as actions
from nova_lite import quota

SHELVE_VM_STATES = (instance_obj.ACTIVE, instance_obj.STOPPED,
                    instance_obj.PAUSED, instance_obj.SUSPENDED)
UNSHELVE_VM_STATES = (instance_obj.SHELVED, instance_obj.SHELVED_OFFLOADED)
RESCUE_VM_STATES = (instance_obj.ACTIVE, instance_obj.STOPPED,
                    instance_obj.ERROR)
# Image properties that make an image a rescue image for a
# volume-backed server (stable device rescue).
RESCUE_DEVICE_PROPERTIES = ('hw_rescue_device', 'hw_rescue_bus')
_VERSION = compute_rpcapi.SHELVE_RESCUE_VERSION
UNSET = object()


def _task_state_conflict(instance, action, exc):
    return exception.InstanceInvalidState(
        action=action, instance_uuid=instance.uuid, attr='task_state',
        state=exc.kwargs.get('actual'))


# --- shelve -----------------------------------------------------------------

def shelve(context, instance):
    """Shelve the server of instance (as server_actions.get returns
    it): task shelving (image-backed, returning the image made for it)
    or shelving_offloading (volume-backed, None)."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'shelve', SHELVE_VM_STATES)
    server_actions.check_compute(instance, actions.SHELVE, _VERSION)
    if not instance.image_ref:
        server_actions.start_on_compute(
            instance, actions.SHELVE, 'shelve_offload_instance',
            instance_obj.SHELVING_OFFLOADING, [None], version=_VERSION)
        return None
    image = image_api.API().create(
        context, '%s-shelved' % instance.display_name, status='queued',
        properties=server_images.snapshot_properties(context, instance),
        owner=instance.project_id, min_disk=instance.flavor.root_gb or 0)
    try:
        server_actions.start_on_compute(
            instance, actions.SHELVE, 'shelve_instance',
            instance_obj.SHELVING, [None], version=_VERSION,
            image_id=image['id'])
    except Exception:
        delete_image(context, image['id'])
        raise
    return image


def shelve_offload(context, instance):
    """Offload a SHELVED server: task shelving_offloading."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'shelveOffload',
                               (instance_obj.SHELVED,))
    server_actions.start_on_compute(
        instance, actions.SHELVE_OFFLOAD, 'shelve_offload_instance',
        instance_obj.SHELVING_OFFLOADING, [None], version=_VERSION)


def _check_unshelve_quota(context, instance):
    """An offloaded server holds no allocation: counting usage from
    placement, its cores and ram must fit again (TooManyInstances, 403,
    as Nova). Counting from the cells it never stopped counting."""
    if not quota.from_placement():
        return
    deltas = {'cores': instance.flavor.vcpus,
              'ram': instance.flavor.memory_mb}
    if quota.is_unified():
        deltas['class:DISK_GB'] = ((instance.flavor.root_gb or 0) +
                                   (instance.flavor.ephemeral_gb or 0))
    quota.check_deltas(context, instance.project_id, instance.user_id,
                       deltas)


def unshelve(context, instance, availability_zone=UNSET, host=None):
    """Unshelve the server: task unshelving, handed to the super
    conductor. availability_zone (2.77): where an offloaded server goes
    (UNSET: where its request spec says; None, from 2.91: anywhere, the
    server unpinned); host (2.91, administrators): the compute an
    offloaded server goes to, in the zone the server is pinned to (or
    asked for). Nova's rules: either is 409 for a SHELVED server; an
    unknown zone or host 400; a host outside the zone 409."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'unshelve', UNSHELVE_VM_STATES)
    moves = availability_zone is not UNSET or host
    if moves and instance.vm_state != instance_obj.SHELVED_OFFLOADED:
        raise exception.UnshelveInstanceInvalidState(
            instance_uuid=instance.uuid, state=instance.vm_state)
    if availability_zone not in (UNSET, None):
        availability_zones.check_requested_zone(context, availability_zone)
    if host:
        compute_servers.check_requested_destination(context, host)
    conductor = conductor_rpcapi.ComputeTaskAPI()
    for version, needed in ((conductor_rpcapi.UNSHELVE_VERSION, True),
                            (conductor_rpcapi.UNSHELVE_HOST_VERSION,
                             bool(host))):
        if needed and not conductor.can_send(version):
            raise exception.ComputeTooOldForAction(
                action=actions.UNSHELVE, instance_uuid=instance.uuid,
                host='the super conductor')
    if instance.vm_state == instance_obj.SHELVED:
        server_actions.check_compute(instance, actions.UNSHELVE, _VERSION)
    else:
        _check_unshelve_quota(context, instance)
        if moves:
            _pin(context, instance, availability_zone, host)
    instance.task_state = instance_obj.UNSHELVING
    try:
        with instance_obj.transaction(instance.context):
            instance.save(expected_task_state=[None])
            instance_events.record_action(instance.context, instance,
                                          actions.UNSHELVE)
    except exception.UnexpectedTaskStateError as exc:
        raise _task_state_conflict(instance, 'unshelve', exc)
    conductor.unshelve_instance(context, instance, host=host)


def _pin(context, instance, availability_zone, host):
    """Save the zone an unshelve asked for (None unpins) on the server
    and its request spec, once a host it names is in the zone the server
    ends up pinned to (UnshelveHostNotInAZ, 409, otherwise)."""
    spec = objects.RequestSpec.get_by_instance_uuid(context, instance.uuid)
    zone = (spec.availability_zone if availability_zone is UNSET
            else availability_zone)
    if host and zone and \
            availability_zones.host_zone(context, host) != zone:
        raise exception.UnshelveHostNotInAZ(host=host, availability_zone=zone)
    if availability_zone is not UNSET:
        spec.availability_zone = availability_zone
        spec.save()
        instance.availability_zone = availability_zone


def delete_image(context, image_id):
    """Delete image_id (none is fine): a refused shelve's, a deleted
    shelved server's."""
    if not image_id:
        return
    try:
        image_api.API().delete(context.elevated(), image_id)
    except exception.ImageNotFound:
        pass


# --- rescue -----------------------------------------------------------------

def _rescue_image(context, instance, rescue_image_ref, volume_backed):
    """The image the guest is rescued from (the request's, else the
    server's own); InstanceNotRescuable (400) for none, or for a
    volume-backed server's image that names no rescue device."""
    image_id = rescue_image_ref or instance.image_ref
    if not image_id:
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason='Cannot rescue a volume-backed server without a rescue '
                   'image.')
    try:
        image = image_api.API().get(context, image_id)
    except exception.ImageNotFound:
        raise exception.InvalidInput(
            reason='Image %s could not be found.' % image_id)
    properties = image.get('properties') or {}
    if volume_backed and not any(properties.get(p)
                                 for p in RESCUE_DEVICE_PROPERTIES):
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason='Cannot rescue a volume-backed server with an image '
                   'that names no hw_rescue_device or hw_rescue_bus.')
    return image['id']


def rescue(context, instance, password, rescue_image_ref=None,
           allow_volume_backed=False):
    """Rescue the server (task rescuing) from rescue_image_ref (None:
    its own image) with password. allow_volume_backed: the request's
    microversion rescues volume-backed servers (2.87)."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'rescue', RESCUE_VM_STATES)
    volume_backed = not instance.image_ref
    if volume_backed and not allow_volume_backed:
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason='Cannot rescue a volume-backed instance')
    image_id = _rescue_image(context, instance, rescue_image_ref,
                             volume_backed)
    server_actions.start_on_compute(
        instance, actions.RESCUE, 'rescue_instance', instance_obj.RESCUING,
        [None], version=_VERSION, rescue_image_ref=image_id,
        rescue_password=password)


def unrescue(context, instance):
    """Unrescue a RESCUED server: task unrescuing."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'unrescue', (instance_obj.RESCUED,))
    server_actions.start_on_compute(
        instance, actions.UNRESCUE, 'unrescue_instance',
        instance_obj.UNRESCUING, [None], version=_VERSION)
