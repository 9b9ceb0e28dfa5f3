"""The super conductor's unshelve (compute_task RPC 1.4).

A SHELVED server still has its guest, host and allocations: the
unshelve goes to its compute as it is. A SHELVED_OFFLOADED server has
none of them: the scheduler picks a host within the server's cell (its
request spec's flavor and availability zone, the zone an unshelve at
2.77 asked for already saved in it by the API; only the host an
unshelve at 2.91 names, compute_task RPC 1.5) and claims it for the
server, the server is pointed at that host (a compare-and-swap on task
unshelving: a delete meanwhile wins and the claim is freed again) and
the compute spawns it (nova_lite.compute.service.shelve_tasks).

Whatever stops it here -- no valid host, a compute too old for compute
RPC 1.9, an error -- leaves the server SHELVED_OFFLOADED with no task,
nothing claimed, and the failure in the unshelve action's event
conductor_unshelve_instance.

tasks.base.step_boundary runs before the scheduling of an offloaded
server ('unshelve_schedule') and before the cast to the compute
('unshelve_dispatch': an offloaded server claimed and pointed at its
new host; a SHELVED one as it is). A super conductor stopped in
between, or before the cast went out, leaves the server in task
unshelving: recover() ends it at the next start.
"""
import copy

from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import group_info
from nova_lite.conductor.tasks import base
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


def unshelve_instance(context, instance, cell_uuid, host=None):
    """Unshelve instance (context targeted at its cell, cell_uuid); an
    offloaded one onto host when given (2.91)."""
    current = objects.Instance.get_by_uuid(context, instance.uuid)
    if current.task_state != instance_obj.UNSHELVING:
        LOG.info('Unshelve of %s: it moved on meanwhile (task %s)',
                 instance.uuid, current.task_state)
        return
    compute = compute_rpcapi.ComputeAPI()
    if current.vm_state == instance_obj.SHELVED:
        try:
            _check_compute(compute, context, current, current.host)
            base.step_boundary('unshelve_dispatch')
        except Exception:
            _back_to_offloaded(current)
            raise
        compute.unshelve_instance(context, current)
        return
    _schedule(context, compute, current, cell_uuid, host)


def _check_compute(compute, context, instance, host):
    if not compute.can_send(context, host,
                            compute_rpcapi.SHELVE_RESCUE_VERSION):
        raise exception.ComputeTooOldForAction(
            action='unshelve', instance_uuid=instance.uuid, host=host)


def _schedule(context, compute, instance, cell_uuid, host=None):
    spec = objects.RequestSpec.get_by_instance_uuid(context, instance.uuid)
    spec.ignore_hosts = []
    spec.force_hosts = []
    spec.force_nodes = []
    spec.requested_destination = {'cell_uuid': cell_uuid, 'host': host}
    # The server group's policy holds on unshelve too: the hosts of its
    # other members, for the scheduler's filters and the compute's
    # late check.
    group_info.refresh(context, spec, [instance.uuid])
    try:
        base.step_boundary('unshelve_schedule')
        selections = scheduler_rpcapi.SchedulerAPI().select_destinations(
            context, spec, [instance.uuid], return_alternates=False)
    except Exception:
        # A scheduler that did not answer may still have claimed.
        _free(context, instance)
        _back_to_offloaded(instance)
        raise
    dest = selections[0][0]
    try:
        _check_compute(compute, context, instance, dest['host'])
        instance.host = dest['host']
        instance.node = dest['nodename']
        # As a build: the zone it is pinned to, else its new host's.
        instance.availability_zone = (
            spec.availability_zone
            or aggregate_obj.zone_of_host(context, dest['host'])
            or CONF.default_availability_zone)
        instance.save(expected_task_state=[instance_obj.UNSHELVING],
                      expected_vm_state=[instance_obj.SHELVED_OFFLOADED])
        base.step_boundary('unshelve_dispatch')
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound, exception.InstanceInvalidState):
        LOG.info('Unshelve of %s: deleted or reset meanwhile; freeing the '
                 'claim on %s', instance.uuid, dest['host'])
        _free(context, instance)
        return
    except Exception:
        _free(context, instance)
        instance.host = instance.node = None
        _back_to_offloaded(instance)
        raise
    LOG.info('Unshelving %s on %s', instance.uuid, dest['host'])
    compute.unshelve_instance(context, instance, request_spec=spec)


