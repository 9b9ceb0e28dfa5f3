"""Schemas of /servers/{id}/metadata (the same at every microversion)."""
from nova_lite.api.openstack import validation

# POST (merge) and PUT (replace) /servers/{id}/metadata
metadata = {
    'type': 'object',
    'properties': {'metadata': validation.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}

# PUT /servers/{id}/metadata/{key}: exactly one key, the URL's.
meta = {
    'type': 'object',
    'properties': {'meta': dict(validation.metadata, minProperties=1,
                                maxProperties=1)},
    'required': ['meta'],
    'additionalProperties': False,
}
