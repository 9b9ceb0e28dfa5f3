"""Request schemas of a server's security group actions."""
from nova_lite.api.openstack.compute.schemas import server_actions


def _group(action):
    return server_actions.action(action, {
        'type': 'object',
        'properties': {
            'name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                     'pattern': r'.*\S.*'},
        },
        'required': ['name'],
        'additionalProperties': False,
    })


add = _group('addSecurityGroup')
remove = _group('removeSecurityGroup')
