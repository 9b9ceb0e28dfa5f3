"""Policy defaults for /servers/{id}/os-interface, as in Nova 34:
readers of the server's project (and administrators) list and show its
interfaces, members (and administrators) attach and detach them. The
target is the server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-attach-interfaces:%s'
LIST = POLICY_ROOT % 'list'
SHOW = POLICY_ROOT % 'show'
CREATE = POLICY_ROOT % 'create'
DELETE = POLICY_ROOT % 'delete'

_ALL = '/servers/{server_id}/os-interface'
_ONE = _ALL + '/{port_id}'
_rule = base.project_rule

rules = [
    _rule(LIST, base.PROJECT_READER_OR_ADMIN,
          'List port interfaces attached to a server', 'GET', _ALL),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show details of a port interface attached to a server', 'GET',
          _ONE),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Attach an interface to a server', 'POST', _ALL),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Detach an interface from a server', 'DELETE', _ONE),
]


def list_rules():
    return rules
