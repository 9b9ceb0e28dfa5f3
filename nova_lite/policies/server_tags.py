"""Policy defaults for a server's tags (microversion 2.26), as in Nova 34:
readers of the server's project (and administrators) read them, members
(and administrators) change them. The target is the server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-server-tags:%s'
INDEX = POLICY_ROOT % 'index'
SHOW = POLICY_ROOT % 'show'
UPDATE = POLICY_ROOT % 'update'
UPDATE_ALL = POLICY_ROOT % 'update_all'
DELETE = POLICY_ROOT % 'delete'
DELETE_ALL = POLICY_ROOT % 'delete_all'

_ALL = '/servers/{server_id}/tags'
_ONE = _ALL + '/{tag}'
_rule = base.project_rule

rules = [
    _rule(DELETE_ALL, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete all the server tags', 'DELETE', _ALL),
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN,
          'List all tags for given server', 'GET', _ALL),
    _rule(UPDATE_ALL, base.PROJECT_MEMBER_OR_ADMIN,
          'Replace all tags on specified server with the new set of tags.',
          'PUT', _ALL),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete a single tag from the specified server', 'DELETE', _ONE),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Add a single tag to the server if server has no specified tag',
          'PUT', _ONE),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Check tag existence on the server.', 'GET', _ONE),
]


def list_rules():
    return rules
