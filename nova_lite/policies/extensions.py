"""Policy default for /extensions, as in Nova 34: anyone may list them."""
from oslo_policy import policy

from nova_lite.policies import base

BASE = 'os_compute_api:extensions'

rules = [
    policy.DocumentedRuleDefault(
        name=BASE, check_str=base.RULE_ANY,
        description='List available extensions and show information '
                    'for an extension by alias',
        operations=[{'method': 'GET', 'path': '/extensions'},
                    {'method': 'GET', 'path': '/extensions/{alias}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
