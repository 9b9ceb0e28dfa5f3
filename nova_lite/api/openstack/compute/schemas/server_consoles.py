"""Request schemas of a server's consoles and introspection, per
microversion (as the Compute API reference gives them)."""
import copy

from nova_lite.api.openstack.compute.schemas import server_actions


def _typed(name, types):
    return server_actions.action(name, {
        'type': 'object',
        'properties': {'type': {'type': 'string', 'enum': list(types)}},
        'required': ['type'],
        'additionalProperties': False,
    })


get_console_output = server_actions.action('os-getConsoleOutput', {
    'type': 'object',
    'properties': {
        # -1: every line (as Nova: but the first); null: every line.
        'length': {'type': ['integer', 'string', 'null'],
                   'pattern': '^-?[0-9]+$', 'minimum': -1},
    },
    'additionalProperties': False,
})

get_vnc_console = _typed('os-getVNCConsole', ['novnc', 'xvpvnc'])
get_spice_console = _typed('os-getSPICEConsole', ['spice-html5'])
get_rdp_console = _typed('os-getRDPConsole', ['rdp-html5'])
get_serial_console = _typed('os-getSerialConsole', ['serial'])

trigger_crash_dump = server_actions.action('trigger_crash_dump',
                                           {'type': 'null'})
# As the other argument-free actions, its value is not looked at.
inject_network_info = server_actions.action('injectNetworkInfo', {})

create_remote_console = {
    'type': 'object',
    'properties': {
        'remote_console': {
            'type': 'object',
            'properties': {
                'protocol': {'type': 'string',
                             'enum': ['vnc', 'spice', 'rdp', 'serial']},
                'type': {'type': 'string',
                         'enum': ['novnc', 'xvpvnc', 'rdp-html5',
                                  'spice-html5', 'serial']},
            },
            'required': ['protocol', 'type'],
            'additionalProperties': False,
        },
    },
    'required': ['remote_console'],
    'additionalProperties': False,
}

create_remote_console_v28 = copy.deepcopy(create_remote_console)
_console = create_remote_console_v28['properties']['remote_console']
_console['properties']['protocol']['enum'].append('mks')
_console['properties']['type']['enum'].append('webmks')

# 2.99: the spice-direct type (a native SPICE client through a proxy).
create_remote_console_v299 = copy.deepcopy(create_remote_console_v28)
create_remote_console_v299['properties']['remote_console']['properties'][
    'type']['enum'].append('spice-direct')

# GET /servers/{id}/diagnostics and /topology read no query parameter.
no_query = {'type': 'object', 'properties': {}, 'additionalProperties': True}
