"""Policy defaults for POST /os-server-external-events, as in Nova 34:
administrators (the other services call it with an admin's token)."""
from nova_lite.policies import base

CREATE = 'os_compute_api:os-server-external-events:create'

rules = [
    base.project_rule(CREATE, base.ADMIN,
                      'Create one or more external events', 'POST',
                      '/os-server-external-events'),
]


def list_rules():
    return rules
