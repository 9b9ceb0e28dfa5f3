"""Request schemas of /limits, os-quota-sets and os-quota-class-sets, per
microversion: a limit is an integer (or a string of one) from -1 to
2**31-1; unknown keys, and keys a microversion removed, are a 400
naming them."""
import copy

from nova_lite.api.openstack import validation

limit_value = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$',
               'minimum': -1, 'maximum': 0x7FFFFFFF}

_COMMON = ('instances', 'cores', 'ram', 'metadata_items', 'key_pairs',
           'server_groups', 'server_group_members')
# (The API's name of the [quota] injected_file_path_length limit is
# injected_file_path_bytes, as Nova's.)
_PERSONALITY = ('injected_files', 'injected_file_content_bytes',
                'injected_file_path_bytes')
_NETWORK = ('floating_ips', 'fixed_ips', 'security_groups',
            'security_group_rules')


def _update(wrapper, names, force=False):
    props = {name: limit_value for name in names}
    if force:
        props['force'] = validation.boolean
    return {
        'type': 'object',
        'properties': {wrapper: {
            'type': 'object', 'properties': props,
            'additionalProperties': False}},
        'required': [wrapper],
        'additionalProperties': False,
    }


# PUT /os-quota-sets/{project_id}
update = _update('quota_set', _COMMON + _PERSONALITY + _NETWORK, True)
# 2.36: the network quotas are gone.
update_v236 = _update('quota_set', _COMMON + _PERSONALITY, True)
# 2.57: so are the personality (injected file) ones.
update_v257 = _update('quota_set', _COMMON, True)

# PUT /os-quota-class-sets/{id}: below 2.50 the network quotas and no
# server group ones; 2.50 swaps them; 2.57 drops the personality ones.
_CLASS_COMMON = ('instances', 'cores', 'ram', 'metadata_items',
                 'key_pairs')
class_update = _update('quota_class_set',
                       _CLASS_COMMON + _PERSONALITY + _NETWORK)
class_update_v250 = _update(
    'quota_class_set', _CLASS_COMMON + _PERSONALITY
    + ('server_groups', 'server_group_members'))
class_update_v257 = _update(
    'quota_class_set', _CLASS_COMMON
    + ('server_groups', 'server_group_members'))

# ?user_id= on os-quota-sets; unknown parameters are ignored before 2.75
# and a 400 from 2.75.
user_query = {
    'type': 'object',
    'properties': {'user_id': validation.multi_params({'type': 'string'})},
    'additionalProperties': True,
}
user_query_v275 = copy.deepcopy(user_query)
user_query_v275['additionalProperties'] = False

# GET /limits: ?tenant_id= (administrators), ?reserved= (ignored).
limits_query = {
    'type': 'object',
    'properties': {
        'tenant_id': validation.multi_params({'type': 'string'}),
        'reserved': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': True,
}
limits_query_v275 = {
    'type': 'object',
    'properties': {
        'tenant_id': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': False,
}
no_query_v275 = {'type': 'object', 'properties': {},
                 'additionalProperties': False}
