"""Request schemas of os-hosts (below 2.43)."""

_switch = {'type': 'string',
           'enum': ['enable', 'disable', 'Enable', 'Disable', 'ENABLE',
                    'DISABLE']}

# PUT /os-hosts/{host_name}: status, maintenance_mode, or both.
update = {
    'type': 'object',
    'properties': {'status': _switch, 'maintenance_mode': _switch},
    'anyOf': [{'required': ['status']}, {'required': ['maintenance_mode']}],
    'additionalProperties': False,
}

# GET /os-hosts: ?zone= (other parameters ignored, as Nova does).
index_query = {
    'type': 'object',
    'properties': {'zone': {'type': 'array', 'items': {'type': 'string'}}},
    'additionalProperties': True,
}
