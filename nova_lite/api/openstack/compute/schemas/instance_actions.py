"""Query schemas of GET /servers/{id}/os-instance-actions, per
microversion (no query parameters are read before 2.58)."""
import copy

from nova_lite.api.openstack import validation

index_query_v258 = {
    'type': 'object',
    'properties': {
        'limit': validation.single_param(validation.non_negative_integer),
        'marker': validation.single_param({'type': 'string'}),
        'changes-since': validation.single_param({'type': 'string'}),
    },
    'additionalProperties': False,
}

index_query_v266 = copy.deepcopy(index_query_v258)
index_query_v266['properties']['changes-before'] = \
    validation.single_param({'type': 'string'})
