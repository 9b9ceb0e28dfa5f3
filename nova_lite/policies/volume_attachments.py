"""Policy defaults for /servers/{id}/os-volume_attachments, as in Nova
34: readers of the server's project (and administrators) list and show,
members (and administrators) attach, update and detach; swapping a
volume for another is for the service role only. The target is the
server's project."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-volumes-attachments:%s'
INDEX = POLICY_ROOT % 'index'
CREATE = POLICY_ROOT % 'create'
SHOW = POLICY_ROOT % 'show'
UPDATE = POLICY_ROOT % 'update'
SWAP = POLICY_ROOT % 'swap'
DELETE = POLICY_ROOT % 'delete'
SERVICE_ROLE = 'role:service'

_ALL = '/servers/{server_id}/os-volume_attachments'
_ONE = _ALL + '/{volume_id}'
_rule = base.project_rule

rules = [
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN,
          "List volume attachments for an instance", 'GET', _ALL),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Attach a volume to an instance', 'POST', _ALL),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show details of a volume attachment', 'GET', _ONE),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN,
          'Update a volume attachment (its delete_on_termination, from '
          'microversion 2.85)', 'PUT', _ONE),
    _rule(SWAP, SERVICE_ROLE,
          'Update a volume attachment with a different volumeId (swap)',
          'PUT', _ONE),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Detach a volume from an instance', 'DELETE', _ONE),
]


def list_rules():
    return rules
