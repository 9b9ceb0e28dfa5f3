"""Request schemas of the security-group proxy (below 2.36)."""

_name = {'type': 'string', 'maxLength': 255, 'pattern': r'\S'}
_description = {'type': 'string', 'maxLength': 255}

# POST /os-security-groups, PUT /os-security-groups/{id}
group = {
    'type': 'object',
    'properties': {'security_group': {
        'type': 'object',
        'properties': {'name': _name, 'description': _description},
        'required': ['name'],
        'additionalProperties': False}},
    'required': ['security_group'],
    'additionalProperties': False,
}

_port = {'type': ['integer', 'string', 'null']}
_id = {'type': ['string', 'integer']}

# POST /os-security-group-rules
rule = {
    'type': 'object',
    'properties': {'security_group_rule': {
        'type': 'object',
        'properties': {
            'parent_group_id': _id,
            'ip_protocol': {'type': ['string', 'null']},
            'from_port': _port, 'to_port': _port,
            'cidr': {'type': ['string', 'null']},
            'group_id': {'type': ['string', 'integer', 'null']}},
        'required': ['parent_group_id'],
        'additionalProperties': False}},
    'required': ['security_group_rule'],
    'additionalProperties': False,
}

# GET /os-security-groups: ?all_tenants (others ignored, as Nova).
index_query = {
    'type': 'object',
    'properties': {'all_tenants': {'type': 'array',
                                   'items': {'type': 'string'}}},
    'additionalProperties': True,
}
