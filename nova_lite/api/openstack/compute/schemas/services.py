"""Request schemas of os-services, per microversion."""
import copy

from nova_lite.api.openstack import validation

_binary = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# PUT /os-services/{enable,disable,disable-log-reason} before 2.53.
service_update = {
    'type': 'object',
    'properties': {
        'host': validation.hostname,
        'binary': _binary,
        'disabled_reason': validation.reason,
    },
    'required': ['host', 'binary'],
    'additionalProperties': False,
}

# The same, 2.11 to 2.52: as the Compute API (one schema for every
# action then), forced_down is accepted, and ignored, by these actions.
service_update_v211 = copy.deepcopy(service_update)
service_update_v211['properties']['forced_down'] = validation.boolean

# PUT /os-services/force-down, 2.11 to 2.52 (a disabled_reason is
# accepted, and ignored, as by the Compute API).
service_force_down = {
    'type': 'object',
    'properties': {
        'host': validation.hostname,
        'binary': _binary,
        'disabled_reason': validation.reason,
        'forced_down': validation.boolean,
    },
    'required': ['host', 'binary', 'forced_down'],
    'additionalProperties': False,
}

# PUT /os-services/{service_uuid} from 2.53.
service_update_v253 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': validation.reason,
        'forced_down': validation.boolean,
    },
    'additionalProperties': False,
}

index_query = {
    'type': 'object',
    'properties': {
        'host': validation.multi_params({'type': 'string'}),
        'binary': validation.multi_params({'type': 'string'}),
    },
    # Unknown parameters are ignored before 2.75.
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
