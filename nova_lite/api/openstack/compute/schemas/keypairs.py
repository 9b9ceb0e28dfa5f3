"""Request schemas of os-keypairs, per microversion."""
import copy

from nova_lite.api.openstack import validation

# POST /os-keypairs. The name's characters are checked by the compute API
# (InvalidKeypair, 400), as in Nova.
create = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'public_key': {'type': 'string'},
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

# 2.2: the key type.
create_v22 = copy.deepcopy(create)
create_v22['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': ['ssh', 'x509']}

# 2.10: administrators create key pairs for other users.
create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string'}

# 2.92: import only (public_key required); names may hold '@' and '.'.
create_v292 = copy.deepcopy(create_v210)
create_v292['properties']['keypair']['required'] = ['name', 'public_key']
create_v292['properties']['keypair']['properties']['name'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': '^[a-zA-Z0-9 @._-]+$'}

# GET|DELETE /os-keypairs/{name} and GET /os-keypairs from 2.10. Unknown
# parameters are ignored before 2.75 and a 400 from 2.75, as in Nova.
user_query_v210 = {
    'type': 'object',
    'properties': {
        'user_id': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': True,
}

# GET /os-keypairs from 2.35: paging.
index_query_v235 = copy.deepcopy(user_query_v210)
index_query_v235['properties'].update({
    'limit': validation.multi_params(validation.non_negative_integer),
    'marker': validation.multi_params({'type': 'string'}),
})

user_query_v275 = copy.deepcopy(user_query_v210)
user_query_v275['additionalProperties'] = False

index_query_v275 = copy.deepcopy(index_query_v235)
index_query_v275['additionalProperties'] = False
