"""Policy defaults for os-services (administrators only, as in Nova)."""
from oslo_policy import policy

from nova_lite.policies import base

BASE_POLICY_NAME = 'os_compute_api:os-services:%s'
LIST = BASE_POLICY_NAME % 'list'
UPDATE = BASE_POLICY_NAME % 'update'
DELETE = BASE_POLICY_NAME % 'delete'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.ADMIN,
        description='List all running Compute services in a region.',
        operations=[{'method': 'GET', 'path': '/os-services'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description='Update a Compute service: enable, disable, force down.',
        operations=[{'method': 'PUT', 'path': '/os-services/{service_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete a Compute service.',
        operations=[{'method': 'DELETE',
                     'path': '/os-services/{service_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
