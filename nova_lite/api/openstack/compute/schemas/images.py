"""Schemas of the image proxy (/images, below 2.36; /images/{id}/metadata
below 2.39). Unknown query parameters are ignored, as in Nova; the
filters' values are checked by the controller."""
from nova_lite.api.openstack import validation

_STRING = validation.multi_params({'type': 'string'})
_POSITIVE = validation.multi_params(
    dict(validation.non_negative_integer, minimum=1))

index_query = {
    'type': 'object',
    'properties': {
        'name': _STRING,
        'status': _STRING,
        'changes-since': _STRING,
        'server': _STRING,
        'type': _STRING,
        'minRam': _STRING,
        'minDisk': _STRING,
        # Paging: positive integers (0 is a 400, as in Nova).
        'limit': _POSITIVE,
        'marker': _STRING,
        'page_size': _POSITIVE,
        'offset': _POSITIVE,
    },
    'additionalProperties': True,
}

# POST and PUT /images/{id}/metadata
metadata = {
    'type': 'object',
    'properties': {'metadata': validation.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}

# PUT /images/{id}/metadata/{key}: exactly that one key.
meta = {
    'type': 'object',
    'properties': {'meta': dict(validation.metadata, minProperties=1,
                                maxProperties=1)},
    'required': ['meta'],
    'additionalProperties': False,
}
