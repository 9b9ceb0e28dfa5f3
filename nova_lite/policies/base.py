"""Base rules and personas every resource's defaults are written with."""
from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'
RULE_ANY = '@'
RULE_NOBODY = '!'

# Personas, as in Nova's secure RBAC defaults.
ADMIN = 'rule:context_is_admin'
PROJECT_ADMIN = 'rule:project_admin_api'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       'Decides what is required for the admin role.'),
    policy.RuleDefault('admin_api', 'is_admin:True or role:admin',
                       'Default rule for administrative APIs.'),
    policy.RuleDefault('project_admin_api',
                       'role:admin and project_id:%(project_id)s',
                       'Default rule for project-level admin APIs.'),
    policy.RuleDefault('project_member_api',
                       'role:member and project_id:%(project_id)s',
                       'Default rule for project-level non-admin APIs.'),
    policy.RuleDefault('project_reader_api',
                       'role:reader and project_id:%(project_id)s',
                       'Default rule for project-level read-only APIs.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:project_member_api or rule:context_is_admin',
                       'Default rule for project member or admin APIs.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:project_reader_api or rule:context_is_admin',
                       'Default rule for project reader or admin APIs.'),
]


def list_rules():
    return rules
