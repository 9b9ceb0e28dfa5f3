"""The floating-IP proxy Nova 34 still serves below 2.36 (404 from
2.36), and the server actions on floating and fixed IPs it serves below
2.44, answered from the network service as Nova answers them from
Neutron:

- ``GET /os-floating-ips`` (the caller's project's),
  ``GET /os-floating-ips/{id}``, ``POST /os-floating-ips`` (a body
  ``{"pool": name or id}``, null or none: the default pool; 200),
  ``DELETE /os-floating-ips/{id}`` (202; disassociated first). A
  floating IP shows ``id``, ``ip``, ``pool`` (its network's name),
  ``fixed_ip`` and ``instance_id`` (null when not associated). An
  unknown floating IP or pool is a 404, so is a pool with no address
  left;
- ``addFloatingIp`` (``address``, optional ``fixed_address``; 202):
  404 for an unknown floating IP, 400 when the server has no network
  yet, no such fixed IP, or that fixed IP has a floating IP already;
  one associated with another server moves;
- ``removeFloatingIp`` (``address``; 202): 404 for an unknown floating
  IP, 409 when it is not associated with this server;
- ``addFixedIp`` (``networkId``) and ``removeFixedIp`` (``address``),
  202: nova_lite.compute.api.fixed_ips.

The server actions are bases of ServerActionController."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import floating_ips \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import fixed_ips as fixed_api
from nova_lite.compute.api import floating_ips as fip_api
from nova_lite.compute.api import server_actions
from nova_lite.policies import floating_ips as policies

LAST = av.before(av.QUOTA_NETWORK_REMOVED)
LAST_ACTIONS = av.before(av.NETWORK_ACTIONS_REMOVED)


def floating_ip_view(fip):
    return {'id': fip['id'], 'ip': fip['floating_ip_address'],
            'pool': fip['network_name'] or fip['floating_network_id'],
            'fixed_ip': fip['fixed_ip_address'] if fip['port_id'] else None,
            'instance_id': fip['instance_id'] if fip['port_id'] else None}


class FloatingIPsController(object):
    """/os-floating-ips"""

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.LIST, own_project=True)
        return {'floating_ips': [floating_ip_view(f) for f in
                                 fip_api.list_floating_ips(ctxt)]}

    @wsgi.expose()
    def post(self):
        ctxt = wsgi.authorize(policies.CREATE, own_project=True)
        body = wsgi.request_body() if pecan.request.body else None
        validation.validate(schemas.create, body, 'body')
        fip = fip_api.allocate(ctxt, (body or {}).get('pool'))
        return {'floating_ip': floating_ip_view(fip)}


class FloatingIPController(object):
    """/os-floating-ips/{floating_ip_id}"""

    def __init__(self, floating_ip_id):
        self.floating_ip_id = floating_ip_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SHOW, own_project=True)
        return {'floating_ip': floating_ip_view(
            fip_api.get(ctxt, self.floating_ip_id))}

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(policies.DELETE, own_project=True)
        fip_api.release(ctxt, self.floating_ip_id)


def _server(server_id, rule):
    ctxt = wsgi.request_context()
    instance = server_actions.get(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id})
    return ctxt, instance


class FloatingIPActions(object):
    """addFloatingIp, removeFloatingIp, addFixedIp and removeFixedIp,
    actions of POST /servers/{server_id}/action (a base of
    ServerActionController, which has server_id)."""

    @validation.schema(schemas.add_floating_ip)
    def add_floating_ip(self, body):
        ctxt, instance = _server(self.server_id, policies.ADD)
        spec = body['addFloatingIp']
        fip_api.add(ctxt, instance, spec['address'],
                    spec.get('fixed_address'))

    @validation.schema(schemas.remove_floating_ip)
    def remove_floating_ip(self, body):
        ctxt = wsgi.request_context()
        fip, instance = fip_api.server_of(
            ctxt, body['removeFloatingIp']['address'])
        # As Nova: the target is the server the floating IP is on (none
        # when it is on no server).
        ctxt.can(policies.REMOVE, target={'project_id': instance.project_id}
                 if instance is not None else {})
        fip_api.remove(ctxt, self.server_id, instance, fip)

    @validation.schema(schemas.add_fixed_ip)
    def add_fixed_ip(self, body):
        ctxt, instance = _server(self.server_id, policies.ADD_FIXED_IP)
        fixed_api.add(ctxt, instance, str(body['addFixedIp']['networkId']))

    @validation.schema(schemas.remove_fixed_ip)
    def remove_fixed_ip(self, body):
        ctxt, instance = _server(self.server_id, policies.REMOVE_FIXED_IP)
        fixed_api.remove(ctxt, instance, body['removeFixedIp']['address'])
