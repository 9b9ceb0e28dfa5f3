"""/servers/{server_id}/os-interface[/{port_id}]: a server's ports,
listed and shown by readers of its project, attached (200, the new
interface) and detached (202) by its members (policies
os_compute_api:os-attach-interfaces:*). Another project's server does
not exist (404), nor does a port the server does not have; a state or
lock that refuses the change is a 409."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_interfaces \
    as schemas
from nova_lite.api.openstack.compute.views import server_interfaces \
    as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_interfaces as si_api
from nova_lite import exception
from nova_lite.policies import server_interfaces as policies


def _server(ctxt, server_id, rule):
    """The server once rule allows the caller (404 first for another
    project's)."""
    instance = si_api.get_server(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id})
    return instance


def _attach_args(body, version):
    spec = (body or {}).get('interfaceAttachment') or {}
    net_id, port_id = spec.get('net_id'), spec.get('port_id')
    if net_id and port_id:
        raise exception.InvalidInput(
            reason='Must not input both network_id and port_id')
    fixed_ip = None
    if spec.get('fixed_ips'):
        if not net_id:
            raise exception.InvalidInput(
                reason='Must input network_id when request IP address')
        fixed_ip = spec['fixed_ips'][0]['ip_address']
    tag = spec.get('tag') if version >= av.VOLUME_ATTACH_TAG else None
    return {'network_id': net_id, 'port_id': port_id, 'fixed_ip': fixed_ip,
            'tag': tag}


class ServerInterfaceController(object):
    """/servers/{server_id}/os-interface/{port_id}"""

    def __init__(self, server_id, port_id):
        self.server_id = server_id
        self.port_id = port_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.SHOW)
        port, tag = si_api.get_interface(ctxt, instance, self.port_id)
        return views.show(port, tag, wsgi.api_version())

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.DELETE)
        si_api.detach(ctxt, instance, self.port_id)


class ServerInterfacesController(object):
    """/servers/{server_id}/os-interface"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.LIST)
        return views.index(si_api.list_interfaces(ctxt, instance),
                           wsgi.api_version())

    @wsgi.expose()
    @validation.schema(schemas.create, av.MIN,
                       av.before(av.VOLUME_ATTACH_TAG))
    @validation.schema(schemas.create_v249, av.VOLUME_ATTACH_TAG)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        version = wsgi.api_version()
        # Policy on the owner the mapping names (404 first for another
        # project's); the server is read where the action is recorded.
        mapping = si_api.get_mapping(ctxt, self.server_id)
        ctxt.can(policies.CREATE, target={'project_id': mapping.project_id})
        port, tag = si_api.attach(ctxt, mapping,
                                  **_attach_args(body, version))
        return views.show(port, tag, version)
