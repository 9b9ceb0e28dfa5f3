"""Request schemas of /os-assisted-volume-snapshots (every
microversion)."""

_name = {'type': 'string', 'minLength': 1}

# POST: the volume and what the volume service asks the hypervisor to
# do (only qcow2 overlays exist).
create = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'volume_id': _name,
                'create_info': {
                    'type': 'object',
                    'properties': {
                        'snapshot_id': _name,
                        'type': {'type': 'string', 'enum': ['qcow2']},
                        'new_file': _name,
                        'id': _name,
                    },
                    'required': ['snapshot_id', 'type', 'new_file'],
                    'additionalProperties': False,
                },
            },
            'required': ['volume_id', 'create_info'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

# DELETE: ?delete_info=<JSON object naming volume_id> (other parameters
# ignored, as Nova does).
delete_query = {
    'type': 'object',
    'properties': {'delete_info': {'type': 'array',
                                   'items': {'type': 'string'}}},
    'additionalProperties': True,
}
