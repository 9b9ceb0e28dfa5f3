"""Policy defaults for key pairs, as in Nova 34: an administrator, or the
user who owns the key pair (the target's user_id is the key pair's user:
the caller's own unless an administrator names another at 2.10+)."""
from oslo_policy import policy

from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-keypairs:%s'
INDEX = POLICY_ROOT % 'index'
CREATE = POLICY_ROOT % 'create'
SHOW = POLICY_ROOT % 'show'
DELETE = POLICY_ROOT % 'delete'

ADMIN_OR_KEY_OWNER = '(' + base.ADMIN + ') or user_id:%(user_id)s'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=ADMIN_OR_KEY_OWNER,
        description='List all keypairs',
        operations=[{'path': '/os-keypairs', 'method': 'GET'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=ADMIN_OR_KEY_OWNER,
        description='Create a keypair',
        operations=[{'path': '/os-keypairs', 'method': 'POST'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=ADMIN_OR_KEY_OWNER,
        description='Delete a keypair',
        operations=[{'path': '/os-keypairs/{keypair_name}',
                     'method': 'DELETE'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=ADMIN_OR_KEY_OWNER,
        description='Show details of a keypair',
        operations=[{'path': '/os-keypairs/{keypair_name}',
                     'method': 'GET'}],
        scope_types=['project']),
]


def list_rules():
    return rules
