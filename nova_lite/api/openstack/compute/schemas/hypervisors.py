"""Query schemas of os-hypervisors, per microversion."""
from nova_lite.api.openstack import validation

# Before 2.33 nothing is read from the query string; unknown parameters
# are ignored.
index_query = {'type': 'object', 'additionalProperties': True}

index_query_v233 = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(validation.non_negative_integer),
        'marker': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': True,
}

index_query_v253 = {
    'type': 'object',
    'properties': {
        'limit': validation.single_param(validation.non_negative_integer),
        'marker': validation.single_param({'type': 'string'}),
        'hypervisor_hostname_pattern': validation.single_param(
            validation.hostname),
        'with_servers': validation.single_param(validation.boolean),
    },
    'additionalProperties': False,
}

show_query = {'type': 'object', 'additionalProperties': True}

show_query_v253 = {
    'type': 'object',
    'properties': {
        'with_servers': validation.single_param(validation.boolean),
    },
    'additionalProperties': False,
}
