"""Policy defaults for limits, quota sets and quota classes, as in Nova
34: anyone sees their own project's limits and the defaults; a project
reader sees its project's quotas; administrators everything, and only
they set, delete and see other projects' (a member cannot set its
own: 403)."""
from oslo_policy import policy

from nova_lite.policies import base

LIMITS = 'os_compute_api:limits'
LIMITS_OTHER_PROJECT = 'os_compute_api:limits:other_project'
QS_ROOT = 'os_compute_api:os-quota-sets:%s'
QS_SHOW = QS_ROOT % 'show'
QS_UPDATE = QS_ROOT % 'update'
QS_DEFAULTS = QS_ROOT % 'defaults'
QS_DELETE = QS_ROOT % 'delete'
QS_DETAIL = QS_ROOT % 'detail'
QCS_SHOW = 'os_compute_api:os-quota-class-sets:show'
QCS_UPDATE = 'os_compute_api:os-quota-class-sets:update'

_QS = '/os-quota-sets/{tenant_id}'
_QCS = '/os-quota-class-sets/{quota_class}'

rules = [
    policy.DocumentedRuleDefault(
        name=LIMITS, check_str=base.RULE_ANY,
        description='Show rate and absolute limits for the current user '
                    'project',
        operations=[{'method': 'GET', 'path': '/limits'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIMITS_OTHER_PROJECT, check_str=base.ADMIN,
        description='Show rate and absolute limits of other project',
        operations=[{'method': 'GET', 'path': '/limits'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QS_UPDATE, check_str=base.ADMIN,
        description='Update the quotas',
        operations=[{'method': 'PUT', 'path': _QS}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QS_DEFAULTS, check_str=base.RULE_ANY,
        description='List default quotas',
        operations=[{'method': 'GET', 'path': _QS + '/defaults'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QS_SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a quota',
        operations=[{'method': 'GET', 'path': _QS}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QS_DELETE, check_str=base.ADMIN,
        description='Revert quotas to defaults',
        operations=[{'method': 'DELETE', 'path': _QS}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QS_DETAIL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the detail of quota',
        operations=[{'method': 'GET', 'path': _QS + '/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QCS_SHOW, check_str=base.ADMIN,
        description='List quotas for specific quota classes',
        operations=[{'method': 'GET', 'path': _QCS}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QCS_UPDATE, check_str=base.ADMIN,
        description='Update quotas for specific quota class',
        operations=[{'method': 'PUT', 'path': _QCS}],
        scope_types=['project']),
]


def list_rules():
    return rules
