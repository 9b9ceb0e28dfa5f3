"""Policy defaults for server groups, as in Nova 34: a project's members
create and delete its groups, its readers list and show them;
administrators see every project's with all_projects."""
from oslo_policy import policy

from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-server-groups:%s'
CREATE = POLICY_ROOT % 'create'
DELETE = POLICY_ROOT % 'delete'
INDEX = POLICY_ROOT % 'index'
INDEX_ALL_PROJECTS = POLICY_ROOT % 'index:all_projects'
SHOW = POLICY_ROOT % 'show'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER,
        description='Create a new server group',
        operations=[{'path': '/os-server-groups', 'method': 'POST'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a server group',
        operations=[{'path': '/os-server-groups/{server_group_id}',
                     'method': 'DELETE'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List all server groups',
        operations=[{'path': '/os-server-groups', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=INDEX_ALL_PROJECTS, check_str=base.ADMIN,
        description='List all server groups for all projects',
        operations=[{'path': '/os-server-groups', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show details of a server group',
        operations=[{'path': '/os-server-groups/{server_group_id}',
                     'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
