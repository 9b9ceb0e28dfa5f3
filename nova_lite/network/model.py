"""Network info: the list of VIFs an instance's ports make, in the shape
of Nova's network model (nova.network.model.NetworkInfo as primitives),
and what the Compute API renders from it.

A VIF::

    {'id': port_id, 'address': mac, 'type': 'bridge', 'devname': 'tap…',
     'active': True, 'vnic_type': 'normal', 'preserve_on_delete': bool,
     'network': {'id': network_id, 'label': network name,
                 'bridge': 'br-int',
                 'subnets': [{'cidr': '10.0.0.0/24', 'version': 4,
                              'gateway': {'address': '10.0.0.1',
                                          'type': 'gateway', 'version': 4},
                              'ips': [{'address': '10.0.0.2',
                                       'type': 'fixed', 'version': 4,
                                       'floating_ips': []}],
                              'dns': [], 'routes': []}]}}

The info is plain JSON (lists, dicts, strings), so it can be stored as
the instance's info cache and sent over RPC as it is.
"""


def vif(port, network_name, cidr, gateway_ip, floating_ips=()):
    """The VIF of one port (a row with id, mac_address, network_id,
    fixed_ip, preserve_on_delete, status); floating_ips: the addresses
    of the floating IPs associated with its fixed IP."""
    ips = []
    if port['fixed_ip']:
        ips.append({'address': port['fixed_ip'], 'type': 'fixed',
                    'version': 4, 'floating_ips': [
                        {'address': address, 'type': 'floating',
                         'version': 4} for address in floating_ips]})
    subnets = []
    if cidr is not None:
        subnets.append({
            'cidr': cidr, 'version': 4, 'ips': ips, 'dns': [], 'routes': [],
            'gateway': ({'address': gateway_ip, 'type': 'gateway',
                         'version': 4} if gateway_ip else None)})
    return {'id': port['id'], 'address': port['mac_address'],
            'type': 'bridge', 'devname': ('tap' + port['id'])[:14],
            'active': port['status'] == 'ACTIVE', 'vnic_type': 'normal',
            'preserve_on_delete': bool(port['preserve_on_delete']),
            'network': {'id': port['network_id'], 'label': network_name,
                        'bridge': 'br-int', 'subnets': subnets}}


def fixed_ips(network_info):
    """[(label, mac, address)] of every fixed IP, in VIF order."""
    found = []
    for entry in network_info or ():
        network = entry.get('network') or {}
        for subnet in network.get('subnets') or ():
            for ip in subnet.get('ips') or ():
                found.append((network.get('label'), entry.get('address'),
                              ip['address'], ip.get('version', 4),
                              ip.get('type', 'fixed')))
    return found


def addresses(network_info, extended=True):
    """A server body's ``addresses``: {label: [{'addr', 'version'}]}, with
    'OS-EXT-IPS:type' and 'OS-EXT-IPS-MAC:mac_addr' when extended (server
    show/detail; GET /servers/{id}/ips leaves them out)."""
    result = {}
    for label, mac, address, version, ip_type in fixed_ips(network_info):
        entry = {'addr': address, 'version': version}
        if extended:
            entry['OS-EXT-IPS:type'] = ip_type
            entry['OS-EXT-IPS-MAC:mac_addr'] = mac
        result.setdefault(label, []).append(entry)
    return result
