"""A server's security groups: GET /servers/{server_id}/os-security-groups
(readers of its project) and the addSecurityGroup and
removeSecurityGroup actions (members), as Nova answers with Neutron: an
unknown group is a 404, as is a server without ports to apply it to;
removing a group the server's ports do not have is a 400. Another
project's server does not exist (404)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import security_groups \
    as schemas
from nova_lite.api.openstack.compute.views import security_groups as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import security_groups as sg_api
from nova_lite.compute.api import server_actions
from nova_lite.policies import security_groups as policies


def _server(server_id, rule):
    """(context, instance) once rule allows the caller on the server
    (404 first for another project's)."""
    ctxt = wsgi.request_context()
    instance = server_actions.get(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id,
                           'user_id': instance.user_id})
    return ctxt, instance


class ServerSecurityGroupsController(object):
    """/servers/{server_id}/os-security-groups"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt, instance = _server(self.server_id, policies.LIST)
        return views.index(sg_api.list_for_server(ctxt, instance))


class SecurityGroupActions(object):
    """addSecurityGroup and removeSecurityGroup, actions of
    POST /servers/{server_id}/action (a base of ServerActionController,
    which has server_id)."""

    @validation.schema(schemas.add)
    def add_security_group(self, body):
        ctxt, instance = _server(self.server_id, policies.ADD)
        sg_api.add(ctxt, instance, body['addSecurityGroup']['name'].strip())

    @validation.schema(schemas.remove)
    def remove_security_group(self, body):
        ctxt, instance = _server(self.server_id, policies.REMOVE)
        sg_api.remove(ctxt, instance,
                      body['removeSecurityGroup']['name'].strip())
