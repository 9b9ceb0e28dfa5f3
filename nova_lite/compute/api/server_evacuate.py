"""The compute API of evacuate: rebuild a server whose compute is down
(or forced down) on another host of its cell.

Refused before anything is written, in Nova's order: a host that names
no compute (404) or the server's own (400); a state other than ACTIVE,
SHUTOFF or ERROR with no task (409); a compute that is still up (400,
"Compute service of <host> is still in use."); super conductors that
do not serve compute_task 1.5 yet (409). Then, in one transaction of
the server's cell, its task goes to rebuilding (a compare-and-swap on
"no task": of two racing requests, or a request and a delete, exactly
one wins), the evacuate action is recorded and the migration (type
evacuation, status accepted) created; and the evacuation is cast to
the super conductor (nova_lite.conductor.tasks.evacuate).
"""
from oslo_utils import uuidutils

from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import constants
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions
from nova_lite.objects import migration as migration_obj

# vm_states an evacuation starts from (with no task), as Nova.
EVACUATE_VM_STATES = (inst_obj.ACTIVE, inst_obj.STOPPED, inst_obj.ERROR)

_conductor = None


def _compute_task():
    global _conductor
    if _conductor is None:
        _conductor = conductor_rpcapi.ComputeTaskAPI()
    return _conductor


def _computes(cell_context, host):
    return [s for s in objects.ServiceList.get_by_host(cell_context, host)
            if s.binary == constants.COMPUTE_BINARY]


def _check_target_host(instance, host):
    """A compute of any cell (its host mapping, or a service of the
    server's cell), not the server's own. A host of another cell passes
    here and is refused by the super conductor, as Nova's scheduler
    refuses it (no valid host)."""
    if not _computes(instance.context, host):
        try:
            objects.HostMapping.get_by_host(instance.context, host)
        except exception.HostMappingNotFound:
            raise exception.EvacuateHostNotFound(host=host)
    if host == instance.host:
        raise exception.EvacuateToSameHost()


def _check_source_down(instance):
    services = _computes(instance.context, instance.host)
    if services and services[0].is_up():
        raise exception.EvacuateSourceInUse(host=instance.host)


def evacuate(context, instance, host=None, force=False, admin_password=None,
             stopped=False):
    """Evacuate instance to host (the scheduler picks one when None;
    force: the super conductor claims host without the scheduler).
    stopped (2.95): it ends SHUTOFF. Returns the migration."""
    if host is not None:
        _check_target_host(instance, host)
    server_actions.check_state(instance, 'evacuate', EVACUATE_VM_STATES)
    server_actions.check_host(instance)
    _check_source_down(instance)
    if not _compute_task().can_send(conductor_rpcapi.EVACUATE_VERSION):
        raise exception.ComputeTooOldForAction(
            action='evacuate', instance_uuid=instance.uuid,
            host='the conductor')
    cctxt = instance.context
    migration = objects.Migration(
        cctxt, uuid=uuidutils.generate_uuid(), instance_uuid=instance.uuid,
        source_compute=instance.host, source_node=instance.node,
        dest_compute=host, status=migration_obj.ACCEPTED,
        migration_type=migration_obj.EVACUATION,
        old_instance_type_id=instance.flavor.id,
        new_instance_type_id=instance.flavor.id,
        project_id=instance.project_id, user_id=instance.user_id,
        hidden=False, cross_cell_move=False)
    with inst_obj.transaction(cctxt):
        instance.task_state = inst_obj.REBUILDING
        try:
            instance.save(expected_task_state=[None])
        except exception.UnexpectedTaskStateError as exc:
            raise exception.InstanceInvalidState(
                action='evacuate', instance_uuid=instance.uuid,
                attr='task_state', state=exc.kwargs.get('actual'))
        instance_events.record_action(cctxt, instance, actions.EVACUATE)
        migration.create()
    _compute_task().evacuate_server(
        context, instance, migration, host=host, force=force,
        admin_password=admin_password, stopped=stopped)
    return migration
