"""Policy defaults for a server's security groups, as in Nova 34:
readers of the server's project (and administrators) list them
(GET /servers/{id}/os-security-groups), members (and administrators)
add and remove them (the addSecurityGroup and removeSecurityGroup
actions). The target is the server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-security-groups:%s'
LIST = POLICY_ROOT % 'list'
ADD = POLICY_ROOT % 'add'
REMOVE = POLICY_ROOT % 'remove'

_ACTION = '/servers/{server_id}/action'
_rule = base.project_rule

rules = [
    _rule(LIST, base.PROJECT_READER_OR_ADMIN,
          'List security groups of server.', 'GET',
          '/servers/{server_id}/os-security-groups'),
    _rule(ADD, base.PROJECT_MEMBER_OR_ADMIN,
          'Add security groups to server.', 'POST',
          _ACTION + ' (addSecurityGroup)'),
    _rule(REMOVE, base.PROJECT_MEMBER_OR_ADMIN,
          'Remove security groups from server.', 'POST',
          _ACTION + ' (removeSecurityGroup)'),
]


def list_rules():
    return rules