def _free(context, instance):
    try:
        compute_inventory.placement_for(context).remove_allocations(
            context, instance.uuid)
    except Exception:
        LOG.exception('Could not free the claim of %s', instance.uuid)


def _back_to_offloaded(instance):
    """The unshelve did not start: the server as it was (SHELVED or
    SHELVED_OFFLOADED) with no task."""
    instance.task_state = None
    try:
        instance.save(expected_task_state=[instance_obj.UNSHELVING])
    except exception.NovaLiteException:
        pass


EVENT = 'conductor_unshelve_instance'
RECOVERED = ('The unshelve was interrupted by a stop of the super '
             'conductor; the server stays shelved.')
RESENT = ('The unshelve was interrupted by a stop of the super conductor; '
          'sent to the compute again.')


def recover(context, cell_uuid):
    """At a super conductor's start: the unshelves of the cell's servers
    that one stopped before their hand-off (task unshelving). An
    offloaded server (still scheduling, no host yet; or claimed and
    pointed at a host whose compute never took it -- its compute's
    first step swaps the task to spawning) ends SHELVED_OFFLOADED with
    no task, no host and nothing claimed, its snapshot kept, the
    action's conductor event finished as an error (the user unshelves
    again): the task is cleared first, by a compare-and-swap that a
    compute taking it meanwhile wins, and a cast that did go out and
    reaches the compute afterwards finds the task cleared and does
    nothing. A SHELVED one (guest and claim still on its host) has its
    cast sent again: it ends ACTIVE (a duplicate delivery powers on a
    running guest and finds the task done). Assumes one super conductor
    per deployment. Returns their uuids."""
    stuck = objects.InstanceList.get_by_filters(
        context, {'vm_state': [instance_obj.SHELVED_OFFLOADED,
                               instance_obj.SHELVED],
                  'task_state': [instance_obj.UNSHELVING]})
    done = []
    for instance in stuck:
        if instance.vm_state == instance_obj.SHELVED:
            if _resend(context, instance):
                done.append(instance.uuid)
            continue
        if instance.host:
            # Clear the task first: the compute's own swap from
            # unshelving to spawning decides who has the server.
            instance.host = instance.node = None
            instance.task_state = None
            try:
                instance.save(
                    expected_task_state=[instance_obj.UNSHELVING],
                    expected_vm_state=[instance_obj.SHELVED_OFFLOADED])
            except exception.NovaLiteException as exc:
                LOG.info('Unshelve of %s moved on meanwhile: %s',
                         instance.uuid, exc)
                continue
            _free(context, instance)
        else:
            _free(context, instance)
            _back_to_offloaded(instance)
        _finish_event(context, instance, instance_action.ERROR, RECOVERED)
        done.append(instance.uuid)
    if done:
        LOG.warning('Unshelves interrupted by a restart of the conductor '
                    'recovered in cell %s: %s', cell_uuid, done)
    return done


def _resend(context, instance):
    """The cast of a SHELVED server's unshelve to its host again, as its
    action's request (rolled back when its compute cannot take it)."""
    compute = compute_rpcapi.ComputeAPI()
    try:
        _check_compute(compute, context, instance, instance.host)
    except exception.ComputeTooOldForAction as exc:
        _back_to_offloaded(instance)
        _finish_event(context, instance, instance_action.ERROR,
                      exc.format_message())
        return True
    actx = _finish_event(context, instance, instance_action.SUCCESS,
                         RESENT)
    compute.unshelve_instance(actx or context, instance)
    return True


def _finish_event(context, instance, result, details):
    """The newest unshelve action's conductor event, left unfinished by
    the stop, finished with result; returns a copy of context with that
    action's request id (None without one)."""
    try:
        actions = instance_action.InstanceActionList.get_by_instance_uuid(
            context, instance.uuid)
        action = next((a for a in actions
                       if a.action == instance_action.UNSHELVE), None)
        if action is None:
            return None
        actx = copy.copy(context)
        actx.request_id = action.request_id
        instance_action.InstanceActionEvent.event_finish(
            actx, instance.uuid, EVENT, result=result, details=details,
            host=CONF.host, want_result=False)
        return actx
    except Exception:
        LOG.exception('Could not finish the unshelve event of %s',
                      instance.uuid)
        return None
