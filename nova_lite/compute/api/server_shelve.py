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
  that does not exist), saved on the server and its request spec.
- rescue: ACTIVE, SHUTOFF or ERROR; a volume-backed server only from
  2.87, with a rescue image that names its rescue device or bus
  (hw_rescue_device, hw_rescue_bus) (400 otherwise).
- unrescue: RESCUED.
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_images
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action as actions

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


def unshelve(context, instance, availability_zone=UNSET):
    """Unshelve the server: task unshelving, handed to the super
    conductor. availability_zone (2.77): where an offloaded server goes
    (UNSET: where its request spec says)."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'unshelve', UNSHELVE_VM_STATES)
    if availability_zone is not UNSET:
        if instance.vm_state != instance_obj.SHELVED_OFFLOADED:
            raise exception.UnshelveInstanceInvalidState(
                instance_uuid=instance.uuid, state=instance.vm_state)
        if availability_zone != CONF.default_availability_zone:
            raise exception.InvalidInput(
                reason='The requested availability zone is not available')
    conductor = conductor_rpcapi.ComputeTaskAPI()
    if not conductor.can_send(conductor_rpcapi.UNSHELVE_VERSION):
        raise exception.ComputeTooOldForAction(
            action=actions.UNSHELVE, instance_uuid=instance.uuid,
            host='the super conductor')
    if instance.vm_state == instance_obj.SHELVED:
        server_actions.check_compute(instance, actions.UNSHELVE, _VERSION)
    elif availability_zone is not UNSET:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
        spec.availability_zone = availability_zone
        spec.save()
        instance.availability_zone = availability_zone
    instance.task_state = instance_obj.UNSHELVING
    try:
        with instance_obj.transaction(instance.context):
            instance.save(expected_task_state=[None])
            instance_events.record_action(instance.context, instance,
                                          actions.UNSHELVE)
    except exception.UnexpectedTaskStateError as exc:
        raise _task_state_conflict(instance, 'unshelve', exc)
    conductor.unshelve_instance(context, instance)


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
