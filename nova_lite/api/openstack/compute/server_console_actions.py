"""The server actions of consoles and introspection (``POST
/servers/{server_id}/action``), a mixin of the server action controller
(which provides ``_authorized``): os-getConsoleOutput (200, the log),
os-getVNCConsole / os-getSPICEConsole / os-getRDPConsole /
os-getSerialConsole (below 2.6; 200, a console URL), trigger_crash_dump
(2.17; 202) and injectNetworkInfo (202), through
nova_lite.compute.api.server_consoles."""
import re

from nova_lite.api.openstack.compute.schemas import server_consoles \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.compute.api import server_consoles
from nova_lite.policies import server_consoles as policies

# What the console output never shows (as Nova strips it).
_CONTROL = re.compile('[\x00-\x08\x0B-\x1F]')


def legacy_console(self, name, protocol, body):
    """{'console': {'type', 'url'}} of a legacy os-get*Console action."""
    ctxt, instance = self._authorized(policies.REMOTE_CONSOLES)
    console_type = body[name]['type']
    url = server_consoles.get_remote_console(ctxt, instance, protocol,
                                             console_type)
    return {'console': {'type': console_type, 'url': url}}


class ConsoleActions(object):
    """os-getConsoleOutput, os-get*Console, trigger_crash_dump,
    injectNetworkInfo."""

    @validation.schema(schemas.get_console_output)
    def get_console_output(self, body):
        ctxt, instance = self._authorized(policies.CONSOLE_OUTPUT)
        length = (body['os-getConsoleOutput'] or {}).get('length')
        output = server_consoles.get_console_output(
            ctxt, instance, None if length is None else int(length))
        return {'output': _CONTROL.sub('', output)}

    @validation.schema(schemas.get_vnc_console)
    def get_vnc_console(self, body):
        return legacy_console(self, 'os-getVNCConsole', 'vnc', body)

    @validation.schema(schemas.get_spice_console)
    def get_spice_console(self, body):
        return legacy_console(self, 'os-getSPICEConsole', 'spice', body)

    @validation.schema(schemas.get_rdp_console)
    def get_rdp_console(self, body):
        return legacy_console(self, 'os-getRDPConsole', 'rdp', body)

    @validation.schema(schemas.get_serial_console)
    def get_serial_console(self, body):
        return legacy_console(self, 'os-getSerialConsole', 'serial', body)

    @validation.schema(schemas.trigger_crash_dump)
    def trigger_crash_dump(self, body):
        ctxt, instance = self._authorized(policies.TRIGGER_CRASH_DUMP)
        server_consoles.trigger_crash_dump(ctxt, instance)

    @validation.schema(schemas.inject_network_info)
    def inject_network_info(self, body):
        ctxt, instance = self._authorized(policies.INJECT_NETWORK_INFO)
        server_consoles.inject_network_info(ctxt, instance)
