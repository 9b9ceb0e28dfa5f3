"""Policy defaults for os-availability-zone, as in Nova 34: anyone lists
the zones; the detail (hosts and their services) is for
administrators."""
from oslo_policy import policy

from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-availability-zone:%s'
LIST = POLICY_ROOT % 'list'
DETAIL = POLICY_ROOT % 'detail'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.RULE_ANY,
        description='List availability zone information without host '
                    'information',
        operations=[{'method': 'GET', 'path': '/os-availability-zone'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DETAIL, check_str=base.ADMIN,
        description='List detailed availability zone information with '
                    'host information',
        operations=[{'method': 'GET',
                     'path': '/os-availability-zone/detail'}],
        scope_types=['project']),
]


def list_rules():
    return rules
