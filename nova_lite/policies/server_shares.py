"""Policy defaults for /servers/{id}/shares (2.97), as in Nova 34:
readers of the server's project (or an administrator) list and show,
its members (or an administrator) attach and detach, as Nova 34's
os-server-shares defaults. The target is the server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-server-shares:%s'
INDEX = POLICY_ROOT % 'index'
CREATE = POLICY_ROOT % 'create'
SHOW = POLICY_ROOT % 'show'
DELETE = POLICY_ROOT % 'delete'

_ALL = '/servers/{server_id}/shares'
_ONE = _ALL + '/{share_id}'
_rule = base.project_rule

rules = [
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN,
          'List all shares for given server', 'GET', _ALL),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Attach a share to the specified server', 'POST', _ALL),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show a share configured for the specified server', 'GET', _ONE),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Detach a share to the specified server', 'DELETE', _ONE),
]


def list_rules():
    return rules
