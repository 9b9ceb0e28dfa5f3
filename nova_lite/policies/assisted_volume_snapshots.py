"""Policy defaults for /os-assisted-volume-snapshots, as in Nova 34:
administrators (the volume service calls it with an admin's token)."""
from nova_lite.policies import base

CREATE = 'os_compute_api:os-assisted-volume-snapshots:create'
DELETE = 'os_compute_api:os-assisted-volume-snapshots:delete'

rules = [
    base.project_rule(CREATE, base.ADMIN,
                      'Create an assisted volume snapshot', 'POST',
                      '/os-assisted-volume-snapshots'),
    base.project_rule(DELETE, base.ADMIN,
                      'Delete an assisted volume snapshot', 'DELETE',
                      '/os-assisted-volume-snapshots/{snapshot_id}'),
]


def list_rules():
    return rules
