"""Request schemas of the server actions rebuild (per microversion) and
createImage."""
import copy

from nova_lite.api.openstack.compute.schemas import servers
from nova_lite.api.openstack import validation

_personality = copy.deepcopy(
    servers.create['properties']['server']['properties']['personality'])

rebuild = {
    'type': 'object',
    'properties': {
        'rebuild': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'imageRef': validation.uuid,
                'adminPass': {'type': 'string'},
                'metadata': validation.metadata,
                'preserve_ephemeral': validation.boolean,
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': {'type': 'string', 'format': 'ipv4'},
                'accessIPv6': {'type': 'string', 'format': 'ipv6'},
                'personality': _personality,
            },
            'required': ['imageRef'],
            'additionalProperties': False,
        },
    },
    'required': ['rebuild'],
    'additionalProperties': False,
}


def _rebuild_from(schema, **changes):
    new = copy.deepcopy(schema)
    properties = new['properties']['rebuild']['properties']
    for key, value in changes.items():
        if value is None:
            del properties[key]
        else:
            properties[key] = value
    return new


# 2.19: description.
rebuild_v219 = _rebuild_from(rebuild, description=servers.description)
# 2.54: key_name (null unsets it); any 1..255 characters, as in the
# Compute API (the key pair lookup decides).
rebuild_v254 = _rebuild_from(
    rebuild_v219,
    key_name={'oneOf': [{'type': 'string', 'minLength': 1,
                         'maxLength': 255}, {'type': 'null'}]})
# 2.57: user_data (null unsets it); personality is gone.
rebuild_v257 = _rebuild_from(
    rebuild_v254, personality=None,
    user_data={'oneOf': [{'type': 'string', 'format': 'base64',
                          'maxLength': 65535}, {'type': 'null'}]})
# 2.63: trusted_image_certificates.
rebuild_v263 = _rebuild_from(
    rebuild_v257,
    trusted_image_certificates=copy.deepcopy(
        servers.create_v263['properties']['server']['properties'][
            'trusted_image_certificates']))
# 2.90: hostname; 2.94: a fully qualified one.
rebuild_v290 = _rebuild_from(rebuild_v263, hostname=servers.hostname)
rebuild_v294 = _rebuild_from(rebuild_v290, hostname=servers.fqdn)

create_image = {
    'type': 'object',
    'properties': {
        'createImage': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'metadata': validation.metadata,
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['createImage'],
    'additionalProperties': False,
}
