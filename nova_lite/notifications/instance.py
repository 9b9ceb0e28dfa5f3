"""Sending instance.* notifications: the helpers services call.

- notify_about_instance_action(context, instance, host, action, phase,
  exception=None, source=...): instance.<action>[.<phase>] with an
  InstanceActionPayload (a fault when exception is given; phase 'error'
  is sent at ERROR priority). Server actions call it around their work:
  power_off, power_on, reboot, pause, unpause, suspend, resume, rebuild,
  resize (phases 'start' and 'end'), lock and unlock (no phase), delete;
  a move's resize, resize_finish, resize_confirm, resize_revert.
- notify_about_resize_prep, notify_about_instance_exists: a move's
  instance.resize_prep.start/end (with the new flavor) and
  instance.exists.
- action(context, instance, host, name, error_phase=False): a context
  manager sending instance.<name>.start on entry and .end when its block
  succeeds (and .error with the fault when it raises, if error_phase:
  Nova documents an error phase for reboot, not for power_off etc.).
- notify_about_instance_create(context, instance, host, phase,
  exception=None): instance.create.start/end/error (compute builds).
- register_hooks(): hooks the instance.update sender onto
  Instance.save(), which then reports each committed change of vm_state
  or task_state (old and new in the payload's state_update), wherever
  the save runs (the API, a conductor, or a compute's cell conductor).
  Every service calls it as it starts (nova_lite.service.
  prepare_process); importing this module registers nothing.

None of them raises: a notification that cannot be built or sent is
logged and the operation it reports goes on. None of them builds a
payload unless notifications are enabled (base.enabled(): a driver is
configured), as Nova checks before it builds one.
"""
import contextlib

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite.notifications import base
from nova_lite.notifications.objects import instance as payloads
from nova_lite.notifications.objects import instance_image
from nova_lite.notifications.objects import instance_move
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

SOURCE_COMPUTE = constants.COMPUTE_BINARY        # 'nova-compute'
SOURCE_CONDUCTOR = constants.CONDUCTOR_BINARY    # 'nova-conductor'
SOURCE_API = 'nova-api'                          # as Nova's API names itself
START, END, ERROR = base.START, base.END, base.PHASE_ERROR


def _send(context, notification_cls, payload, host, source, action, phase):
    notification = notification_cls(
        priority=base.ERROR if phase == ERROR else base.INFO,
        publisher=base.NotificationPublisher(host=host or CONF.host,
                                             source=source),
        event_type=base.EventType(object='instance', action=action,
                                  phase=phase),
        payload=payload)
    notification.emit(context)


@base.if_enabled
def notify_about_instance_action(context, instance, host, action,
                                 phase=None, exception=None,
                                 source=SOURCE_COMPUTE):
    """Send instance.<action>[.<phase>] about instance from host."""
    try:
        fault = (None if exception is None else
                 payloads.ExceptionPayload.from_exception(exception))
        _send(context, payloads.InstanceActionNotification,
              payloads.InstanceActionPayload(context, instance, fault=fault),
              host, source, action, phase)
    except Exception:
        LOG.exception('Could not notify instance.%s.%s of %s', action,
                      phase, getattr(instance, 'uuid', None))


@contextlib.contextmanager
def action(context, instance, host, name, error_phase=False,
           source=SOURCE_COMPUTE):
    """instance.<name>.start, then .end after the block (see module)."""
    notify_about_instance_action(context, instance, host, name, START,
                                 source=source)
    try:
        yield
    except Exception as exc:
        if error_phase:
            notify_about_instance_action(context, instance, host, name,
                                         ERROR, exception=exc,
                                         source=source)
        raise
    notify_about_instance_action(context, instance, host, name, END,
                                 source=source)


@base.if_enabled
def _notify_with_image(context, instance, host, name, phase, image_id,
                       exception=None):
    """instance.rescue.<phase> (rescue image) or instance.snapshot.<phase>
    (snapshot image)."""
    try:
        fault = (None if exception is None else
                 payloads.ExceptionPayload.from_exception(exception))
        if name == 'rescue':
            notification = instance_image.InstanceActionRescueNotification
            payload = instance_image.InstanceActionRescuePayload(
                context, instance, image_id, fault=fault)
        else:
            notification = instance_image.InstanceActionSnapshotNotification
            payload = instance_image.InstanceActionSnapshotPayload(
                context, instance, image_id, fault=fault)
        _send(context, notification, payload, host, SOURCE_COMPUTE, name,
              phase)
    except Exception:
        LOG.exception('Could not notify instance.%s.%s of %s', name, phase,
                      getattr(instance, 'uuid', None))


