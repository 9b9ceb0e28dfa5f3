"""Policy defaults for os-hypervisors (administrators only, as in Nova)."""
from oslo_policy import policy

from nova_lite.policies import base

BASE_POLICY_NAME = 'os_compute_api:os-hypervisors:%s'
LIST = BASE_POLICY_NAME % 'list'
LIST_DETAIL = BASE_POLICY_NAME % 'list-detail'
SHOW = BASE_POLICY_NAME % 'show'
STATISTICS = BASE_POLICY_NAME % 'statistics'
SEARCH = BASE_POLICY_NAME % 'search'
SERVERS = BASE_POLICY_NAME % 'servers'
UPTIME = BASE_POLICY_NAME % 'uptime'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.ADMIN,
        description='List all hypervisors.',
        operations=[{'method': 'GET', 'path': '/os-hypervisors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST_DETAIL, check_str=base.ADMIN,
        description='List all hypervisors with details.',
        operations=[{'method': 'GET', 'path': '/os-hypervisors/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.ADMIN,
        description='Show details for a hypervisor.',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=STATISTICS, check_str=base.ADMIN,
        description='Show summary statistics for all hypervisors over all '
                    'compute nodes (before microversion 2.88).',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/statistics'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPTIME, check_str=base.ADMIN,
        description='Show the uptime of a hypervisor (before microversion '
                    '2.88).',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_id}/uptime'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SEARCH, check_str=base.ADMIN,
        description='Search hypervisors by hypervisor_hostname pattern '
                    '(before microversion 2.53).',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_hostname_pattern}'
                             '/search'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS, check_str=base.ADMIN,
        description='List the servers on hypervisors matching a '
                    'hypervisor_hostname pattern (before microversion 2.53).',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_hostname_pattern}'
                             '/servers'}],
        scope_types=['project']),
]


def list_rules():
    return rules
