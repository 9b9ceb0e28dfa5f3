"""Request schemas of the server actions (POST /servers/{id}/action),
per microversion. Every body has one key, the action's name."""


def action(name, value_schema):
    """The schema of an action body: one key, name, whose value
    value_schema describes."""
    return {
        'type': 'object',
        'properties': {name: value_schema},
        'required': [name],
        'additionalProperties': False,
    }


# As Nova, these actions' values are not looked at: clients send null
# (novaclient, openstacksdk) or {} (tempest).
_ANY = {}

stop = action('os-stop', _ANY)
start = action('os-start', _ANY)
pause = action('pause', _ANY)
unpause = action('unpause', _ANY)
suspend = action('suspend', _ANY)
resume = action('resume', _ANY)
unlock = action('unlock', _ANY)

reboot = action('reboot', {
    'type': 'object',
    'properties': {
        'type': {'type': 'string',
                 'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']},
    },
    'required': ['type'],
    'additionalProperties': False,
})

# Before 2.73 the lock action's value is not looked at.
lock = action('lock', {})
lock_v273 = action('lock', {
    'type': ['object', 'null'],
    'properties': {
        'locked_reason': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    },
    'additionalProperties': False,
})

reset_state = action('os-resetState', {
    'type': 'object',
    'properties': {
        'state': {'type': 'string', 'enum': ['active', 'error']},
    },
    'required': ['state'],
    'additionalProperties': False,
})
