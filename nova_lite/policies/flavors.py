"""Policy defaults for flavors, their extra specs and their access lists.

As in Nova 34: listing and showing flavors needs no rule (members see
public flavors and the private ones their project may use); managing
flavors, writing extra specs and adding or removing projects on access
lists are for administrators; reading extra specs is for readers of any
project and administrators (checked against the caller's own project),
and a private flavor the caller's project may not use is then a 404.

Reading an access list is where we differ from Nova 34 on purpose. Nova
34's default for ``os_compute_api:os-flavor-access`` is admin only (its
older admin-or-owner rule is deprecated, and ORed in only with
``[oslo_policy] enforce_new_defaults = False``). Our default is a reader
(or member) of the caller's own project, or an administrator, which is
what Nova answers under its deprecated rule and what clients of the
Compute API have long seen: a member or reader of a project with access
to a private flavor gets the list (200), a project without access does
not see the flavor (404), a public flavor has no list (404), and an
administrator gets every list. A deployment wanting Nova 34's stricter
default sets the rule to ``rule:context_is_admin`` in policy.yaml.
"""
from oslo_policy import policy

from nova_lite.policies import base

MANAGE = 'os_compute_api:os-flavor-manage:%s'
CREATE = MANAGE % 'create'
UPDATE = MANAGE % 'update'
DELETE = MANAGE % 'delete'

EXTRA_SPECS = 'os_compute_api:os-flavor-extra-specs:%s'
EXTRA_SPECS_INDEX = EXTRA_SPECS % 'index'
EXTRA_SPECS_SHOW = EXTRA_SPECS % 'show'
EXTRA_SPECS_CREATE = EXTRA_SPECS % 'create'
EXTRA_SPECS_UPDATE = EXTRA_SPECS % 'update'
EXTRA_SPECS_DELETE = EXTRA_SPECS % 'delete'

ACCESS_LIST = 'os_compute_api:os-flavor-access'
ACCESS_ADD = ACCESS_LIST + ':add_tenant_access'
ACCESS_REMOVE = ACCESS_LIST + ':remove_tenant_access'

_FLAVOR = '/flavors/{flavor_id}'
_SPECS = _FLAVOR + '/os-extra_specs'
_SPEC = _SPECS + '/{flavor_extra_spec_key}'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.ADMIN,
        description='Create a flavor.',
        operations=[{'method': 'POST', 'path': '/flavors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description='Update the description of a flavor (microversion '
                    '2.55).',
        operations=[{'method': 'PUT', 'path': _FLAVOR}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete a flavor.',
        operations=[{'method': 'DELETE', 'path': _FLAVOR}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the extra specs of a flavor. From microversion '
                    '2.61 it also decides whether flavor bodies carry '
                    'extra_specs.',
        operations=[{'method': 'GET', 'path': _SPECS},
                    {'method': 'POST', 'path': '/flavors'},
                    {'method': 'GET', 'path': '/flavors/detail'},
                    {'method': 'GET', 'path': _FLAVOR},
                    {'method': 'PUT', 'path': _FLAVOR}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one extra spec of a flavor.',
        operations=[{'method': 'GET', 'path': _SPEC}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_CREATE, check_str=base.ADMIN,
        description='Create or update extra specs of a flavor.',
        operations=[{'method': 'POST', 'path': _SPECS}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_UPDATE, check_str=base.ADMIN,
        description='Update one extra spec of a flavor.',
        operations=[{'method': 'PUT', 'path': _SPEC}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_DELETE, check_str=base.ADMIN,
        description='Delete one extra spec of a flavor.',
        operations=[{'method': 'DELETE', 'path': _SPEC}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCESS_LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the projects with access to a private flavor. '
                    'Checked against the caller\'s own project, so by '
                    'default readers and members of any project and '
                    'administrators pass; the flavor must then be visible '
                    'to the caller (a private flavor its project may not '
                    'use is a 404). Nova 34 defaults this rule to '
                    'administrators only; we keep the answers its '
                    'deprecated admin-or-owner default gives, and '
                    'rule:context_is_admin restores Nova 34\'s.',
        operations=[{'method': 'GET', 'path': _FLAVOR + '/os-flavor-access'}],
        scope_types=['project'],
        deprecated_rule=policy.DeprecatedRule(
            name=ACCESS_LIST, check_str=base.RULE_ADMIN_OR_OWNER,
            deprecated_reason=base.DEPRECATED_REASON,
            deprecated_since=base.DEPRECATED_SINCE)),
    policy.DocumentedRuleDefault(
        name=ACCESS_ADD, check_str=base.ADMIN,
        description='Give a project access to a private flavor.',
        operations=[{'method': 'POST',
                     'path': _FLAVOR + '/action (addTenantAccess)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCESS_REMOVE, check_str=base.ADMIN,
        description="Remove a project's access to a private flavor.",
        operations=[{'method': 'POST',
                     'path': _FLAVOR + '/action (removeTenantAccess)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
