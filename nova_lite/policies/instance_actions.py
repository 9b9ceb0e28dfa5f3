"""Policy defaults of os-instance-actions, as in Nova 34.

Readers of the server's project (and administrators) list its actions
and show one; the events' tracebacks (and, before 2.51, the events
themselves) and, from 2.62, the events' host are for administrators
(``events``); from 2.84 the events' details too (``events:details``).
"""
from oslo_policy import policy

from nova_lite.policies import base

ROOT = 'os_compute_api:os-instance-actions:%s'
LIST = ROOT % 'list'
SHOW = ROOT % 'show'
EVENTS = ROOT % 'events'
EVENTS_DETAILS = ROOT % 'events:details'

_ACTIONS = '/servers/{server_id}/os-instance-actions'
_ACTION = _ACTIONS + '/{request_id}'


def _rule(name, check_str, description, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'GET', 'path': path}],
        scope_types=['project'])


rules = [
    _rule(LIST, base.PROJECT_READER_OR_ADMIN,
          'List the actions of a server.', _ACTIONS),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show one action of a server.', _ACTION),
    _rule(EVENTS, base.ADMIN,
          "Show an action's events with their traceback and (2.62) host; "
          'from 2.51 everyone allowed to show sees the events without '
          'them. Checked after %s.' % SHOW, _ACTION),
    _rule(EVENTS_DETAILS, base.ADMIN,
          "Show the events' details (2.84). Checked after %s." % SHOW,
          _ACTION),
]


def list_rules():
    return rules
