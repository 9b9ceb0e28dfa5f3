"""Request schemas of os-server-groups, per microversion."""
import copy

from nova_lite.api.openstack import validation

# POST /os-server-groups (2.1): one policy, in a list.
create = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'policies': {
                    'type': 'array',
                    'items': {'type': 'string',
                              'enum': ['anti-affinity', 'affinity']},
                    'uniqueItems': True,
                    'minItems': 1,
                    'maxItems': 1,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

# 2.15: the soft policies.
create_v215 = copy.deepcopy(create)
create_v215['properties']['server_group']['properties']['policies'][
    'items']['enum'] = ['anti-affinity', 'affinity', 'soft-anti-affinity',
                        'soft-affinity']

# 2.64: one policy and its rules.
create_v264 = copy.deepcopy(create)
create_v264['properties']['server_group']['properties'] = {
    'name': validation.name,
    'policy': {'type': 'string',
               'enum': ['anti-affinity', 'affinity', 'soft-anti-affinity',
                        'soft-affinity']},
    'rules': {
        'type': 'object',
        'properties': {
            'max_server_per_host': {
                'type': ['integer', 'string'],
                'pattern': '^[0-9]*$', 'minimum': 1,
            },
        },
        'additionalProperties': False,
    },
}
create_v264['properties']['server_group']['required'] = ['name', 'policy']

# GET /os-server-groups. Unknown parameters are ignored before 2.75 and a
# 400 from 2.75, as in Nova.
index_query = {
    'type': 'object',
    'properties': {
        'all_projects': validation.multi_params({'type': 'string'}),
        'limit': validation.multi_params(validation.non_negative_integer),
        'offset': validation.multi_params(validation.non_negative_integer),
    },
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
