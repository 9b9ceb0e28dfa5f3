"""The embedded network service as Neutron's v2.0 API shows it: read only
but for networks, subnets and security groups.

Mounted at /networking so that clients configured with
``OS_NETWORK_ENDPOINT_OVERRIDE=<endpoint>/networking`` (README.rst) find
networks and ports as they would in Neutron: ``openstack network list``,
``openstack port list --server S``, ``openstack server create --network
private``. Serves the version document and ``GET`` of ``/v2.0/networks``,
``/v2.0/subnets`` and ``/v2.0/ports`` (lists, filtered by any field of
the bodies, e.g. ``name``, ``id``, ``network_id``, ``device_id``; and one
by id). A caller sees shared networks and its project's own (an
administrator every one) and its project's ports.

Networks and IPv4 subnets are created (``POST``, 201: a network without
subnets, then its subnets; ``shared`` by administrators only; a subnet
overlapping another of its network is a 400, an IPv6 one too) and
deleted (``DELETE``, 204; 409 while a port has an address from them) by
their project or an administrator, as ``openstack network create`` and
``openstack subnet create --network N --subnet-range CIDR`` do. A port
is created unbound (``POST``, 201: on a network, with the lowest free
address or the one ``fixed_ips`` names; its name is not kept), as
``openstack port create --network N`` does, to boot or attach an
interface with; an unbound port is deleted (``DELETE``, 204; 409 while
a server has it).

Security groups (``openstack security group create|list|show|delete``,
``openstack security group rule create|list|show|delete``):
``/v2.0/security-groups`` and ``/v2.0/security-group-rules``, listed
(filtered as above), shown, created (``POST``, 201) and deleted
(``DELETE``, 204; 409 while a group is in use). A project's ``default``
group is made the first time the project lists or uses groups. Anything
else is a 404; errors are in the Compute API's fault format.
"""
import ipaddress
import re

import jsonschema
import webob
import webob.dec

from nova_lite.api import auth
from nova_lite.api.openstack import wsgi
from nova_lite import exception
from nova_lite.network import api as network_api

_PATH = re.compile(r'^/v2\.0/(networks|subnets|ports|security-groups|'
                   r'security-group-rules)(?:/([^/]+))?$')
_SINGULAR = {'networks': 'network', 'subnets': 'subnet', 'ports': 'port',
             'security-groups': 'security_group',
             'security-group-rules': 'security_group_rule'}
_COLLECTION_KEY = {'security-groups': 'security_groups',
                   'security-group-rules': 'security_group_rules'}
_CREATABLE = ('networks', 'subnets', 'ports', 'security-groups',
              'security-group-rules')
_DELETABLE = _CREATABLE
_NULLABLE_STRING = {'type': ['string', 'null'], 'maxLength': 255}
_PORT = {'type': ['integer', 'string', 'null'],
         'pattern': '^-?[0-9]+$'}
