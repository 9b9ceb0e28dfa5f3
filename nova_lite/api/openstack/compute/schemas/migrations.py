"""Query schemas of GET /os-migrations and /servers/{id}/migrations, per
microversion.

Before 2.59 the list ignores parameters it does not know (as the
Compute API); from 2.59 they are a 400. changes-since and
changes-before are ISO 8601 times (checked by the controller, naming
the parameter).
"""
import copy

from nova_lite.api.openstack import validation

_string = validation.multi_params({'type': 'string'})

index_query = {
    'type': 'object',
    'properties': {
        # Accepted, and ignored: hidden migrations are never listed.
        'hidden': _string,
        'host': _string,
        'instance_uuid': _string,
        'source_compute': _string,
        'status': _string,
        'migration_type': _string,
        # Only from 2.80 in the reference; but Nova lets every parameter
        # through to its query before 2.59, and that query filters by
        # these two (a 400 from 2.59 to 2.79).
        'user_id': _string,
        'project_id': _string,
    },
    'additionalProperties': True,
}

index_query_v259 = copy.deepcopy(index_query)
index_query_v259['properties'].update({
    'limit': validation.single_param(validation.non_negative_integer),
    'marker': validation.single_param({'type': 'string'}),
    'changes-since': validation.single_param({'type': 'string'}),
})
index_query_v259['additionalProperties'] = False
for _name in ('user_id', 'project_id'):
    del index_query_v259['properties'][_name]

index_query_v266 = copy.deepcopy(index_query_v259)
index_query_v266['properties']['changes-before'] = \
    validation.single_param({'type': 'string'})

index_query_v280 = copy.deepcopy(index_query_v266)
index_query_v280['properties'].update({
    'user_id': validation.single_param({'type': 'string'}),
    'project_id': validation.single_param({'type': 'string'}),
})

# /servers/{id}/migrations[/{id}] read no query parameter.
server_query = {'type': 'object', 'properties': {},
                'additionalProperties': True}
