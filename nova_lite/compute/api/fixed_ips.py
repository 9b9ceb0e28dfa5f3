"""The compute API of the addFixedIp and removeFixedIp server actions
(below 2.44), on the network service, whose ports have one fixed IP
each: addFixedIp gives the server a new port on the network (an
interface attach recorded as addFixedIp), removeFixedIp takes away the
port holding that address (an interface detach recorded as
removeFixedIp).

As interface attach and detach, they are refused (409) on a locked
server (but for an administrator), on one not active, paused or
stopped with no task, and on one whose compute is too old; a network
the caller cannot use is a 400 (as Nova answers NoMoreFixedIps), and so
is an address the server does not have (FixedIpNotFoundForInstance).
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_interfaces
from nova_lite.compute import instance_events
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.objects import instance_action as actions


def add(context, instance, network_id):
    """A new port on network_id for the server (a call to its compute:
    the address shows once this returns)."""
    server_interfaces.check_change(context, instance, 'addFixedIp')
    try:
        resolved = network_api.API().validate_networks(
            context, [{'uuid': network_id}])
    except exception.NetworkNotFound as exc:
        raise exception.InvalidInput(message=exc.format_message())
    cctxt = instance.context
    instance_events.record_action(cctxt, instance, actions.ADD_FIXED_IP)
    try:
        server_actions.compute_rpc().attach_interface(
            cctxt, instance, resolved[0]['network_id'], None, None)
    except exception.NoMoreFixedIps as exc:
        raise exception.InvalidInput(message=exc.format_message())


def remove(context, instance, address):
    """Start taking away the server's port holding address."""
    ports = network_api.API().get_ports(context.elevated(),
                                        device_id=instance.uuid)
    port = next((p for p in ports for ip in p['fixed_ips']
                 if ip['ip_address'] == address), None)
    if port is None:
        raise exception.FixedIpNotFoundForInstance(
            instance_uuid=instance.uuid, ip=address)
    server_interfaces.check_change(context, instance, 'removeFixedIp')
    cctxt = instance.context
    instance_events.record_action(cctxt, instance, actions.REMOVE_FIXED_IP)
    server_actions.compute_rpc().detach_interface(cctxt, instance,
                                                  port['id'])
