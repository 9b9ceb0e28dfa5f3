"""Request schemas of the evacuate action (POST /servers/{id}/action),
per microversion, as the Compute API reference describes them:
onSharedStorage required before 2.14 and gone from it; force from 2.29
until 2.68."""
import copy

from nova_lite.api.openstack.compute.schemas import server_actions
from nova_lite.api.openstack import validation

_HOST = {'type': 'string', 'pattern': '^[a-zA-Z0-9-._]*$',
         'minLength': 1, 'maxLength': 255}

_BODY = {
    'type': 'object',
    'properties': {
        'host': _HOST,
        'onSharedStorage': validation.boolean,
        'adminPass': {'type': 'string'},
    },
    'required': ['onSharedStorage'],
    'additionalProperties': False,
}


def _changed(drop=(), add=None):
    body = copy.deepcopy(_BODY)
    for name in drop:
        body['properties'].pop(name)
    body['required'] = [r for r in body['required']
                        if r in body['properties']]
    body['properties'].update(add or {})
    return body


evacuate = server_actions.action('evacuate', _BODY)
evacuate_v214 = server_actions.action(
    'evacuate', _changed(drop=['onSharedStorage']))
evacuate_v229 = server_actions.action(
    'evacuate', _changed(drop=['onSharedStorage'],
                         add={'force': validation.boolean}))
evacuate_v268 = evacuate_v214
