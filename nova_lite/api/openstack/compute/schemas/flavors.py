"""Request schemas of flavors, their extra specs and access lists, per
microversion."""
import copy

from nova_lite.api.openstack import validation
from nova_lite import constants

# Largest single-precision float a database column holds.
SQL_SP_FLOAT_MAX = 3.40282e+38

SORT_KEYS = ['created_at', 'description', 'disabled', 'ephemeral_gb',
             'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb',
             'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight', 'vcpus']
SORT_DIRS = ['asc', 'desc']

# GET /flavors and /flavors/detail. minRam, minDisk and is_public are
# checked by the controller (as the Compute API does, with its messages).
index_query = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(validation.non_negative_integer),
        'marker': validation.multi_params({'type': 'string'}),
        'is_public': validation.multi_params({'type': 'string'}),
        'minRam': validation.multi_params({'type': 'string'}),
        'minDisk': validation.multi_params({'type': 'string'}),
        'sort_key': validation.multi_params({'type': 'string',
                                             'enum': SORT_KEYS}),
        'sort_dir': validation.multi_params({'type': 'string',
                                             'enum': SORT_DIRS}),
    },
    # Unknown parameters are ignored before 2.75.
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
# 2.102: the name filter (an exact name).
index_query_v2102 = copy.deepcopy(index_query_v275)
# A regular expression searched in the names (as Nova; empty: any name).
index_query_v2102['properties']['name'] = validation.multi_params(
    {'type': 'string'})

_positive = {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
             'minimum': 1, 'maximum': constants.DB_MAX_INT}
_non_negative = dict(_positive, minimum=0)

# POST /flavors
create = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                # No leading or trailing spaces; numbers become strings.
                'id': {'type': ['string', 'number', 'null'],
                       'minLength': 1, 'maxLength': 255,
                       'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$'},
                'ram': _positive,
                'vcpus': _positive,
                'disk': _non_negative,
                'OS-FLV-EXT-DATA:ephemeral': _non_negative,
                'swap': _non_negative,
                # A positive float: 0.1 is fine, 0 is not.
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'exclusiveMinimum': 0,
                                'maximum': SQL_SP_FLOAT_MAX},
                'os-flavor-access:is_public': validation.boolean,
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

create_v255 = copy.deepcopy(create)
create_v255['properties']['flavor']['properties']['description'] = \
    validation.description
# 2.102: rxtx_factor is gone from flavors.
create_v2102 = copy.deepcopy(create_v255)
del create_v2102['properties']['flavor']['properties']['rxtx_factor']

# PUT /flavors/{flavor_id} (2.55): the description is all one may change.
update_v255 = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': validation.description},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

# Extra specs: keys of letters, digits and "-_:. ", values strings or
# numbers (stored as strings).
_specs = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': ['string', 'number'],
                                       'maxLength': 255},
    },
    'additionalProperties': False,
}

# POST /flavors/{flavor_id}/os-extra_specs
extra_specs_create = {
    'type': 'object',
    'properties': {'extra_specs': _specs},
    'required': ['extra_specs'],
    'additionalProperties': False,
}

# PUT /flavors/{flavor_id}/os-extra_specs/{key}: {key: value}
extra_spec_update = dict(copy.deepcopy(_specs), minProperties=1,
                         maxProperties=1)

_tenant_action = {
    'type': 'object',
    'properties': {
        'tenant': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'required': ['tenant'],
    'additionalProperties': False,
}

# POST /flavors/{flavor_id}/action
add_tenant_access = {
    'type': 'object',
    'properties': {'addTenantAccess': _tenant_action},
    'required': ['addTenantAccess'],
    'additionalProperties': False,
}

remove_tenant_access = {
    'type': 'object',
    'properties': {'removeTenantAccess': _tenant_action},
    'required': ['removeTenantAccess'],
    'additionalProperties': False,
}
