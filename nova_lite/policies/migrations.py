"""Policy defaults of GET /os-migrations, as in Nova 34.

``index`` lets a project's managers (and administrators) list
migrations; listing every project's, or another project's (anything
but ``project_id`` = the caller's own, 2.80), also needs
``index:all_projects``; without ``index:host`` the host fields
(source_compute, source_node, dest_compute, dest_node, dest_host) are
null. The two finer rules take over an operator's override of
``index`` (their deprecated rule), as in Nova.
"""
from oslo_policy import policy

from nova_lite.policies import base

ROOT = 'os_compute_api:os-migrations:%s'
INDEX = ROOT % 'index'
INDEX_ALL_PROJECTS = ROOT % 'index:all_projects'
INDEX_HOST = ROOT % 'index:host'

_PATH = '/os-migrations'
# Nova 32 split index; an override of index applies to the new rules.
_DEPRECATED_INDEX = policy.DeprecatedRule(
    INDEX, base.ADMIN,
    deprecated_reason='os-migrations:index lists migrations without host '
                      'information; listing every project and seeing hosts '
                      'have their own rules.',
    deprecated_since='32.0.0')


def _rule(name, check_str, description, deprecated=None):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'GET', 'path': _PATH}],
        scope_types=['project'], deprecated_rule=deprecated)


rules = [
    _rule(INDEX, base.PROJECT_MANAGER_OR_ADMIN,
          'List migrations without host information.'),
    _rule(INDEX_ALL_PROJECTS, base.ADMIN,
          'List the migrations of every project, or of another project.',
          _DEPRECATED_INDEX),
    _rule(INDEX_HOST, base.ADMIN,
          'List migrations with their host information.',
          _DEPRECATED_INDEX),
]


def list_rules():
    return rules
