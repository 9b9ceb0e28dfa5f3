"""Request schemas of os-migrateLive (POST /servers/{id}/action) and
force_complete (POST /servers/{id}/migrations/{id}/action), per
microversion, as the Compute API reference gives them."""
import copy

from nova_lite.api.openstack.compute.schemas import server_actions
from nova_lite.api.openstack import validation

_action = server_actions.action

_HOST = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}


def _migrate_live(block_migration, **extra):
    properties = dict({'block_migration': block_migration,
                       'host': _HOST}, **extra)
    required = ['block_migration', 'host'] + (
        ['disk_over_commit'] if 'disk_over_commit' in extra else [])
    return _action('os-migrateLive', {
        'type': 'object',
        'properties': properties,
        'required': required,
        'additionalProperties': False,
    })


_BLOCK_AUTO = copy.deepcopy(validation.boolean)
_BLOCK_AUTO['enum'] = list(_BLOCK_AUTO['enum']) + ['auto']

# 2.1 - 2.24: block_migration and disk_over_commit (booleans), host.
migrate_live = _migrate_live(validation.boolean,
                             disk_over_commit=validation.boolean)
# 2.25 - 2.29: block_migration may be 'auto'; no disk_over_commit.
migrate_live_v225 = _migrate_live(_BLOCK_AUTO)
# 2.30 - 2.67: force.
migrate_live_v230 = _migrate_live(_BLOCK_AUTO, force=validation.boolean)
# 2.68: no force again.
migrate_live_v268 = migrate_live_v225

force_complete = _action('force_complete', {'type': 'null'})
