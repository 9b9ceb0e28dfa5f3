"""Policy defaults for os-hosts (below 2.43): administrators only, as in
Nova 34."""
from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-hosts:%s'
LIST = POLICY_ROOT % 'list'
SHOW = POLICY_ROOT % 'show'
UPDATE = POLICY_ROOT % 'update'
REBOOT = POLICY_ROOT % 'reboot'
SHUTDOWN = POLICY_ROOT % 'shutdown'
START = POLICY_ROOT % 'start'

_rule = base.project_rule

rules = [
    _rule(LIST, base.ADMIN, 'List physical hosts. This API is deprecated.',
          'GET', '/os-hosts'),
    _rule(SHOW, base.ADMIN, 'Show physical host. This API is deprecated.',
          'GET', '/os-hosts/{host_name}'),
    _rule(UPDATE, base.ADMIN,
          'Update physical host. This API is deprecated.', 'PUT',
          '/os-hosts/{host_name}'),
    _rule(REBOOT, base.ADMIN,
          'Reboot physical host. This API is deprecated.', 'GET',
          '/os-hosts/{host_name}/reboot'),
    _rule(SHUTDOWN, base.ADMIN,
          'Shutdown physical host. This API is deprecated.', 'GET',
          '/os-hosts/{host_name}/shutdown'),
    _rule(START, base.ADMIN,
          'Start physical host. This API is deprecated.', 'GET',
          '/os-hosts/{host_name}/startup'),
]


def list_rules():
    return rules
