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
# The proxy to the network service's groups (below 2.36).
GET = POLICY_ROOT % 'get'
SHOW = POLICY_ROOT % 'show'
CREATE = POLICY_ROOT % 'create'
UPDATE = POLICY_ROOT % 'update'
DELETE = POLICY_ROOT % 'delete'
RULE_CREATE = POLICY_ROOT % 'rule:create'
RULE_DELETE = POLICY_ROOT % 'rule:delete'

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
    _rule(GET, base.PROJECT_READER_OR_ADMIN,
          'List security groups. This API is deprecated.', 'GET',
          '/os-security-groups'),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show security group. This API is deprecated.', 'GET',
          '/os-security-groups/{security_group_id}'),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create security group. This API is deprecated.', 'POST',
          '/os-security-groups'),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Update security group. This API is deprecated.', 'PUT',
          '/os-security-groups/{security_group_id}'),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete security group. This API is deprecated.', 'DELETE',
          '/os-security-groups/{security_group_id}'),
    _rule(RULE_CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create security group Rule. This API is deprecated.', 'POST',
          '/os-security-group-rules'),
    _rule(RULE_DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete security group Rule. This API is deprecated.', 'DELETE',
          '/os-security-group-rules/{security_group_id}'),
]


def list_rules():
    return rules
