"""Policy defaults of GET /servers/{server_id}/migrations[/{id}], as in
Nova 34.

A project's managers (and administrators) list the server's in-progress
live migrations (``index``); the host fields are null without
``index:host``; showing one is for administrators (``show``). A
project's managers (and administrators) force one to complete
(``force_complete``) and abort it (``delete``).
"""
from oslo_policy import policy

from nova_lite.policies import base

ROOT = 'os_compute_api:servers:migrations:%s'
INDEX = ROOT % 'index'
INDEX_HOST = ROOT % 'index:host'
SHOW = ROOT % 'show'
FORCE_COMPLETE = ROOT % 'force_complete'
DELETE = ROOT % 'delete'

_LIST = '/servers/{server_id}/migrations'
_ONE = _LIST + '/{migration_id}'
# Nova 32 split index; an override of index applies to index:host.
_DEPRECATED_INDEX = policy.DeprecatedRule(
    INDEX, base.ADMIN,
    deprecated_reason='servers:migrations:index lists live migrations '
                      'without host information; seeing hosts has its own '
                      'rule.',
    deprecated_since='32.0.0')


def _rule(name, check_str, description, path, deprecated=None,
          method='GET'):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path}],
        scope_types=['project'], deprecated_rule=deprecated)


rules = [
    _rule(SHOW, base.ADMIN,
          'Show an in-progress live migration of a server.', _ONE),
    _rule(INDEX, base.PROJECT_MANAGER_OR_ADMIN,
          'List the in-progress live migrations of a server without host '
          'information.', _LIST),
    _rule(INDEX_HOST, base.ADMIN,
          'List the in-progress live migrations of a server with host '
          'information.', _LIST, _DEPRECATED_INDEX),
    _rule(FORCE_COMPLETE, base.PROJECT_MANAGER_OR_ADMIN,
          'Force an in-progress live migration of a server to complete.',
          _ONE + '/action (force_complete)', method='POST'),
    _rule(DELETE, base.PROJECT_MANAGER_OR_ADMIN,
          'Abort an in-progress live migration of a server.', _ONE,
          method='DELETE'),
]


def list_rules():
    return rules
