"""Request schemas of os-aggregates."""
import copy

from nova_lite.api.openstack import validation

# An availability zone's name: a name without ':' (the separator of
# 'zone:host:node' on boot).
az_name = dict(validation.name, pattern=r'^[^:]*$')
_az_or_null = {'oneOf': [az_name, {'type': 'null'}]}

create = {
    'type': 'object',
    'properties': {
        'aggregate': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'availability_zone': _az_or_null,
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['aggregate'],
    'additionalProperties': False,
}

update = copy.deepcopy(create)
update['properties']['aggregate']['required'] = []
update['properties']['aggregate']['minProperties'] = 1

_host = {
    'type': 'object',
    'properties': {'host': validation.hostname},
    'required': ['host'],
    'additionalProperties': False,
}

add_host = {
    'type': 'object',
    'properties': {'add_host': _host},
    'required': ['add_host'],
    'additionalProperties': False,
}

remove_host = {
    'type': 'object',
    'properties': {'remove_host': _host},
    'required': ['remove_host'],
    'additionalProperties': False,
}

set_metadata = {
    'type': 'object',
    'properties': {
        'set_metadata': {
            'type': 'object',
            'properties': {
                'metadata': {
                    'type': 'object',
                    'patternProperties': {
                        '^[a-zA-Z0-9-_:. ]{1,255}$': {
                            'type': ['string', 'null'], 'maxLength': 255},
                    },
                    'additionalProperties': False,
                },
            },
            'required': ['metadata'],
            'additionalProperties': False,
        },
    },
    'required': ['set_metadata'],
    'additionalProperties': False,
}

# POST /os-aggregates/{id}/images (2.81).
images = {
    'type': 'object',
    'properties': {
        'cache': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {'id': validation.uuid},
                'required': ['id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['cache'],
    'additionalProperties': False,
}
