"""Policy default of evacuate, as in Nova 34: administrators only.
Another project's server does not exist for a non-administrator (404,
before this rule)."""
from nova_lite.policies import base
from nova_lite.policies import servers

EVACUATE = 'os_compute_api:os-evacuate'

rules = [
    servers.server_rule(
        EVACUATE, base.ADMIN,
        'Evacuate a server from a failed host to a new host.',
        [('POST', '/servers/{server_id}/action (evacuate)')]),
]


def list_rules():
    return rules
