"""Request schemas of shelve, shelveOffload, unshelve (per
microversion), rescue and unrescue."""
from nova_lite.api.openstack.compute.schemas.server_actions import action
from nova_lite.api.openstack import validation

# As Nova, these actions' values are not looked at (clients send null).
shelve = action('shelve', {})
shelve_offload = action('shelveOffload', {})
unrescue = action('unrescue', {})
unshelve = action('unshelve', {})

# 2.77: null, or an object naming the availability zone an offloaded
# server goes to.
unshelve_v277 = action('unshelve', {
    'type': ['object', 'null'],
    'properties': {
        'availability_zone': validation.name,
    },
    'additionalProperties': False,
})

# 2.91: also a host (administrators), and an availability_zone of null
# (unpin the server).
unshelve_v291 = action('unshelve', {
    'type': ['object', 'null'],
    'properties': {
        'availability_zone': {'oneOf': [{'type': 'null'}, validation.name]},
        'host': validation.hostname,
    },
    'additionalProperties': False,
})

rescue = action('rescue', {
    'type': ['object', 'null'],
    'properties': {
        'adminPass': {'type': 'string'},
        'rescue_image_ref': validation.uuid,
    },
    'additionalProperties': False,
})
