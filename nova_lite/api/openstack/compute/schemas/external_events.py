"""Schemas of POST /os-server-external-events, per microversion: the
event names grow with the versions."""
import copy

from nova_lite.api.openstack import validation

NAMES = ['network-changed', 'network-vif-plugged',
         'network-vif-unplugged', 'network-vif-deleted']

create = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array', 'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'server_uuid': validation.uuid,
                    'name': {'type': 'string', 'enum': list(NAMES)},
                    'status': {'type': 'string',
                               'enum': ['failed', 'completed',
                                        'in-progress']},
                    'tag': {'type': 'string', 'maxLength': 255},
                },
                'required': ['server_uuid', 'name'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}


def _with(schema, name):
    extended = copy.deepcopy(schema)
    extended['properties']['events']['items']['properties']['name'][
        'enum'].append(name)
    return extended


create_v251 = _with(create, 'volume-extended')
create_v276 = _with(create_v251, 'power-update')
create_v282 = _with(create_v276, 'accelerator-request-bound')
create_v293 = _with(create_v282, 'volume-reimaged')
