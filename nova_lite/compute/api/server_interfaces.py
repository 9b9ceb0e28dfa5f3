"""The compute API for /servers/{id}/os-interface: a server's ports
listed and shown (from the network service), attached and detached.

Attach and detach are allowed, as in Nova, on an unlocked server (or by
an administrator) that is active, paused or stopped with no task (409
otherwise) and whose compute speaks compute RPC 1.12. The instance
action is recorded, then attach is a call to the server's compute,
which checks the port or network as it takes it (as in Nova: 404 for a
port or network the caller cannot see, 409 for a port in use or an
address taken, 400 for an address outside the network or none left;
the action's event records the refusal), plugs the port and answers
with it; detach is a cast. Only 'auto' (neither port nor network) is
resolved here, to the one network it means.
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions

ALLOW = (inst_obj.ACTIVE, inst_obj.PAUSED, inst_obj.STOPPED)

get_server = server_actions.get
get_mapping = server_actions.get_mapping


def _tags(instance):
    """{port id: tag} of the info cache (a build request has none)."""
    if not instance.obj_attr_is_set('network_info'):
        return {}
    return {v.get('id'): v.get('tag') for v in instance.network_info or ()}


def list_interfaces(context, instance):
    """[(port, tag)]: the server's ports, oldest first."""
    tags = _tags(instance)
    ports = network_api.API().get_ports(context.elevated(),
                                        device_id=instance.uuid)
    return [(p, tags.get(p['id'])) for p in ports]


def get_interface(context, instance, port_id):
    """(port, tag) of one of the server's ports; PortNotFound (404)."""
    for port, tag in list_interfaces(context, instance):
        if port['id'] == port_id:
            return port, tag
    raise exception.PortNotFoundForInstance(port_id=port_id)


def check_change(context, instance, action):
    """What an interface attach or detach (or addFixedIp and
    removeFixedIp) needs of the server: unlocked (or an administrator),
    active, paused or stopped with no task, a compute that speaks RPC
    1.12; 409 otherwise."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, action, ALLOW)
    server_actions.check_compute(instance, action,
                                 compute_rpcapi.INTERFACE_ATTACH_VERSION)


def attach(context, mapping, network_id=None, port_id=None,
           fixed_ip=None, tag=None):
    """Attach port_id, or a new port on network_id (network_id None and
    no port: the one network 'auto' means) to the server of mapping
    (server_actions.get_mapping's, policy checked); returns (port,
    tag). The server is read in the write transaction that records the
    action (server_actions.acting_on), the compute called once it
    committed."""
    if not port_id and not network_id:
        resolved = network_api.API().validate_networks(
            context, network_api.AUTO)
        if not resolved:
            raise exception.UnableToAutoAllocateNetwork(
                project_id=context.project_id)
        network_id = resolved[0]['network_id']
    with server_actions.acting_on(context, mapping) as instance:
        check_change(context, instance, 'attach_interface')
        instance_events.record_action(instance.context, instance,
                                      actions.ATTACH_INTERFACE)
    try:
        vif = server_actions.compute_rpc().attach_interface(
            instance.context, instance, network_id, port_id, fixed_ip,
            tag=tag)
    except (exception.NetworkNotFound, exception.PortNotFound) as exc:
        raise exception.InterfaceTargetNotFound(reason=exc.format_message())
    except (exception.FixedIpAlreadyInUse, exception.PortInUse) as exc:
        raise exception.InterfaceAddressInUse(reason=exc.format_message())
    except exception.NoMoreFixedIps as exc:
        raise exception.InterfaceAttachRefused(reason=exc.format_message())
    if vif.get('port'):
        return vif['port'], tag   # the port as the compute left it
    return get_interface(context, instance, vif['id'])[0], tag


def detach(context, instance, port_id):
    """Start detaching port_id (PortNotFoundForInstance, 404, when the
    server has no such port)."""
    check_change(context, instance, 'detach_interface')
    if port_id not in _tags(instance) and not any(
            p['id'] == port_id
            for p, _ in list_interfaces(context, instance)):
        raise exception.PortNotFoundForInstance(port_id=port_id)
    cctxt = instance.context
    instance_events.record_action(cctxt, instance, actions.DETACH_INTERFACE)
    server_actions.compute_rpc().detach_interface(cctxt, instance, port_id)
