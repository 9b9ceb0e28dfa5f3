"""Policy defaults of the server actions, as in Nova 34.

Members of the server's project (and administrators) stop, start,
reboot, pause, unpause, suspend, resume, lock and unlock it; unlocking a
lock set by the other kind of caller (an administrator's lock, for the
owner) needs unlock_override (administrators); resetState is for
administrators (resetNetwork, gone with nova-network, has no rule). A
server of another project is a 404 before any of these is checked.
"""
from oslo_policy import policy

from nova_lite.policies import base

START = 'os_compute_api:servers:start'
STOP = 'os_compute_api:servers:stop'
REBOOT = 'os_compute_api:servers:reboot'
PAUSE = 'os_compute_api:os-pause-server:pause'
UNPAUSE = 'os_compute_api:os-pause-server:unpause'
SUSPEND = 'os_compute_api:os-suspend-server:suspend'
RESUME = 'os_compute_api:os-suspend-server:resume'
LOCK = 'os_compute_api:os-lock-server:lock'
UNLOCK = 'os_compute_api:os-lock-server:unlock'
UNLOCK_OVERRIDE = 'os_compute_api:os-lock-server:unlock:unlock_override'
RESET_STATE = 'os_compute_api:os-admin-actions:reset_state'

_ACTION = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, description, action):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _ACTION % action}],
        scope_types=['project'])


rules = [
    _rule(START, base.PROJECT_MEMBER_OR_ADMIN, 'Start a server.',
          'os-start'),
    _rule(STOP, base.PROJECT_MEMBER_OR_ADMIN, 'Stop a server.', 'os-stop'),
    _rule(REBOOT, base.PROJECT_MEMBER_OR_ADMIN, 'Reboot a server.',
          'reboot'),
    _rule(PAUSE, base.PROJECT_MEMBER_OR_ADMIN, 'Pause a server.', 'pause'),
    _rule(UNPAUSE, base.PROJECT_MEMBER_OR_ADMIN, 'Unpause a paused server.',
          'unpause'),
    _rule(SUSPEND, base.PROJECT_MEMBER_OR_ADMIN, 'Suspend a server.',
          'suspend'),
    _rule(RESUME, base.PROJECT_MEMBER_OR_ADMIN,
          'Resume a suspended server.', 'resume'),
    _rule(LOCK, base.PROJECT_MEMBER_OR_ADMIN, 'Lock a server.', 'lock'),
    _rule(UNLOCK, base.PROJECT_MEMBER_OR_ADMIN, 'Unlock a server.',
          'unlock'),
    _rule(UNLOCK_OVERRIDE, base.ADMIN,
          'Unlock a server locked by someone else (an administrator, '
          'for the owner). Checked after %s.' % UNLOCK, 'unlock'),
    _rule(RESET_STATE, base.ADMIN, 'Reset the state of a server.',
          'os-resetState'),
]


def list_rules():
    return rules
