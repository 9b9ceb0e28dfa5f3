"""Request schemas of createBackup, changePassword, restore and
forceDelete."""
from nova_lite.api.openstack.compute.schemas.server_actions import action
from nova_lite.api.openstack import validation

create_backup = action('createBackup', {
    'type': 'object',
    'properties': {
        'name': validation.name,
        'backup_type': {'type': 'string'},
        'rotation': {
            'type': ['integer', 'string'],
            'pattern': '^[0-9]+$',
            'minimum': 0,
        },
        'metadata': validation.metadata,
    },
    'required': ['name', 'backup_type', 'rotation'],
    'additionalProperties': False,
})

change_password = action('changePassword', {
    'type': 'object',
    'properties': {
        'adminPass': {'type': 'string'},
    },
    'required': ['adminPass'],
    'additionalProperties': False,
})

# As Nova, these actions' values are not looked at (clients send null).
restore = action('restore', {})
force_delete = action('forceDelete', {})
