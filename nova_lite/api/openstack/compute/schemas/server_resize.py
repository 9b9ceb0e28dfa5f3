"""Request schemas of resize, migrate, confirmResize and revertResize
(POST /servers/{id}/action), per microversion."""
from nova_lite.api.openstack.compute.schemas import server_actions

_action = server_actions.action

resize = _action('resize', {
    'type': 'object',
    'properties': {
        'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
        # Accepted and ignored (no disk partitioning in simulation).
        'OS-DCF:diskConfig': {'type': 'string',
                              'enum': ['AUTO', 'MANUAL']},
    },
    'required': ['flavorRef'],
    'additionalProperties': False,
})

# As Nova: any value (null is what clients send).
confirm_resize = _action('confirmResize', {})
revert_resize = _action('revertResize', {})

# Before 2.56 a migration names no host, and its value is not looked at.
migrate = _action('migrate', {})
migrate_v256 = _action('migrate', {
    'type': ['object', 'null'],
    'properties': {
        'host': {'type': ['string', 'null'], 'pattern': '^[a-zA-Z0-9-._]*$',
                 'minLength': 1, 'maxLength': 255},
    },
    'additionalProperties': False,
})
