"""Policy defaults of the floating-IP proxy Nova 34 still serves below
2.36 (os-floating-ips) and of the addFloatingIp/removeFloatingIp and
addFixedIp/removeFixedIp server actions (below 2.44), as Nova's:
readers of a project (and administrators) list and show floating IPs,
members allocate, release, associate and disassociate them and add or
remove fixed IPs. The target of the proxy is the caller's own project;
of the actions, the server's (removeFloatingIp: the server the
floating IP is associated with, none when it is not, which only an
administrator passes)."""
from nova_lite.policies import base

_FIP = 'os_compute_api:os-floating-ips:%s'
ADD = _FIP % 'add'
REMOVE = _FIP % 'remove'
LIST = _FIP % 'list'
CREATE = _FIP % 'create'
SHOW = _FIP % 'show'
DELETE = _FIP % 'delete'
_MULTINIC = 'os_compute_api:os-multinic:%s'
ADD_FIXED_IP = _MULTINIC % 'add'
REMOVE_FIXED_IP = _MULTINIC % 'remove'

_rule = base.project_rule
_DEPRECATED = 'This API is deprecated.'

rules = [
    _rule(ADD, base.PROJECT_MEMBER_OR_ADMIN,
          'Associate floating IPs to server. ' + _DEPRECATED, 'POST',
          '/servers/{server_id}/action (addFloatingIp)'),
    _rule(REMOVE, base.PROJECT_MEMBER_OR_ADMIN,
          'Disassociate floating IPs to server. ' + _DEPRECATED, 'POST',
          '/servers/{server_id}/action (removeFloatingIp)'),
    _rule(LIST, base.PROJECT_READER_OR_ADMIN,
          'List floating IPs. ' + _DEPRECATED, 'GET', '/os-floating-ips'),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create floating IPs. ' + _DEPRECATED, 'POST',
          '/os-floating-ips'),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show floating IPs. ' + _DEPRECATED, 'GET',
          '/os-floating-ips/{floating_ip_id}'),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete floating IPs. ' + _DEPRECATED, 'DELETE',
          '/os-floating-ips/{floating_ip_id}'),
    _rule(ADD_FIXED_IP, base.PROJECT_MEMBER_OR_ADMIN,
          'Add a fixed IP address to a server. ' + _DEPRECATED, 'POST',
          '/servers/{server_id}/action (addFixedIp)'),
    _rule(REMOVE_FIXED_IP, base.PROJECT_MEMBER_OR_ADMIN,
          'Remove a fixed IP address from a server. ' + _DEPRECATED, 'POST',
          '/servers/{server_id}/action (removeFixedIp)'),
]


def list_rules():
    return rules
