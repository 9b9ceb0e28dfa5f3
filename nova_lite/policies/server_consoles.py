"""Policy defaults of a server's consoles and introspection, as in Nova
34: console output, remote consoles and crash dumps for the project's
members (and administrators); console tokens, diagnostics, the
topology's host side and injectNetworkInfo for administrators; the
topology for the project's readers."""
from nova_lite.policies import base

CONSOLE_OUTPUT = 'os_compute_api:os-console-output'
REMOTE_CONSOLES = 'os_compute_api:os-remote-consoles'
CONSOLE_AUTH_TOKENS = 'os_compute_api:os-console-auth-tokens'
DIAGNOSTICS = 'os_compute_api:os-server-diagnostics'
TOPOLOGY = 'compute:server:topology:index'
TOPOLOGY_HOST = 'compute:server:topology:host:index'
TRIGGER_CRASH_DUMP = 'os_compute_api:servers:trigger_crash_dump'
INJECT_NETWORK_INFO = 'os_compute_api:os-admin-actions:inject_network_info'

_ACTION = '/servers/{server_id}/action'

rules = [
    base.project_rule(CONSOLE_OUTPUT, base.PROJECT_MEMBER_OR_ADMIN,
                      'Show console output for a server (action '
                      'os-getConsoleOutput)', 'POST', _ACTION),
    base.project_rule(REMOTE_CONSOLES, base.PROJECT_MEMBER_OR_ADMIN,
                      'Generate a URL to access a remote server console '
                      '(POST /servers/{server_id}/remote-consoles from '
                      '2.6; the os-get*Console actions before)', 'POST',
                      '/servers/{server_id}/remote-consoles'),
    base.project_rule(CONSOLE_AUTH_TOKENS, base.ADMIN,
                      'Show console connection information for a given '
                      'console authentication token', 'GET',
                      '/os-console-auth-tokens/{console_token}'),
    base.project_rule(DIAGNOSTICS, base.ADMIN, 'Show the usage data for a '
                      'server', 'GET', '/servers/{server_id}/diagnostics'),
    base.project_rule(TOPOLOGY, base.PROJECT_READER_OR_ADMIN,
                      'Show the NUMA topology data for a server', 'GET',
                      '/servers/{server_id}/topology'),
    base.project_rule(TOPOLOGY_HOST, base.ADMIN,
                      'Show the NUMA topology data for a server with host '
                      'NUMA ID and CPU pinning information', 'GET',
                      '/servers/{server_id}/topology'),
    base.project_rule(TRIGGER_CRASH_DUMP, base.PROJECT_MEMBER_OR_ADMIN,
                      'Trigger crash dump in a server (action '
                      'trigger_crash_dump, 2.17)', 'POST', _ACTION),
    base.project_rule(INJECT_NETWORK_INFO, base.ADMIN,
                      'Inject network information into the server (action '
                      'injectNetworkInfo)', 'POST', _ACTION),
]


def list_rules():
    return rules
