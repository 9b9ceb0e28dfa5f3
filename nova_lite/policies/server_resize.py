"""Policy defaults of resize and cold migration, as in Nova 34: a
project's members (and administrators) resize a server and confirm or
revert the resize; only administrators migrate one (cold), naming the
target host or not. Another project's server does not exist for a
non-administrator (404, before any of these rules)."""
from nova_lite.policies import base
from nova_lite.policies import servers

RESIZE = servers.SERVERS % 'resize'
CONFIRM_RESIZE = servers.SERVERS % 'confirm_resize'
REVERT_RESIZE = servers.SERVERS % 'revert_resize'
# Who may resize or migrate a server into another cell (default nobody:
# such a move stays in the server's cell, without error).
CROSS_CELL = 'compute:servers:resize:cross_cell'
MIGRATE = 'os_compute_api:os-migrate-server:migrate'
MIGRATE_HOST = 'os_compute_api:os-migrate-server:migrate:host'

_ACTION = '/servers/{server_id}/action (%s)'
_rule = servers.server_rule

rules = [
    _rule(RESIZE, base.PROJECT_MEMBER_OR_ADMIN, 'Resize a server.',
          [('POST', _ACTION % 'resize')]),
    _rule(CONFIRM_RESIZE, base.PROJECT_MEMBER_OR_ADMIN,
          'Confirm the resize of a server.',
          [('POST', _ACTION % 'confirmResize')]),
    _rule(REVERT_RESIZE, base.PROJECT_MEMBER_OR_ADMIN,
          'Revert the resize of a server.',
          [('POST', _ACTION % 'revertResize')]),
    _rule(MIGRATE, base.PROJECT_MANAGER_OR_ADMIN,
          'Cold migrate a server to a host the scheduler picks '
          '(as Nova 34: the project\'s managers and administrators).',
          [('POST', _ACTION % 'migrate')]),
    _rule(MIGRATE_HOST, base.ADMIN,
          'Cold migrate a server to a host named in the request '
          '(microversion 2.56).', [('POST', _ACTION % 'migrate')]),
    _rule(CROSS_CELL, '!',
          'Let a resize or cold migration move the server to '
          'another cell (the scheduler may pick a host of any '
          'cell). Default: nobody.',
          [('POST', _ACTION % 'resize'),
           ('POST', _ACTION % 'migrate')]),
]


def list_rules():
    return rules
