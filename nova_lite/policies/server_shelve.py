"""Policy defaults of shelve, shelveOffload, unshelve, rescue and
unrescue, as in Nova 34: members of the server's project (and
administrators) shelve, unshelve, rescue and unrescue it; shelveOffload
is for administrators, and so is unshelving to a host (2.91, the
project's administrators). A server of another project is a 404 before any
of these is checked."""
from oslo_policy import policy

from nova_lite.policies import base

SHELVE = 'os_compute_api:os-shelve:shelve'
SHELVE_OFFLOAD = 'os_compute_api:os-shelve:shelve_offload'
UNSHELVE = 'os_compute_api:os-shelve:unshelve'
UNSHELVE_TO_HOST = 'os_compute_api:os-shelve:unshelve_to_host'
RESCUE = 'os_compute_api:os-rescue'
UNRESCUE = 'os_compute_api:os-unrescue'

_ACTION = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, description, action):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _ACTION % action}],
        scope_types=['project'])


rules = [
    _rule(SHELVE, base.PROJECT_MEMBER_OR_ADMIN, 'Shelve a server.',
          'shelve'),
    _rule(SHELVE_OFFLOAD, base.ADMIN, 'Shelf-offload (remove) a server.',
          'shelveOffload'),
    _rule(UNSHELVE, base.PROJECT_MEMBER_OR_ADMIN,
          'Unshelve (restore) a shelved server.', 'unshelve'),
    _rule(UNSHELVE_TO_HOST, base.ADMIN,
          'Unshelve (restore) a shelve-offloaded server to a specific '
          'host (2.91).', 'unshelve'),
    _rule(RESCUE, base.PROJECT_MEMBER_OR_ADMIN, 'Rescue a server.',
          'rescue'),
    _rule(UNRESCUE, base.PROJECT_MEMBER_OR_ADMIN, 'Unrescue a server.',
          'unrescue'),
]


def list_rules():
    return rules
