"""Schemas of /servers/{id}/os-volume_attachments, per microversion."""
import copy

from nova_lite.api.openstack import validation

_device = {'type': ['string', 'null'],
           'pattern': '(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$'}
_tag = {'type': 'string', 'minLength': 1, 'maxLength': 60,
        'pattern': '^[^,/]*$'}

# POST
create = {
    'type': 'object',
    'properties': {
        'volumeAttachment': {
            'type': 'object',
            'properties': {
                'volumeId': validation.uuid,
                'device': _device,
            },
            'required': ['volumeId'],
            'additionalProperties': False,
        },
    },
    'required': ['volumeAttachment'],
    'additionalProperties': False,
}
create_v249 = copy.deepcopy(create)
create_v249['properties']['volumeAttachment']['properties']['tag'] = _tag
create_v279 = copy.deepcopy(create_v249)
create_v279['properties']['volumeAttachment']['properties'][
    'delete_on_termination'] = validation.boolean

# PUT: a swap (volumeId) only, until 2.85.
update = copy.deepcopy(create)
del update['properties']['volumeAttachment']['properties']['device']
update_v285 = copy.deepcopy(update)
update_v285['properties']['volumeAttachment']['properties'].update(
    device=_device, tag=_tag, delete_on_termination=validation.boolean,
    id=validation.uuid, serverId=validation.uuid)

# GET (list)
index_query = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(validation.non_negative_integer),
        'offset': validation.multi_params(validation.non_negative_integer),
    },
    'additionalProperties': True,
}
index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
