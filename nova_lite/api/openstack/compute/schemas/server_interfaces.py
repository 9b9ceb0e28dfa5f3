"""Schemas of /servers/{id}/os-interface, per microversion."""
import copy

from nova_lite.api.openstack import validation

_tag = {'type': 'string', 'minLength': 1, 'maxLength': 60,
        'pattern': '^[^,/]*$'}

# POST (an empty body, or no interfaceAttachment: the network 'auto'
# means, as Nova).
create = {
    'type': 'object',
    'properties': {
        'interfaceAttachment': {
            'type': 'object',
            'properties': {
                'net_id': validation.uuid,
                'port_id': validation.uuid,
                'fixed_ips': {
                    'type': 'array', 'minItems': 1, 'maxItems': 1,
                    'items': {
                        'type': 'object',
                        'properties': {
                            'ip_address': {'type': 'string',
                                           'format': 'ipv4'},
                        },
                        'required': ['ip_address'],
                        'additionalProperties': False,
                    },
                },
            },
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}
create_v249 = copy.deepcopy(create)
create_v249['properties']['interfaceAttachment']['properties']['tag'] = _tag
