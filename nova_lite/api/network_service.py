"""The embedded network service as Neutron's v2.0 API shows it, read only.

Mounted at /networking so that clients configured with
``OS_NETWORK_ENDPOINT_OVERRIDE=<endpoint>/networking`` (README.rst) find
networks and ports as they would in Neutron: ``openstack network list``,
``openstack port list --server S``, ``openstack server create --network
private``. Serves the version document and ``GET`` of ``/v2.0/networks``,
``/v2.0/subnets`` and ``/v2.0/ports`` (lists, filtered by any field of
the bodies, e.g. ``name``, ``id``, ``network_id``, ``device_id``; and one
by id). A caller sees shared networks and its project's own (an
administrator every one) and its project's ports. Anything else is a 404;
errors are in the Compute API's fault format.
"""
import ipaddress
import json
import re

import webob
import webob.dec

from nova_lite.api import auth
from nova_lite.api.openstack import wsgi
from nova_lite import exception
from nova_lite.network import api as network_api

_PATH = re.compile(r'^/v2\.0/(networks|subnets|ports)(?:/([^/]+))?$')
_SINGULAR = {'networks': 'network', 'subnets': 'subnet', 'ports': 'port'}
# Query parameters that are not filters.
_NOT_FILTERS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir',
                'page_reverse')


def _json(body):
    response = webob.Response(content_type=wsgi.JSON, charset='UTF-8')
    response.text = json.dumps(body)
    return response


def _common(project_id):
    return {'tenant_id': project_id or '', 'project_id': project_id or '',
            'description': '', 'tags': [], 'revision_number': 0,
            'created_at': None, 'updated_at': None}


def network_body(network):
    body = _common(network['project_id'])
    body.update({
        'id': network['id'], 'name': network['name'],
        'shared': network['shared'], 'status': 'ACTIVE',
        'admin_state_up': True, 'router:external': False, 'mtu': 1500,
        'subnets': [s['id'] for s in network['subnets']],
        'availability_zones': [], 'availability_zone_hints': [],
        'port_security_enabled': True, 'is_default': False,
        'ipv4_address_scope': None, 'ipv6_address_scope': None,
        'l2_adjacency': True})
    return body


def subnet_body(network, subnet):
    hosts = ipaddress.ip_network(subnet['cidr']).hosts()
    first = next(hosts, None)
    last = first
    for last in hosts:
        pass
    pools = []
    if first is not None:
        start = first
        if subnet['gateway_ip'] == str(first):
            start = first + 1
        pools.append({'start': str(start), 'end': str(last)})
    body = _common(network['project_id'])
    body.update({
        'id': subnet['id'], 'name': '', 'network_id': network['id'],
        'cidr': subnet['cidr'], 'gateway_ip': subnet['gateway_ip'],
        'ip_version': subnet['ip_version'], 'enable_dhcp': True,
        'allocation_pools': pools, 'dns_nameservers': [],
        'host_routes': [], 'ipv6_ra_mode': None, 'ipv6_address_mode': None,
        'subnetpool_id': None, 'service_types': []})
    return body


def port_body(port):
    body = _common(port['project_id'])
    body.update({
        'id': port['id'], 'name': '', 'network_id': port['network_id'],
        'mac_address': port['mac_address'], 'fixed_ips': port['fixed_ips'],
        'device_id': port['device_id'],
        'device_owner': port['device_owner'], 'status': port['status'],
        'admin_state_up': True, 'binding:host_id': port['binding:host_id'],
        'binding:vnic_type': 'normal', 'security_groups': [],
        'allowed_address_pairs': [], 'extra_dhcp_opts': [],
        'port_security_enabled': True})
    return body


def _bodies(ctxt, collection):
    api = network_api.API()
    if collection == 'ports':
        return [port_body(p) for p in api.get_ports(
            ctxt, project_id=None if ctxt.is_admin else ctxt.project_id)]
    networks = api.get_networks(ctxt)
    if collection == 'networks':
        return [network_body(n) for n in networks]
    return [subnet_body(n, s) for n in networks for s in n['subnets']]


def _matches(body, filters):
    for key, values in filters.items():
        value = body.get(key)
        if isinstance(value, bool):
            value = str(value).lower()
            values = [v.lower() for v in values]
        if str(value) not in values:
            return False
    return True


@webob.dec.wsgify
def _network_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if req.method not in ('GET', 'HEAD'):
        raise exception.MethodNotAllowed()
    if path == '':
        return _json({'versions': [{
            'id': 'v2.0', 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': base + '/v2.0/'}]}]})
    ctxt = req.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    match = _PATH.match(path)
    if not match:
        raise exception.ResourceNotFound()
    collection, item_id = match.groups()
    bodies = _bodies(ctxt, collection)
    if item_id is not None:
        for body in bodies:
            if body['id'] == item_id:
                return _json({_SINGULAR[collection]: body})
        raise exception.ResourceNotFound(
            message='%s %s could not be found.' % (
                _SINGULAR[collection].capitalize(), item_id))
    filters = {}
    for key, value in req.GET.items():
        if key not in _NOT_FILTERS:
            filters.setdefault(key, []).append(value)
    return _json({collection: [b for b in bodies
                               if _matches(b, filters)]})


def network_app_factory(global_conf, **local_conf):
    """The network service at /networking (paste app factory)."""
    return _network_app
