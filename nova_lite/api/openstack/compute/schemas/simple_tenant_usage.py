"""Query schemas of GET /os-simple-tenant-usage[/{tenant_id}], per
microversion: parameters the schema does not declare are ignored (as
in the Compute API at every version); limit and marker from 2.40."""
import copy

from nova_lite.api.openstack import validation

_string = validation.multi_params({'type': 'string'})

index_query = {
    'type': 'object',
    'properties': {'start': _string, 'end': _string, 'detailed': _string},
    'additionalProperties': True,
}

show_query = {
    'type': 'object',
    'properties': {'start': _string, 'end': _string},
    'additionalProperties': True,
}

_PAGING = {
    'limit': validation.multi_params(validation.non_negative_integer),
    'marker': _string,
}

index_query_v240 = copy.deepcopy(index_query)
index_query_v240['properties'].update(_PAGING)

show_query_v240 = copy.deepcopy(show_query)
show_query_v240['properties'].update(_PAGING)