@contextlib.contextmanager
def image_action(context, instance, host, name, image_id,
                 error_phase=False):
    """As action(), for 'rescue' (image_id: the rescue image) and
    'snapshot' (image_id: the image a snapshot or backup goes into),
    whose payloads name that image as Nova's do."""
    _notify_with_image(context, instance, host, name, START, image_id)
    try:
        yield
    except Exception as exc:
        if error_phase:
            _notify_with_image(context, instance, host, name, ERROR,
                               image_id, exception=exc)
        raise
    _notify_with_image(context, instance, host, name, END, image_id)


@base.if_enabled
def notify_about_instance_create(context, instance, host, phase,
                                 exception=None):
    """Send instance.create.<phase> (start, end or error) from a
    compute host."""
    try:
        fault = (None if exception is None else
                 payloads.ExceptionPayload.from_exception(exception))
        _send(context, payloads.InstanceCreateNotification,
              payloads.InstanceCreatePayload(context, instance, fault=fault),
              host, SOURCE_COMPUTE, 'create', phase)
    except Exception:
        LOG.exception('Could not notify instance.create.%s of %s', phase,
                      getattr(instance, 'uuid', None))


@base.if_enabled
def notify_about_resize_prep(context, instance, host, new_flavor, phase):
    """Send instance.resize_prep.<phase> (start or end) with the flavor
    the server moves to."""
    try:
        _send(context, instance_move.InstanceActionResizePrepNotification,
              instance_move.InstanceActionResizePrepPayload(
                  context, instance, new_flavor),
              host, SOURCE_COMPUTE, 'resize_prep', phase)
    except Exception:
        LOG.exception('Could not notify instance.resize_prep.%s of %s',
                      phase, getattr(instance, 'uuid', None))


@base.if_enabled
def notify_about_volume_swap(context, instance, host, phase, old_volume_id,
                             new_volume_id, exception=None):
    """Send instance.volume_swap.<phase> (start, end or error)."""
    try:
        fault = (None if exception is None else
                 payloads.ExceptionPayload.from_exception(exception))
        _send(context, instance_move.InstanceActionVolumeSwapNotification,
              instance_move.InstanceActionVolumeSwapPayload(
                  context, instance, old_volume_id, new_volume_id,
                  fault=fault),
              host, SOURCE_COMPUTE, 'volume_swap', phase)
    except Exception:
        LOG.exception('Could not notify instance.volume_swap.%s of %s',
                      phase, getattr(instance, 'uuid', None))


@base.if_enabled
def notify_about_instance_exists(context, instance, host):
    """Send instance.exists: the usage of the audit period so far (a
    move starts: what ran with the old flavor ends here)."""
    try:
        _send(context, instance_move.InstanceExistsNotification,
              instance_move.InstanceExistsPayload(context, instance),
              host, SOURCE_COMPUTE, 'exists', None)
    except Exception:
        LOG.exception('Could not notify instance.exists of %s',
                      getattr(instance, 'uuid', None))


@base.if_enabled
def notify_about_instance_update(context, instance, old_vm_state,
                                 old_task_state, host=None,
                                 source=SOURCE_COMPUTE):
    """Send instance.update: instance (as saved) came from old_vm_state
    and old_task_state. host: the publisher (default: the instance's
    host, else this node)."""
    try:
        state_update = payloads.InstanceStateUpdatePayload(
            old_state=old_vm_state, state=instance.vm_state,
            old_task_state=old_task_state,
            new_task_state=instance.task_state)
        _send(context, payloads.InstanceUpdateNotification,
              payloads.InstanceUpdatePayload(context, instance,
                                             state_update),
              host or instance.host, source, 'update', None)
    except Exception:
        LOG.exception('Could not notify instance.update of %s',
                      getattr(instance, 'uuid', None))


def _state_changed(context, instance, old_vm_state, old_task_state):
    when = CONF.notifications.notify_on_state_change
    if not when or when == 'none' or not base.enabled():
        return
    if when == 'vm_and_task_state' or (when == 'vm_state'
                                       and old_vm_state != instance.vm_state):
        notify_about_instance_update(context, instance, old_vm_state,
                                     old_task_state)


def register_hooks():
    """Send instance.update from Instance.save (idempotent)."""
    if _state_changed not in instance_obj.STATE_CHANGE_HOOKS:
        instance_obj.STATE_CHANGE_HOOKS.append(_state_changed)
