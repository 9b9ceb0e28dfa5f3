"""The compute API for server actions (POST /servers/{id}/action): the
API side of stop, start, reboot, pause, unpause, suspend, resume, lock,
unlock and resetState.

Each action that the hypervisor does is checked here against the
states the Compute API allows it in (InstanceInvalidState, 409, as
Nova words it), refused on a locked server for non-administrators
(InstanceIsLocked, 409), then: the task state is set with a
compare-and-swap save (so two racing requests cannot both pass) and
the instance action recorded, in one transaction of the instance's
cell, and the work is cast to the instance's compute (RPC 1.4). The
compute writes every later state. Lock, unlock and resetState are
API-only writes of columns no compute writes.

Adding an action: a function here that checks states with
``check_state``, then ``start_on_compute`` (or writes and ``record_action``);
an instance_action name in nova_lite.objects.instance_action; a compute
RPC method (rpcapi + manager, wrapped with
instance_events.wrap_instance_event).
"""
import contextlib
import functools

from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions

SOFT, HARD = 'SOFT', 'HARD'
PAUSED, SUSPENDED = inst_obj.PAUSED, inst_obj.SUSPENDED
POWERING_OFF, POWERING_ON = inst_obj.POWERING_OFF, inst_obj.POWERING_ON
PAUSING, UNPAUSING = inst_obj.PAUSING, inst_obj.UNPAUSING
SUSPENDING, RESUMING = inst_obj.SUSPENDING, inst_obj.RESUMING
REBOOTING, REBOOTING_HARD = inst_obj.REBOOTING, inst_obj.REBOOTING_HARD

ALLOW_SOFT_REBOOT = (inst_obj.ACTIVE,)
ALLOW_HARD_REBOOT = ALLOW_SOFT_REBOOT + (inst_obj.STOPPED, PAUSED,
                                         SUSPENDED, inst_obj.ERROR)
# Task states a hard reboot may interrupt.
ALLOW_REBOOT = (None, REBOOTING, inst_obj.REBOOT_PENDING,
                inst_obj.REBOOT_STARTED, RESUMING, REBOOTING_HARD, UNPAUSING,
                PAUSING, SUSPENDING)
# Values of locked_by.
OWNER, ADMIN = 'owner', 'admin'
LOCKED_REASON = 'locked_reason'

_rpcapi = None


def compute_rpc():
    global _rpcapi
    if _rpcapi is None:
        _rpcapi = compute_rpcapi.ComputeAPI()
    return _rpcapi


def get_mapping(context, server_id):
    """The server's instance mapping (its owner's project and user, and
    its cell); InstanceNotFound (404) for none, or for another project's
    server unless the caller is an administrator."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, server_id)
    except exception.InstanceMappingNotFound:
        raise exception.InstanceNotFound(instance_id=server_id)
    if not context.is_admin and mapping.project_id != context.project_id:
        raise exception.InstanceNotFound(instance_id=server_id)
    return mapping


def get(context, server_id, read_deleted='no'):
    """The server as an Instance whose context is targeted at its cell
    (a server still being scheduled: its build request's instance, in
    vm_state building, that no action accepts). InstanceNotFound (404)
    for none, or for another project's server unless the caller is an
    administrator."""
    return _get_mapped(context, server_id, get_mapping(context, server_id),
                       read_deleted)


def _get_mapped(context, server_id, mapping, read_deleted='no'):
    """get() once the server's mapping is read."""
    if mapping.cell_mapping is None:
        try:
            return _scheduling(objects.BuildRequest.get_by_instance_uuid(
                context, server_id).instance)
        except exception.BuildRequestNotFound:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, server_id)
            if mapping.cell_mapping is None:
                raise exception.InstanceNotFound(instance_id=server_id)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        return objects.Instance.get_by_uuid(cctxt, server_id,
                                            read_deleted=read_deleted)


# What a build request's instance may leave unset, and what it means.
_SCHEDULING_DEFAULTS = (('vm_state', inst_obj.BUILDING),
                        ('task_state', inst_obj.SCHEDULING),
                        ('locked', False), ('locked_by', None),
                        ('host', None), ('project_id', None),
                        ('user_id', None))


