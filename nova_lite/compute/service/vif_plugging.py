"""Plugging a server's VIFs on a host and waiting for the network
service's network-vif-plugged of each, as Nova does where it plugs
them: a spawn (a build, an unshelve of an offloaded server, a hard
reboot that replugs), the destination's preparation of a live
migration, and the source's finish of a resize revert:

- the events awaited are those of the ports the network service will
  announce (a port DOWN until plugged: nova_lite.network.nova_events);
- [DEFAULT] vif_plugging_timeout seconds at most (0: no wait);
- one that came 'failed': VirtualInterfaceCreateException, missing
  then: VirtualInterfacePlugTimeout (a VirtualInterfaceCreateException)
  when [DEFAULT] vif_plugging_is_fatal, else a warning and the work goes
  on.
"""
import contextlib

from oslo_log import log as logging

from nova_lite.compute.service import event_waits
from nova_lite.conf import CONF
from nova_lite import exception

LOG = logging.getLogger(__name__)


def _vif_failed(name, tag):
    """A network-vif-plugged that came 'failed' (Nova's
    _neutron_failed_callback)."""
    LOG.error('Neutron Reported failure on event %s-%s', name, tag)
    if CONF.vif_plugging_is_fatal:
        raise exception.VirtualInterfaceCreateException()


@contextlib.contextmanager
def waiting_for(waits, instance, port_ids):
    """The block's work makes network-vif-plugged of port_ids come;
    leaving it waits for them as the module says. Yields the ids
    awaited."""
    timeout = CONF.vif_plugging_timeout
    events = ([(event_waits.VIF_PLUGGED, port_id) for port_id in port_ids]
              if timeout else [])
    try:
        with waits.wait_for(instance.uuid, events, timeout,
                            error_callback=_vif_failed):
            yield [tag for _name, tag in events]
    except event_waits.EventWaitTimeout as exc:
        LOG.warning('Timeout waiting for %s for instance with vm_state %s '
                    'and task_state %s.', exc.kwargs['events'],
                    instance.vm_state, instance.task_state)
        if CONF.vif_plugging_is_fatal:
            raise exception.VirtualInterfacePlugTimeout(
                events=exc.kwargs['events'])


def spawn_and_wait(waits, network_api, context, instance, host, port_ids,
                   inactive, spawn):
    """spawn() (creates the guest with its VIFs), then the plug of
    port_ids reported to the network service; waits for
    network-vif-plugged of the inactive ones (see the module doc).
    Returns the ids awaited."""
    with waiting_for(waits, instance, inactive) as awaited:
        spawn()
        if port_ids:
            network_api.ports_plugged(context, instance.uuid,
                                      list(port_ids), host)
    return awaited
