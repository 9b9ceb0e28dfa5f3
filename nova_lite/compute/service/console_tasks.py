"""A server's console and introspection on this host (compute RPC
1.10): its console output, where its remote consoles listen, its
diagnostics (synchronous calls from the API), and an NMI
(trigger_crash_dump) or a re-injection of its network info (casts,
each one event of the action the API recorded).

Nothing here writes the instance: the console token is stored by the
API in the server's cell, from the connection info returned here.
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)

# protocol: (its config group, the console types it offers).
PROTOCOLS = {
    'vnc': ('vnc', ('novnc',)),
    'spice': ('spice', ('spice-html5', 'spice-direct')),
    'serial': ('serial_console', ('serial',)),
    'rdp': ('rdp', ('rdp-html5',)),
    'mks': ('mks', ('webmks',)),
}


def tail(output, length):
    """The last length lines of output, as the Compute API cuts them
    (None: all; 0: nothing; -1, as Nova, all but the first line)."""
    if length is None:
        return output
    length = int(length)
    if length == 0:
        return ''
    return '\n'.join(output.split('\n')[-length:])


class ConsoleTasks(object):
    """host: this host's name; driver: its virt driver; locks: its
    InstanceLocks."""

    def __init__(self, host, driver, locks):
        self.host = host
        self.driver = driver
        self.locks = locks

    def get_console_output(self, context, instance, tail_length=None):
        """The guest's console log, its last tail_length lines;
        ConsoleNotAvailable when this host has no such guest."""
        try:
            output = self.driver.get_console_output(instance.uuid)
        except fake.GuestNotFound:
            raise exception.ConsoleNotAvailable()
        return tail(output, tail_length)

    def get_console_connect_info(self, context, instance, protocol,
                                 console_type):
        """{'host', 'port', 'internal_access_path'} (and 'tls_port'
        when it has one) of the guest's console of protocol;
        ConsoleTypeUnavailable when this host offers none ([<group>]
        enabled), ConsoleTypeInvalid for a type the protocol has not,
        InstanceNotReady when there is no guest (yet)."""
        group, types = PROTOCOLS[protocol]
        if not getattr(CONF, group).enabled:
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        if console_type not in types:
            raise exception.ConsoleTypeInvalid(console_type=console_type)
        try:
            return self.driver.get_console(instance.uuid, protocol)
        except fake.GuestNotFound:
            raise exception.InstanceNotReady(instance_id=instance.uuid)

    def get_diagnostics(self, context, instance):
        """The guest's diagnostics as the driver counts them
        (fake.FakeDriver.get_diagnostics) and its host's hypervisor;
        InstanceNotReady when there is no guest."""
        try:
            found = self.driver.get_diagnostics(instance.uuid)
        except fake.GuestNotFound:
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        return dict(found, driver='fake',
                    hypervisor=CONF.fake_driver.hypervisor_type)

    @instance_events.wrap_instance_event(prefix='compute')
    def trigger_crash_dump(self, context, instance):
        """An NMI to the guest (it dumps and reboots, per its log)."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'trigger_crash_dump'):
            self.driver.trigger_crash_dump(instance.uuid)

    def inject_network_info(self, context, instance):
        """Hand the guest its network info again (the driver re-plugs
        its interfaces)."""
        with self.locks(instance.uuid):
            self.driver.reset_network(instance.uuid)
            self.driver.log_console(instance.uuid,
                                    'network configuration injected')
