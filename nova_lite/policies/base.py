"""Base rules and personas every resource's defaults are written with.

As in Nova 34, each persona rule names the deprecated rule it replaced;
oslo.policy ORs that in only with ``[oslo_policy] enforce_new_defaults =
False`` (the default is True: the personas alone decide).
"""
from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'
RULE_ADMIN_OR_OWNER = 'rule:admin_or_owner'
RULE_ANY = '@'
RULE_NOBODY = '!'

# Personas, as in Nova's secure RBAC defaults.
ADMIN = 'rule:context_is_admin'
PROJECT_ADMIN = 'rule:project_admin_api'
PROJECT_MANAGER = 'rule:project_manager_api'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MANAGER_OR_ADMIN = 'rule:project_manager_or_admin'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'

DEPRECATED_REASON = ('nova_lite policies default to the personas '
                     'reader, member and admin of a project.')
DEPRECATED_SINCE = '21.0.0'   # Nova's release that deprecated them
DEPRECATED_ADMIN = policy.DeprecatedRule(
    name=RULE_ADMIN_API, check_str='is_admin:True',
    deprecated_reason=DEPRECATED_REASON, deprecated_since=DEPRECATED_SINCE)
DEPRECATED_ADMIN_OR_OWNER = policy.DeprecatedRule(
    name=RULE_ADMIN_OR_OWNER,
    check_str='is_admin:True or project_id:%(project_id)s',
    deprecated_reason=DEPRECATED_REASON, deprecated_since=DEPRECATED_SINCE)


def project_rule(name, check_str, description, method, path):
    """A documented project-scoped rule for one operation."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path}],
        scope_types=['project'])


def _persona(name, check_str, description, deprecated):
    return policy.RuleDefault(name, check_str, description,
                              deprecated_rule=deprecated)


rules = [
    _persona('context_is_admin', 'role:admin',
             'Decides what is required for the admin role.',
             DEPRECATED_ADMIN),
    policy.RuleDefault('admin_api', 'is_admin:True or role:admin',
                       'Default rule for administrative APIs.'),
    policy.RuleDefault('admin_or_owner',
                       'is_admin:True or project_id:%(project_id)s',
                       'Deprecated default rule for most non-admin APIs.',
                       deprecated_for_removal=True,
                       deprecated_reason=DEPRECATED_REASON,
                       deprecated_since=DEPRECATED_SINCE),
    policy.RuleDefault('project_admin_api',
                       'role:admin and project_id:%(project_id)s',
                       'Default rule for project-level admin APIs.'),
    _persona('project_manager_api',
             'role:manager and project_id:%(project_id)s',
             'Default rule for project-level management APIs.',
             DEPRECATED_ADMIN),
    _persona('project_member_api',
             'role:member and project_id:%(project_id)s',
             'Default rule for project-level non-admin APIs.',
             DEPRECATED_ADMIN_OR_OWNER),
    _persona('project_reader_api',
             'role:reader and project_id:%(project_id)s',
             'Default rule for project-level read-only APIs.',
             DEPRECATED_ADMIN_OR_OWNER),
    _persona('project_manager_or_admin',
             'rule:project_manager_api or rule:context_is_admin',
             'Default rule for project manager or admin APIs.',
             DEPRECATED_ADMIN),
    _persona('project_member_or_admin',
             'rule:project_member_api or rule:context_is_admin',
             'Default rule for project member or admin APIs.',
             DEPRECATED_ADMIN_OR_OWNER),
    _persona('project_reader_or_admin',
             'rule:project_reader_api or rule:context_is_admin',
             'Default rule for project reader or admin APIs.',
             DEPRECATED_ADMIN_OR_OWNER),
]


def list_rules():
    return rules
