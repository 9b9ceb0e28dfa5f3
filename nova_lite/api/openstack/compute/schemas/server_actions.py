"""Request schemas of the server actions (POST /servers/{id}/action),
per microversion. Every body has one key, the action's name."""


def _action(name, value_schema):
    return {
        'type': 'object',
        'properties': {name: value_schema},
        'required': [name],
        'additionalProperties': False,
    }


# As Nova, these actions' values are not looked at: clients send null
# (novaclient, openstacksdk) or {} (tempest).
_ANY = {}

stop = _action('os-stop', _ANY)
start = _action('os-start', _ANY)
pause = _action('pause', _ANY)
unpause = _action('unpause', _ANY)
suspend = _action('suspend', _ANY)
resume = _action('resume', _ANY)
unlock = _action('unlock', _ANY)

reboot = _action('reboot', {
    'type': 'object',
    'properties': {
        'type': {'type': 'string',
                 'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']},
    },
    'required': ['type'],
    'additionalProperties': False,
})

# Before 2.73 the lock action's value is not looked at.
lock = _action('lock', {})
lock_v273 = _action('lock', {
    'type': ['object', 'null'],
    'properties': {
        'locked_reason': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    },
    'additionalProperties': False,
})

reset_state = _action('os-resetState', {
    'type': 'object',
    'properties': {
        'state': {'type': 'string', 'enum': ['active', 'error']},
    },
    'required': ['state'],
    'additionalProperties': False,
})
