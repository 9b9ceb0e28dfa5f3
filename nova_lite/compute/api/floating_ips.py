"""The compute API of the floating-IP proxy below 2.36
(os-floating-ips, os-floating-ip-pools) and of the addFloatingIp and
removeFloatingIp server actions (below 2.44), on the network service's
floating IPs, as Nova answers them from Neutron.

A floating IP associated with a server shows in the server's
addresses (``OS-EXT-IPS:type: floating``): every change refreshes the
info cache of the servers it touches (the one it joins, the one it
leaves), as Nova's network API does.
"""
from oslo_utils import netutils

from nova_lite.compute.api import server_actions
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.network import model


def _api():
    return network_api.API()


def pools(context):
    return _api().get_floating_ip_pools(context)


def list_floating_ips(context):
    """The caller's project's floating IPs."""
    return _api().get_floating_ips_by_project(context)


def get(context, floating_ip_id):
    """FloatingIpNotFound (404)."""
    return _api().get_floating_ip(context, floating_ip_id)


def allocate(context, pool=None):
    """FloatingIpPoolNotFound, NoMoreFloatingIps (404)."""
    try:
        return _api().allocate_floating_ip(context, pool)
    except exception.NoMoreFloatingIps:
        if pool:
            raise exception.NoMoreFloatingIps(
                message='No more floating IPs in pool %s.' % pool)
        raise


def release(context, floating_ip_id):
    """Delete it (disassociated first, the server's addresses
    refreshed); FloatingIpNotFound."""
    fip = _api().release_floating_ip(context, floating_ip_id)
    _refresh(context, fip['instance_id'])


def server_of(context, address):
    """The server the floating IP at address is associated with (an
    Instance), or None; FloatingIpNotFoundForAddress (404)."""
    fip = _api().get_floating_ip_by_address(context, address)
    if not fip['port_id'] or not fip['instance_id']:
        return fip, None
    try:
        return fip, server_actions.get(context.elevated(),
                                       fip['instance_id'])
    except exception.InstanceNotFound:
        return fip, None


def add(context, instance, address, fixed_address=None):
    """Associate the floating IP at address with one of the server's
    fixed IPs (fixed_address, or its first IPv4 one). 400 when the
    server has no network yet or no such fixed IP, or that fixed IP
    has a floating IP already; 404 for an unknown floating IP."""
    info = instance.network_info if instance.obj_attr_is_set(
        'network_info') else None
    if not info:
        raise exception.InvalidInput(
            message='Instance network is not ready yet')
    fixed = [entry[2] for entry in model.fixed_ips(info)]
    if not fixed:
        raise exception.InvalidInput(
            message='No fixed IPs associated to instance')
    if fixed_address:
        if fixed_address not in fixed:
            raise exception.InvalidInput(
                message='Specified fixed address not assigned to instance')
    else:
        fixed_address = next(
            (a for a in fixed if netutils.is_valid_ipv4(a)), None)
        if fixed_address is None:
            raise exception.InvalidInput(
                message='Unable to associate floating IP %s to any fixed '
                        'IPs for instance %s. Instance has no fixed IPv4 '
                        'addresses to associate.' % (address,
                                                     instance.uuid))
    try:
        before = _api().associate_floating_ip(context, address,
                                              instance.uuid, fixed_address)
    except exception.FixedIpNotFoundForInstance:
        # The info cache was older than the ports.
        raise exception.InvalidInput(
            message='Specified fixed address not assigned to instance')
    _refresh_instance(instance)
    if before['instance_id'] and before['instance_id'] != instance.uuid:
        _refresh(context, before['instance_id'])


def remove(context, server_id, instance, fip):
    """Disassociate fip (server_of's) from server_id;
    FloatingIpNotAssociated (409) when it is not associated with it."""
    if instance is None or not fip['port_id'] or instance.uuid != server_id:
        raise exception.FloatingIpNotAssociated(
            address=fip['floating_ip_address'], id=server_id)
    _api().disassociate_floating_ip(context, fip['floating_ip_address'])
    _refresh_instance(instance)


def _refresh(context, instance_uuid):
    """Refresh the info cache of the server instance_uuid (if it still
    exists)."""
    if not instance_uuid:
        return
    try:
        instance = server_actions.get(context.elevated(), instance_uuid)
    except exception.InstanceNotFound:
        return
    _refresh_instance(instance)


def _refresh_instance(instance):
    """The server's info cache as the network service has its ports now,
    each VIF keeping its tag (a server still being scheduled has no
    cache to refresh)."""
    if instance.host is None or not instance.obj_attr_is_set(
            'network_info'):
        return
    tags = {v.get('id'): v.get('tag') for v in instance.network_info or ()
            if v.get('tag')}
    info = _api().get_instance_nw_info(instance.context.elevated(),
                                       instance.uuid)
    for vif in info:
        if tags.get(vif['id']):
            vif['tag'] = tags[vif['id']]
    instance.network_info = info
    instance.save()
