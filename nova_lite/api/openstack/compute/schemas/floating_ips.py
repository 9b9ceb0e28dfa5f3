"""Request schemas of the floating-IP proxy (below 2.36) and of the
addFloatingIp/removeFloatingIp and addFixedIp/removeFixedIp server
actions (below 2.44), as Nova's."""

_ip_address = {'type': 'string',
               'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}

# POST /os-floating-ips (no body, null, or {"pool": ...})
create = {
    'type': ['object', 'null'],
    'properties': {'pool': {'type': ['string', 'null']}},
}

add_floating_ip = {
    'type': 'object',
    'properties': {
        'addFloatingIp': {
            'type': 'object',
            'properties': {'address': _ip_address,
                           'fixed_address': _ip_address},
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['addFloatingIp'],
    'additionalProperties': False,
}

remove_floating_ip = {
    'type': 'object',
    'properties': {
        'removeFloatingIp': {
            'type': 'object',
            'properties': {'address': _ip_address},
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['removeFloatingIp'],
    'additionalProperties': False,
}

add_fixed_ip = {
    'type': 'object',
    'properties': {
        'addFixedIp': {
            'type': 'object',
            'properties': {
                'networkId': {'type': ['string', 'number'],
                              'minLength': 1, 'maxLength': 36},
            },
            'required': ['networkId'],
            'additionalProperties': False,
        },
    },
    'required': ['addFixedIp'],
    'additionalProperties': False,
}

remove_fixed_ip = {
    'type': 'object',
    'properties': {
        'removeFixedIp': {
            'type': 'object',
            'properties': {'address': _ip_address},
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['removeFixedIp'],
    'additionalProperties': False,
}
