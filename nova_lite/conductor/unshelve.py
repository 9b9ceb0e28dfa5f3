"""The super conductor's unshelve (compute_task RPC 1.4).

A SHELVED server still has its guest, host and allocations: the
unshelve goes to its compute as it is. A SHELVED_OFFLOADED server has
none of them: the scheduler picks a host within the server's cell (its
request spec's flavor and availability zone, the zone an unshelve at
2.77 asked for already saved in it by the API) and claims it for the
server, the server is pointed at that host (a compare-and-swap on task
unshelving: a delete meanwhile wins and the claim is freed again) and
the compute spawns it (nova_lite.compute.service.shelve_tasks).

Whatever stops it here -- no valid host, a compute too old for compute
RPC 1.9, an error -- leaves the server SHELVED_OFFLOADED with no task,
nothing claimed, and the failure in the unshelve action's event
conductor_unshelve_instance.
"""
from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


def unshelve_instance(context, instance, cell_uuid):
    """Unshelve instance (context targeted at its cell, cell_uuid)."""
    current = objects.Instance.get_by_uuid(context, instance.uuid)
    if current.task_state != instance_obj.UNSHELVING:
        LOG.info('Unshelve of %s: it moved on meanwhile (task %s)',
                 instance.uuid, current.task_state)
        return
    compute = compute_rpcapi.ComputeAPI()
    if current.vm_state == instance_obj.SHELVED:
        try:
            _check_compute(compute, context, current, current.host)
        except exception.ComputeTooOldForAction:
            _back_to_offloaded(current)
            raise
        compute.unshelve_instance(context, current)
        return
    _schedule(context, compute, current, cell_uuid)


def _check_compute(compute, context, instance, host):
    if not compute.can_send(context, host,
                            compute_rpcapi.SHELVE_RESCUE_VERSION):
        raise exception.ComputeTooOldForAction(
            action='unshelve', instance_uuid=instance.uuid, host=host)


def _schedule(context, compute, instance, cell_uuid):
    spec = objects.RequestSpec.get_by_instance_uuid(context, instance.uuid)
    spec.ignore_hosts = []
    spec.requested_destination = {'cell_uuid': cell_uuid, 'host': None}
    try:
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
        instance.save(expected_task_state=[instance_obj.UNSHELVING],
                      expected_vm_state=[instance_obj.SHELVED_OFFLOADED])
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


def recover(context, cell_uuid):
    """At a super conductor's start: unshelves of offloaded servers of
    the cell that one stopped in the middle of scheduling (task
    unshelving, no host yet) end SHELVED_OFFLOADED with no task and
    nothing claimed (the user unshelves again). Returns their uuids."""
    stuck = objects.InstanceList.get_by_filters(
        context, {'vm_state': [instance_obj.SHELVED_OFFLOADED],
                  'task_state': [instance_obj.UNSHELVING]})
    done = []
    for instance in stuck:
        if instance.host:
            continue
        _free(context, instance)
        _back_to_offloaded(instance)
        done.append(instance.uuid)
    if done:
        LOG.warning('Unshelves interrupted by a restart of the conductor '
                    'rolled back in cell %s: %s', cell_uuid, done)
    return done