@contextlib.contextmanager
def acting_on(context, mapping):
    """The server of mapping (get_mapping's) as get() returns it, for an
    action that writes and casts (start_on_compute): the instance is
    read in a write transaction of its cell that the action's writes
    then join, so the states it is checked in are the ones its
    compare-and-swap finds, in one transaction instead of two. The
    casts the action makes go out once that transaction has committed
    (the compute must find the task state it is sent for); nothing is
    written or cast when the block raises. A server still being
    scheduled (no cell yet) is get()'s. The caller checks policy before
    (against the mapping's owner), never inside the transaction."""
    server_id = mapping.instance_uuid
    if mapping.cell_mapping is None:
        yield _get_mapped(context, server_id, mapping)
        return
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        cctxt.casts_after_commit = casts = []
        with inst_obj.transaction(cctxt):
            yield objects.Instance.get_by_uuid(cctxt, server_id)
        del cctxt.casts_after_commit
        for cast in casts:
            cast()


def _scheduling(instance):
    for name, default in _SCHEDULING_DEFAULTS:
        if not instance.obj_attr_is_set(name):
            setattr(instance, name, default)
    return instance


def check_lock(context, instance):
    if instance.locked and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def check_state(instance, action, vm_states, task_states=(None,)):
    """InstanceInvalidState unless the instance is in one of vm_states
    and (task_states None: any) one of task_states."""
    if instance.vm_state not in vm_states:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
    if task_states is not None and instance.task_state not in task_states:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state)


def check_host(instance):
    if not instance.host or not instance.obj_attr_is_set('id'):
        raise exception.InstanceNotReady(instance_id=instance.uuid)


def check_compute(instance, action,
                   version=compute_rpcapi.ACTIONS_VERSION):
    """The instance has a compute that speaks RPC version (the actions'
    1.4 by default); 409 otherwise, before anything is written."""
    check_host(instance)
    if not compute_rpc().can_send(instance.context, instance.host, version):
        raise exception.ComputeTooOldForAction(
            action=action, instance_uuid=instance.uuid, host=instance.host)


def check_compute_service_version(instance, action, version):
    """The instance's compute runs service version version or later
    (for behaviour no RPC version names); ComputeTooOldForAction (409)
    otherwise, before anything is written."""
    try:
        service = objects.Service.get_by_compute_host(instance.context,
                                                      instance.host)
    except exception.HostBinaryNotFound:
        service = None
    if service is None or (service.version or 0) < version:
        raise exception.ComputeTooOldForAction(
            action=action, instance_uuid=instance.uuid, host=instance.host)


def start_on_compute(instance, action, method, task_state, expected_task_state,
          version=compute_rpcapi.ACTIONS_VERSION, **kwargs):
    """Set task_state (compare-and-swap on expected_task_state), record
    action, cast method to the instance's compute (check_compute for
    RPC version first)."""
    context = instance.context
    check_compute(instance, action, version)
    instance.task_state = task_state
    try:
        _save_with_action(instance, action,
                          expected_task_state=list(expected_task_state))
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))
    _cast_when_committed(context, functools.partial(
        getattr(compute_rpc(), method), context, instance, **kwargs))


def _cast_when_committed(context, cast):
    """cast() now, or, in acting_on's transaction, once it commits."""
    pending = getattr(context, 'casts_after_commit', None)
    if pending is None:
        cast()
    else:
        pending.append(cast)


def stop(context, instance):
    """Power off: powering-off, then SHUTOFF (vm_state stopped)."""
    check_lock(context, instance)
    check_state(instance, 'stop', (inst_obj.ACTIVE, inst_obj.ERROR))
    start_on_compute(instance, actions.STOP, 'stop_instance', POWERING_OFF,
                     [None])


def start(context, instance):
    """Power on a stopped server: powering-on, then ACTIVE."""
    check_lock(context, instance)
    check_state(instance, 'start', (inst_obj.STOPPED,))
    start_on_compute(instance, actions.START, 'start_instance', POWERING_ON,
                     [None])


def reboot(context, instance, reboot_type):
    """SOFT: an ACTIVE server with no task; HARD: also stopped, paused,
    suspended or in error, and may interrupt another reboot or a
    pause/suspend/resume in flight."""
    check_lock(context, instance)
    if reboot_type == SOFT:
        check_state(instance, 'reboot', ALLOW_SOFT_REBOOT)
        start_on_compute(instance, actions.REBOOT, 'reboot_instance',
                         REBOOTING, [None], reboot_type=SOFT)
    else:
        check_state(instance, 'reboot', ALLOW_HARD_REBOOT, ALLOW_REBOOT)
        start_on_compute(instance, actions.REBOOT, 'reboot_instance',
                         REBOOTING_HARD, ALLOW_REBOOT, reboot_type=HARD)


