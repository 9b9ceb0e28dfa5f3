"""Schemas of /servers/{id}/shares (2.97)."""
from nova_lite.api.openstack import validation

# The name the guest mounts the share by (the share's id by default).
tag = {'type': 'string', 'minLength': 1, 'maxLength': 48,
       'pattern': '^[a-zA-Z0-9._-]+$'}

# POST
create = {
    'type': 'object',
    'properties': {
        'share': {
            'type': 'object',
            'properties': {
                'share_id': validation.uuid,
                'tag': tag,
            },
            'required': ['share_id'],
            'additionalProperties': False,
        },
    },
    'required': ['share'],
    'additionalProperties': False,
}

# GET (list and show): no query parameter.
index_query = {'type': 'object', 'properties': {},
               'additionalProperties': False}
show_query = index_query
