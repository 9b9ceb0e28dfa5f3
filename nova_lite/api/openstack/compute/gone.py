"""APIs the Compute API still routes but answers ``410 Gone`` at every
microversion, to everyone, whatever the body, before any policy is
checked (as Nova 34): what went with nova-network (os-networks' and
os-tenant-networks' writes, os-fixed-ips, os-floating-ips-bulk,
os-floating-ip-dns, os-fping, os-security-group-default-rules,
os-virtual-interfaces), cells v1 (os-cells), os-cloudpipe, os-agents,
os-certificates and the XenAPI consoles (/servers/{id}/consoles)."""
import webob.exc

from nova_lite.api.openstack import wsgi


class GoneController(object):
    """Any of the paths above, whatever its parameters."""

    def __init__(self, *params):
        self.params = params

    def _gone(self):
        raise webob.exc.HTTPGone()

    @wsgi.expose()
    def index(self):
        self._gone()

    @wsgi.expose()
    def post(self):
        self._gone()

    @wsgi.expose()
    def put(self):
        self._gone()

    @wsgi.expose()
    def delete(self):
        self._gone()


class _GoneActions(wsgi.ActionController):
    def __init__(self, *params):
        self.params = params

    def action(self, body):
        raise webob.exc.HTTPGone()


class NetworkActionController(_GoneActions):
    """POST /os-networks/{network_id}/action"""


class FixedIPActionController(_GoneActions):
    """POST /os-fixed-ips/{address}/action"""


# (method, path) of every such route: the paths and methods Nova 34
# answers 410 to (other methods there: 405 here, 404 in Nova).
ROUTES = (
    ('GET', '/os-security-group-default-rules'),
    ('POST', '/os-security-group-default-rules'),
    ('GET', '/os-security-group-default-rules/{rule_id}'),
    ('DELETE', '/os-security-group-default-rules/{rule_id}'),
    ('POST', '/os-networks'),
    ('POST', '/os-networks/add'),
    ('DELETE', '/os-networks/{network_id}'),
    ('POST', '/os-tenant-networks'),
    ('DELETE', '/os-tenant-networks/{network_id}'),
    ('GET', '/os-fixed-ips/{address}'),
    ('GET', '/os-floating-ips-bulk'),
    ('POST', '/os-floating-ips-bulk'),
    ('GET', '/os-floating-ips-bulk/{host}'),
    ('PUT', '/os-floating-ips-bulk/{host}'),
    ('GET', '/os-floating-ip-dns'),
    ('PUT', '/os-floating-ip-dns/{domain}'),
    ('DELETE', '/os-floating-ip-dns/{domain}'),
    ('GET', '/os-floating-ip-dns/{domain}/entries/{name}'),
    ('PUT', '/os-floating-ip-dns/{domain}/entries/{name}'),
    ('DELETE', '/os-floating-ip-dns/{domain}/entries/{name}'),
    ('GET', '/os-fping'),
    ('GET', '/os-fping/{server_id}'),
    ('GET', '/os-cells'),
    ('POST', '/os-cells'),
    ('GET', '/os-cells/{cell_id}'),
    ('PUT', '/os-cells/{cell_id}'),
    ('DELETE', '/os-cells/{cell_id}'),
    ('GET', '/os-cells/{cell_id}/capacities'),
    ('GET', '/os-cells/sync_instances'),
    ('POST', '/os-cells/sync_instances'),
    ('PUT', '/os-cells/sync_instances'),
    ('DELETE', '/os-cells/sync_instances'),
    ('GET', '/os-cloudpipe'),
    ('POST', '/os-cloudpipe'),
    ('PUT', '/os-cloudpipe/configure-project'),
    ('GET', '/os-agents'),
    ('POST', '/os-agents'),
    ('PUT', '/os-agents/{agent_id}'),
    ('DELETE', '/os-agents/{agent_id}'),
    ('POST', '/os-certificates'),
    ('GET', '/os-certificates/{certificate_id}'),
    ('GET', '/os-cells/capacities'),
    ('GET', '/os-cells/detail'),
    ('GET', '/os-cells/info'),
    ('PUT', '/os-cloudpipe/{cloudpipe_id}'),
    ('GET', '/servers/{server_id}/consoles'),
    ('POST', '/servers/{server_id}/consoles'),
    ('GET', '/servers/{server_id}/consoles/{console_id}'),
    ('DELETE', '/servers/{server_id}/consoles/{console_id}'),
    ('GET', '/servers/{server_id}/os-virtual-interfaces'),
)
# POST .../action routes and the actions Nova 34 answers 410 to (any
# other action: 400, as Nova).
ACTION_ROUTES = (
    ('/os-networks/{network_id}/action', NetworkActionController,
     ('disassociate', 'disassociate_host', 'disassociate_project',
      'associate_host')),
    ('/os-fixed-ips/{address}/action', FixedIPActionController,
     ('reserve', 'unreserve')),
)