CREATE_GROUP = {
    'type': 'object',
    'properties': {
        'security_group': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'maxLength': 255},
                'description': _NULLABLE_STRING,
                'project_id': {'type': 'string', 'maxLength': 255},
                'tenant_id': {'type': 'string', 'maxLength': 255},
                'stateful': {'type': 'boolean', 'enum': [True]},
            },
            'additionalProperties': False,
        },
    },
    'required': ['security_group'],
    'additionalProperties': False,
}
CREATE_RULE = {
    'type': 'object',
    'properties': {
        'security_group_rule': {
            'type': 'object',
            'properties': {
                'security_group_id': {'type': 'string', 'maxLength': 36},
                'direction': {'type': 'string',
                              'enum': ['ingress', 'egress']},
                'ethertype': {'type': 'string', 'enum': ['IPv4', 'IPv6']},
                'protocol': {'type': ['string', 'integer', 'null'],
                             'maxLength': 40},
                'port_range_min': _PORT,
                'port_range_max': _PORT,
                'remote_ip_prefix': _NULLABLE_STRING,
                'remote_group_id': {'type': ['string', 'null'],
                                    'maxLength': 36},
                'description': _NULLABLE_STRING,
                'project_id': {'type': 'string', 'maxLength': 255},
                'tenant_id': {'type': 'string', 'maxLength': 255},
            },
            'required': ['security_group_id', 'direction'],
            'additionalProperties': False,
        },
    },
    'required': ['security_group_rule'],
    'additionalProperties': False,
}
_PROJECT = {'type': 'string', 'maxLength': 255}
CREATE_NETWORK = {
    'type': 'object',
    'properties': {
        'network': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'maxLength': 255},
                'description': _NULLABLE_STRING,
                'shared': {'type': 'boolean'},
                'admin_state_up': {'type': 'boolean', 'enum': [True]},
                'port_security_enabled': {'type': 'boolean',
                                          'enum': [True]},
                'project_id': _PROJECT, 'tenant_id': _PROJECT,
            },
            'additionalProperties': False,
        },
    },
    'required': ['network'],
    'additionalProperties': False,
}
CREATE_PORT = {
    'type': 'object',
    'properties': {
        'port': {
            'type': 'object',
            'properties': {
                'network_id': {'type': 'string', 'maxLength': 36},
                'name': {'type': 'string', 'maxLength': 255},
                'description': _NULLABLE_STRING,
                'admin_state_up': {'type': 'boolean'},
                'fixed_ips': {
                    'type': 'array', 'maxItems': 1,
                    'items': {
                        'type': 'object',
                        'properties': {
                            'ip_address': {'type': 'string',
                                           'maxLength': 64},
                            'subnet_id': {'type': 'string',
                                          'maxLength': 36}},
                        'additionalProperties': False}},
                'project_id': _PROJECT, 'tenant_id': _PROJECT,
            },
            'required': ['network_id'],
            'additionalProperties': False,
        },
    },
    'required': ['port'],
    'additionalProperties': False,
}
CREATE_SUBNET = {
    'type': 'object',
    'properties': {
        'subnet': {
            'type': 'object',
            'properties': {
                'network_id': {'type': 'string', 'maxLength': 36},
                'cidr': {'type': 'string', 'maxLength': 64},
                # IPv4 only: the embedded service has no IPv6.
                'ip_version': {'type': ['integer', 'string'],
                               'enum': [4, '4']},
                'name': {'type': 'string', 'maxLength': 255},
                'description': _NULLABLE_STRING,
                'gateway_ip': {'type': ['string', 'null'],
                               'maxLength': 64},
                'enable_dhcp': {'type': 'boolean'},
                'project_id': _PROJECT, 'tenant_id': _PROJECT,
            },
            'required': ['network_id', 'cidr', 'ip_version'],
            'additionalProperties': False,
        },
    },
    'required': ['subnet'],
    'additionalProperties': False,
}
# Query parameters that are not filters.
_NOT_FILTERS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir',
                'page_reverse')

# As the Compute API answers (nova_lite.api.openstack.wsgi).
_json = wsgi.json_response


def _common(project_id):
    return {'tenant_id': project_id or '', 'project_id': project_id or '',
            'description': '', 'tags': [], 'revision_number': 0,
            'created_at': None, 'updated_at': None}


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value else None


def rule_body(rule, default_group_ids=()):
    body = _common(rule['project_id'])
    body.update({name: rule[name] for name in (
        'id', 'security_group_id', 'direction', 'ethertype', 'protocol',
        'port_range_min', 'port_range_max', 'remote_ip_prefix',
        'remote_group_id')})
    body.update({
        'description': rule['description'] or '',
        'remote_address_group_id': None,
        'normalized_cidr': rule['remote_ip_prefix'],
        'belongs_to_default_sg': (rule['security_group_id']
                                  in default_group_ids),
        'created_at': _date(rule['created_at']),
        'updated_at': _date(rule['updated_at'] or rule['created_at'])})
    return body


def security_group_body(group):
    body = _common(group['project_id'])
    defaults = (group['id'],) if group['name'] == 'default' else ()
    body.update({
        'id': group['id'], 'name': group['name'],
        'description': group['description'] or '',
        'stateful': True, 'shared': False,
        'security_group_rules': [rule_body(r, defaults)
                                 for r in group['rules']],
        'created_at': _date(group['created_at']),
        'updated_at': _date(group['updated_at'] or group['created_at'])})
    return body


def network_body(network):
    body = _common(network['project_id'])
    body.update({
        'id': network['id'], 'name': network['name'],
        'shared': network['shared'], 'status': 'ACTIVE',
        'admin_state_up': True,
        'router:external': bool(network.get('external')), 'mtu': 1500,
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
        'binding:vnic_type': 'normal',
        'security_groups': list(port.get('security_groups') or ()),
        'allowed_address_pairs': [], 'extra_dhcp_opts': [],
        'port_security_enabled': True})
    return body


def _bodies(ctxt, collection):
    api = network_api.API()
    if collection == 'security-groups':
        return [security_group_body(g)
                for g in api.list_security_groups(ctxt)]
    if collection == 'security-group-rules':
        defaults = {g['id'] for g in api.list_security_groups(
            ctxt, name='default')}
        return [rule_body(r, defaults)
                for r in api.list_security_group_rules(ctxt)]
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


