"""Policy defaults of createBackup, changePassword, restore,
forceDelete and /servers/{id}/os-server-password, as in Nova 34:
members of the server's project (and administrators) back it up, change
its password, restore or force-delete it and clear the password its
guest posted; readers read that. A server of
another project is a 404 before any of these is checked."""
from oslo_policy import policy

from nova_lite.policies import base

CREATE_BACKUP = 'os_compute_api:os-create-backup'
CHANGE_PASSWORD = 'os_compute_api:os-admin-password'
PASSWORD_SHOW = 'os_compute_api:os-server-password:show'
PASSWORD_CLEAR = 'os_compute_api:os-server-password:clear'
RESTORE = 'os_compute_api:os-deferred-delete:restore'
FORCE_DELETE = 'os_compute_api:os-deferred-delete:force'

_ACTION = '/servers/{server_id}/action (%s)'
_PASSWORD = '/servers/{server_id}/os-server-password'


def _rule(name, check_str, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path}],
        scope_types=['project'])


rules = [
    _rule(CREATE_BACKUP, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a back up of a server.', 'POST',
          _ACTION % 'createBackup'),
    _rule(CHANGE_PASSWORD, base.PROJECT_MEMBER_OR_ADMIN,
          'Change the administrative password for a server.', 'POST',
          _ACTION % 'changePassword'),
    _rule(PASSWORD_SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show the encrypted administrative password of a server.', 'GET',
          _PASSWORD),
    _rule(PASSWORD_CLEAR, base.PROJECT_MEMBER_OR_ADMIN,
          'Clear the encrypted administrative password of a server.',
          'DELETE', _PASSWORD),
    _rule(RESTORE, base.PROJECT_MEMBER_OR_ADMIN,
          'Restore a soft deleted server.', 'POST', _ACTION % 'restore'),
    _rule(FORCE_DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Force delete a server before deferred cleanup.', 'POST',
          _ACTION % 'forceDelete'),
]


def list_rules():
    return rules
