"""The network proxies Nova 34 still serves below 2.36 (404 from 2.36),
answered from the network service as Nova answers them from Neutron:

- ``GET /os-networks[/{id}]``: each network with Nova's nova-network
  fields, ``label`` its name and the others null (Neutron's networks
  have none of them); an administrator also gets the admin fields
  (null too);
- ``GET /os-tenant-networks[/{id}]``: ``id``, ``label`` and ``cidr``
  (the string "None", as Nova shows a Neutron network's);
- ``GET /os-floating-ip-pools``: the external networks floating IPs come
  from (``{"name": ...}`` each).

The networks are those the caller sees (its project's and shared ones;
every network for an administrator); another is a 404 "Network not
found". Their writes are gone (410, compute/gone.py)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import floating_ips as fip_api
from nova_lite.compute.api import networks as networks_api
from nova_lite.policies import networks as policies

# 2.36 removed the network proxies with the network quotas.
LAST = av.before(av.QUOTA_NETWORK_REMOVED)

_FIELDS = ('id', 'cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2',
           'cidr_v6', 'gateway_v6', 'label', 'netmask_v6')
_ADMIN_FIELDS = ('created_at', 'updated_at', 'deleted_at', 'deleted',
                 'injected', 'bridge', 'vlan', 'vpn_public_address',
                 'vpn_public_port', 'vpn_private_address', 'dhcp_start',
                 'project_id', 'host', 'bridge_interface', 'multi_host',
                 'priority', 'rxtx_base', 'mtu', 'dhcp_server',
                 'enable_dhcp', 'share_address')


def _network(network, is_admin):
    fields = _FIELDS + (_ADMIN_FIELDS if is_admin else ())
    body = dict.fromkeys(fields)
    body['id'] = network['id']
    body['label'] = network['name']
    return body


def _tenant_network(network):
    return {'id': network['id'], 'cidr': 'None', 'label': network['name']}


class NetworksController(object):
    """/os-networks"""

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.NETWORKS_LIST, own_project=True)
        return {'networks': [_network(n, ctxt.is_admin) for n in
                             networks_api.list_networks(ctxt)]}


class NetworkController(object):
    """/os-networks/{network_id}"""

    def __init__(self, network_id):
        self.network_id = network_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.NETWORKS_SHOW, own_project=True)
        return {'network': _network(
            networks_api.get_network(ctxt, self.network_id), ctxt.is_admin)}


class TenantNetworksController(object):
    """/os-tenant-networks"""

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.TENANT_LIST, own_project=True)
        return {'networks': [_tenant_network(n) for n in
                             networks_api.list_networks(ctxt)]}


class TenantNetworkController(object):
    """/os-tenant-networks/{network_id}"""

    def __init__(self, network_id):
        self.network_id = network_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.TENANT_SHOW, own_project=True)
        return {'network': _tenant_network(
            networks_api.get_network(ctxt, self.network_id))}


class FloatingIPPoolsController(object):
    """/os-floating-ip-pools"""

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.POOLS, own_project=True)
        return {'floating_ip_pools': [{'name': p['name'] or p['id']}
                                      for p in fip_api.pools(ctxt)]}
