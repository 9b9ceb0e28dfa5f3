"""Policy defaults for a server's metadata, as in Nova 34: readers of the
server's project (and administrators) read it, members (and
administrators) change it. The target is the server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:server-metadata:%s'
INDEX = POLICY_ROOT % 'index'
SHOW = POLICY_ROOT % 'show'
CREATE = POLICY_ROOT % 'create'
UPDATE_ALL = POLICY_ROOT % 'update_all'
UPDATE = POLICY_ROOT % 'update'
DELETE = POLICY_ROOT % 'delete'

_ALL = '/servers/{server_id}/metadata'
_ONE = _ALL + '/{key}'
_rule = base.project_rule

rules = [
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN,
          'List all metadata of a server', 'GET', _ALL),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show metadata for a server', 'GET', _ONE),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create metadata for a server', 'POST', _ALL),
    _rule(UPDATE_ALL, base.PROJECT_MEMBER_OR_ADMIN,
          'Replace metadata for a server', 'PUT', _ALL),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Update metadata from a server', 'PUT', _ONE),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete metadata from a server', 'DELETE', _ONE),
]


def list_rules():
    return rules