def _validated(req, schema, key):
    try:
        body = req.json_body if req.body else None
    except ValueError:
        raise exception.ValidationError(field=key,
                                        detail='The body is not JSON.')
    try:
        jsonschema.validate(body, schema)
    except jsonschema.ValidationError as exc:
        raise exception.ValidationError(
            field='.'.join(str(p) for p in exc.path) or key,
            detail=exc.message)
    return body[key]


def _owner(ctxt, spec):
    """The project a new group or rule is for: the caller's, or (an
    administrator) the one the body names."""
    project = spec.get('project_id') or spec.get('tenant_id')
    if project and project != ctxt.project_id and not ctxt.is_admin:
        raise exception.Forbidden()
    return project or ctxt.project_id


def _create_network(req, ctxt):
    spec = _validated(req, CREATE_NETWORK, 'network')
    shared = bool(spec.get('shared'))
    if shared and not ctxt.is_admin:
        raise exception.Forbidden()
    network = network_api.API().add_network(
        ctxt, spec.get('name') or '', project_id=_owner(ctxt, spec),
        shared=shared)
    return _json({'network': network_body(network)}, 201)


def _create_subnet(req, ctxt):
    spec = _validated(req, CREATE_SUBNET, 'subnet')
    _owner(ctxt, spec)
    try:
        cidr = ipaddress.ip_network(spec['cidr'])
        gateway = spec.get('gateway_ip')
        if gateway is not None and ipaddress.ip_address(
                gateway) not in cidr:
            raise ValueError('gateway_ip %s is not in %s' % (gateway, cidr))
    except ValueError as exc:
        raise exception.ValidationError(field='subnet', detail=str(exc))
    if cidr.version != 4:
        raise exception.ValidationError(
            field='cidr', detail='Only IPv4 subnets are served.')
    network, subnet = network_api.API().add_subnet(
        ctxt, spec['network_id'], str(cidr), gateway_ip=gateway)
    return _json({'subnet': subnet_body(network, subnet)}, 201)


def _create(req, ctxt, collection):
    api = network_api.API()
    if collection == 'networks':
        return _create_network(req, ctxt)
    if collection == 'subnets':
        return _create_subnet(req, ctxt)
    if collection == 'ports':
        spec = _validated(req, CREATE_PORT, 'port')
        fixed = (spec.get('fixed_ips') or [{}])[0].get('ip_address')
        try:
            port = api.create_port(ctxt, spec['network_id'],
                                   fixed_ip=fixed,
                                   project_id=_owner(ctxt, spec))
        except exception.NetworkNotFound as exc:
            raise exception.ResourceNotFound(message=exc.format_message())
        return _json({'port': port_body(port)}, 201)
    if collection == 'security-groups':
        spec = _validated(req, CREATE_GROUP, 'security_group')
        group = api.create_security_group(
            ctxt, spec.get('name') or '', spec.get('description'),
            project_id=_owner(ctxt, spec))
        return _json({'security_group': security_group_body(group)}, 201)
    spec = _validated(req, CREATE_RULE, 'security_group_rule')
    _owner(ctxt, spec)
    rule = api.create_security_group_rule(ctxt, spec)
    defaults = {g['id'] for g in api.list_security_groups(
        ctxt, name='default')}
    return _json({'security_group_rule': rule_body(rule, defaults)}, 201)


def _delete(ctxt, collection, item_id):
    api = network_api.API()
    delete = {'networks': api.delete_network,
              'subnets': api.delete_subnet,
              'ports': api.delete_port,
              'security-groups': api.delete_security_group,
              'security-group-rules': api.delete_security_group_rule}
    delete[collection](ctxt, item_id)
    return webob.Response(status=204)


@webob.dec.wsgify
def _network_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if path == '':
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
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
    if req.method == 'POST' and item_id is None and (
            collection in _CREATABLE):
        return _create(req, ctxt, collection)
    if req.method == 'DELETE' and item_id is not None and (
            collection in _DELETABLE):
        return _delete(ctxt, collection, item_id)
    if req.method not in ('GET', 'HEAD'):
        raise exception.MethodNotAllowed()
    bodies = _bodies(ctxt, collection)
    if item_id is not None:
        for body in bodies:
            if body['id'] == item_id:
                return _json({_SINGULAR[collection]: body})
        raise exception.ResourceNotFound(
            message='%s %s could not be found.' % (
                _SINGULAR[collection].replace('_', ' ').capitalize(),
                item_id))
    filters = {}
    for key, value in req.GET.items():
        if key not in _NOT_FILTERS:
            filters.setdefault(key, []).append(value)
    return _json({_COLLECTION_KEY.get(collection, collection): [
        b for b in bodies if _matches(b, filters)]})


def network_app_factory(global_conf, **local_conf):
    """The network service at /networking (paste app factory)."""
    return _network_app
