"""Policy defaults of os-migrateLive, as in Nova 34: a project's
managers (and administrators) live-migrate a server to a host the
scheduler picks; naming the host is for administrators. Another
project's server does not exist for a non-administrator (404, before
these rules)."""
from oslo_policy import policy

from nova_lite.policies import base
from nova_lite.policies import servers

ROOT = 'os_compute_api:os-migrate-server:%s'
MIGRATE_LIVE = ROOT % 'migrate_live'
MIGRATE_LIVE_HOST = ROOT % 'migrate_live:host'

_ACTION = [('POST', '/servers/{server_id}/action (os-migrateLive)')]
# Nova 32 split migrate_live; an override of it applies to :host too.
_DEPRECATED = policy.DeprecatedRule(
    MIGRATE_LIVE, base.ADMIN,
    deprecated_reason='migrate_live lets a live migration go where the '
                      'scheduler picks; naming the host has its own rule.',
    deprecated_since='32.0.0')

rules = [
    servers.server_rule(
        MIGRATE_LIVE, base.PROJECT_MANAGER_OR_ADMIN,
        'Live migrate a server to a new host without a reboot, without '
        'specifying a host.', _ACTION),
    policy.DocumentedRuleDefault(
        name=MIGRATE_LIVE_HOST, check_str=base.ADMIN,
        description='Live migrate a server to a specified host without a '
                    'reboot.',
        operations=[{'method': m, 'path': p} for m, p in _ACTION],
        scope_types=['project'], deprecated_rule=_DEPRECATED),
]


def list_rules():
    return rules