def pause(context, instance):
    check_lock(context, instance)
    check_state(instance, 'pause', (inst_obj.ACTIVE,))
    start_on_compute(instance, actions.PAUSE, 'pause_instance', PAUSING,
                     [None])


def unpause(context, instance):
    check_lock(context, instance)
    check_state(instance, 'unpause', (PAUSED,))
    start_on_compute(instance, actions.UNPAUSE, 'unpause_instance', UNPAUSING,
                     [None])


def suspend(context, instance):
    check_lock(context, instance)
    check_state(instance, 'suspend', (inst_obj.ACTIVE,))
    start_on_compute(instance, actions.SUSPEND, 'suspend_instance', SUSPENDING,
                     [None])


def resume(context, instance):
    check_lock(context, instance)
    check_state(instance, 'resume', (SUSPENDED,))
    start_on_compute(instance, actions.RESUME, 'resume_instance', RESUMING,
                     [None])


def _in_cell(instance, action):
    """A server still being scheduled has no row to write yet."""
    if not instance.obj_attr_is_set('id'):
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)


def locked_by_expected(context, instance):
    """False when the lock was set by the other kind of caller (the
    owner's project vs an administrator of another project): unlocking
    it then needs the unlock_override policy."""
    expected = OWNER if instance.project_id == context.project_id \
        else ADMIN
    return not instance.locked_by or instance.locked_by == expected


def lock(context, instance, reason=None):
    """Lock: non-administrators can do nothing else to the server until
    it is unlocked. reason (2.73) is shown as locked_reason."""
    _in_cell(instance, 'lock')
    instance.locked = True
    instance.locked_by = (OWNER if instance.project_id == context.project_id
                          else ADMIN)
    if reason:
        sysmeta = dict(instance.system_metadata)
        sysmeta[LOCKED_REASON] = reason
        instance.system_metadata = sysmeta
    _save_with_action(instance, actions.LOCK)
    notify.notify_about_instance_action(context, instance, CONF.host, 'lock',
                                        source=notify.SOURCE_API)


def unlock(context, instance):
    _in_cell(instance, 'unlock')
    instance.locked = False
    instance.locked_by = None
    if LOCKED_REASON in instance.system_metadata:
        sysmeta = dict(instance.system_metadata)
        del sysmeta[LOCKED_REASON]
        instance.system_metadata = sysmeta
    _save_with_action(instance, actions.UNLOCK)
    notify.notify_about_instance_action(context, instance, CONF.host,
                                        'unlock', source=notify.SOURCE_API)


def reset_state(context, instance, state):
    """Administrators: force vm_state ('active' or 'error') and clear
    the task state, whatever the server is doing."""
    _in_cell(instance, 'os-resetState')
    instance.vm_state = state
    instance.task_state = None
    _save_with_action(instance, actions.RESET_STATE)


def _save_with_action(instance, action, expected_task_state=None):
    """Save the instance (expected_task_state: as Instance.save) and
    record action, in one transaction of its cell: both or neither."""
    with inst_obj.transaction(instance.context):
        instance.save(expected_task_state=expected_task_state)
        instance_events.record_action(instance.context, instance, action)


# --- os-instance-actions ------------------------------------------------

def list_actions(context, instance, limit=None, marker=None,
                 changes_since=None, changes_before=None):
    """The instance's actions, newest first (a page after the action of
    request id marker; MarkerNotFound, 400, if it has none), each
    without events. Two statements at most."""
    if not instance.obj_attr_is_set('id'):
        if marker is not None:
            raise exception.MarkerNotFound(marker=marker)
        return []
    return actions.list_records(
        instance.context, instance.uuid, limit=limit, marker=marker,
        changes_since=changes_since, changes_before=changes_before)


def get_action(context, instance, request_id):
    """The action of request_id on the instance with its events
    (InstanceActionNotFound, 404)."""
    if not instance.obj_attr_is_set('id'):
        raise exception.InstanceActionNotFound(request_id=request_id)
    return actions.get_record_with_events(instance.context,
                                          instance.uuid, request_id)
