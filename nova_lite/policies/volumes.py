"""Policy defaults of the volume proxies Nova 34 still serves below 2.36
(os-volumes, os-snapshots), as Nova's: readers of a project (and
administrators) list and show, members create and delete. The target
is the caller's own project (the volume service decides what it
sees)."""
from nova_lite.policies import base

_NAME = 'os_compute_api:os-volumes:%s'
LIST = _NAME % 'list'
CREATE = _NAME % 'create'
DETAIL = _NAME % 'detail'
SHOW = _NAME % 'show'
DELETE = _NAME % 'delete'
SNAPSHOTS_LIST = _NAME % 'snapshots:list'
SNAPSHOTS_CREATE = _NAME % 'snapshots:create'
SNAPSHOTS_DETAIL = _NAME % 'snapshots:detail'
SNAPSHOTS_SHOW = _NAME % 'snapshots:show'
SNAPSHOTS_DELETE = _NAME % 'snapshots:delete'

_rule = base.project_rule
_DEPRECATED = 'This API is a proxy call to the Volume service. It is ' \
              'deprecated.'

rules = [
    _rule(LIST, base.PROJECT_READER_OR_ADMIN,
          'List volumes. ' + _DEPRECATED, 'GET', '/os-volumes'),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create volume. ' + _DEPRECATED, 'POST', '/os-volumes'),
    _rule(DETAIL, base.PROJECT_READER_OR_ADMIN,
          'List volumes detail. ' + _DEPRECATED, 'GET',
          '/os-volumes/detail'),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show volume. ' + _DEPRECATED, 'GET', '/os-volumes/{volume_id}'),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete volume. ' + _DEPRECATED, 'DELETE',
          '/os-volumes/{volume_id}'),
    _rule(SNAPSHOTS_LIST, base.PROJECT_READER_OR_ADMIN,
          'List snapshots. ' + _DEPRECATED, 'GET', '/os-snapshots'),
    _rule(SNAPSHOTS_CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create snapshots. ' + _DEPRECATED, 'POST', '/os-snapshots'),
    _rule(SNAPSHOTS_DETAIL, base.PROJECT_READER_OR_ADMIN,
          'List snapshots details. ' + _DEPRECATED, 'GET',
          '/os-snapshots/detail'),
    _rule(SNAPSHOTS_SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show snapshot. ' + _DEPRECATED, 'GET',
          '/os-snapshots/{snapshot_id}'),
    _rule(SNAPSHOTS_DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete snapshot. ' + _DEPRECATED, 'DELETE',
          '/os-snapshots/{snapshot_id}'),
]


def list_rules():
    return rules
