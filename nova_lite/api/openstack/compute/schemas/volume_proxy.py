"""Request schemas of the volume proxies (os-volumes, os-snapshots,
below 2.36), as Nova's."""
from nova_lite.api.openstack import validation

# POST /os-volumes
create_volume = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'volume_type': {'type': 'string'},
                'metadata': {'type': 'object', 'properties': {},
                             'additionalProperties': True},
                'snapshot_id': {'type': 'string'},
                'size': {'type': ['integer', 'string'],
                         'pattern': '^[0-9]+$', 'minimum': 1},
                'availability_zone': {'type': 'string'},
                'display_name': {'type': 'string'},
                'display_description': {'type': 'string'},
            },
            'required': ['size'],
            'additionalProperties': False,
        },
    },
    'required': ['volume'],
    'additionalProperties': False,
}

# POST /os-snapshots
create_snapshot = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'volume_id': {'type': 'string'},
                'force': validation.boolean,
                'display_name': {'type': 'string'},
                'display_description': {'type': 'string'},
            },
            'required': ['volume_id'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

# GET /os-volumes[/detail], /os-snapshots[/detail]: others ignored.
index_query = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(validation.non_negative_integer),
        'offset': validation.multi_params(validation.non_negative_integer),
    },
    'additionalProperties': True,
}
