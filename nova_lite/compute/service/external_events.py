"""The compute service's side of /os-server-external-events (compute
RPC 1.13): what another service says happened to a server on this host.

- network-changed: the info cache is read again from the network
  service (the VIFs keep their tags);
- network-vif-deleted (tag: the port): the port is unplugged from the
  guest and leaves the info cache;
- network-vif-plugged (tag: the port): wakes the build waiting for it
  (event_waits), else logged; network-vif-unplugged: logged;
- volume-extended (tag: the volume): nothing to grow in a simulated
  guest; logged;
- power-update (tag POWER_ON or POWER_OFF): the guest is powered on or
  off and the instance's vm_state and power_state follow (active and
  running, stopped and shut down), when it has no task;
- accelerator-request-bound: no accelerators here; logged.

An event some work of this host waits for (event_waits.EventWaits) is
handed to it, without the instance's lock (which that work holds); each
other event is handled on its own under the instance's lock; one that
fails is logged and the others still run.
"""
from oslo_log import log as logging

from nova_lite.objects import instance as inst_obj

LOG = logging.getLogger(__name__)

POWER_ON, POWER_OFF = 'POWER_ON', 'POWER_OFF'


class ExternalEvents(object):
    """external_instance_event of ComputeManager.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; interfaces: its InterfaceTasks (the info cache);
    waits: its EventWaits.
    """

    def __init__(self, host, driver, locks, interfaces, waits):
        self.host = host
        self.waits = waits
        self.driver = driver
        self.locks = locks
        self.interfaces = interfaces
        self._handlers = {
            'network-changed': self._network_changed,
            'network-vif-deleted': self._vif_deleted,
            'power-update': self._power_update,
        }

    def external_instance_event(self, context, instance, events):
        events = [e for e in events if not self.waits.pop(instance.uuid, e)]
        if not events:
            return
        with self.locks(instance.uuid):
            for event in events:
                handler = self._handlers.get(event['name'])
                if handler is None:
                    LOG.info('Event %s (%s, %s) for %s on %s',
                             event['name'], event.get('tag'),
                             event.get('status'), instance.uuid, self.host)
                    continue
                try:
                    handler(context, instance, event)
                except Exception:
                    LOG.exception('Event %s for %s failed', event['name'],
                                  instance.uuid)

    def _network_changed(self, context, instance, event):
        self.interfaces.refresh_info_cache(context, instance)
        instance.save()

    def _vif_deleted(self, context, instance, event):
        port_id = event.get('tag')
        if port_id:
            self.driver.detach_interface(instance.uuid, port_id)
        self.interfaces.refresh_info_cache(context, instance)
        instance.save()

    def _power_update(self, context, instance, event):
        tag = event.get('tag')
        if instance.task_state is not None:
            LOG.info('power-update %s for %s ignored: task %s', tag,
                     instance.uuid, instance.task_state)
            return
        if tag == POWER_OFF and instance.vm_state == inst_obj.ACTIVE:
            self.driver.power_off(instance.uuid)
            instance.vm_state = inst_obj.STOPPED
            instance.power_state = inst_obj.SHUTDOWN
            instance.save(expected_task_state=[None])
        elif tag == POWER_ON and instance.vm_state == inst_obj.STOPPED:
            self.driver.power_on(instance.uuid)
            instance.vm_state = inst_obj.ACTIVE
            instance.power_state = inst_obj.RUNNING
            instance.save(expected_task_state=[None])
