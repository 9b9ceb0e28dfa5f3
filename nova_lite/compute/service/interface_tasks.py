"""The compute service's interface work (compute RPC 1.12): a port
attached to a running guest and detached from it.

attach_interface (a call: the API answers with the new interface) gets
the port from the network service bound to this host (the user's port,
or a new one on a network, with the server's security groups), plugs it
into the guest through the driver and adds its VIF (with the request's
tag) to the instance's info cache; a failure unplugs and frees the port
again and leaves the instance as it was. detach_interface (a cast)
unplugs the port, frees it (a port made for the server is deleted, the
user's is unbound) and drops its VIF from the info cache. Both run
under the instance's lock on this host and send
instance.interface_attach/detach.start/end (.error on failure).
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.network import api as network_api
from nova_lite.notifications import instance as notify

LOG = logging.getLogger(__name__)


class InterfaceTasks(object):
    """attach_interface and detach_interface of ComputeManager.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; network_api: the network service's client.
    """

    def __init__(self, host, driver, locks, network_api):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.network_api = network_api

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None, event=None):
        """Attach a port (port_id, or a new one on network_id with
        requested_ip) to the guest; returns its VIF. The info cache is
        saved with the event finished, one call to the cell conductor
        (instance_events: a quick action's start goes with it)."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'interface_attach',
                error_phase=True):
            vif = self.network_api.allocate_port_for_instance(
                context, instance.uuid, instance.project_id, self.host,
                port_id=port_id, network_id=network_id,
                fixed_ip=requested_ip,
                security_group_ids=network_api.instance_security_group_ids(
                    instance.system_metadata))
            if tag:
                vif['tag'] = tag
            try:
                self.driver.attach_interface(instance.uuid, vif)
                # As Nova, an attach waits for no network-vif-plugged.
                # The plug report and the read of the ports are one
                # network service transaction.
                info, ports = self.network_api.ports_plugged_info(
                    context, instance.uuid, [vif['id']], self.host)
                vif['active'] = True
                self.refresh_info_cache(context, instance, vif, info=info)
                event.save_and_finish(instance)
            except Exception:
                LOG.exception('Attaching port %s to %s failed',
                              vif['id'], instance.uuid)
                self.driver.detach_interface(instance.uuid, vif['id'])
                self.network_api.deallocate_port_for_instance(
                    context, instance.uuid, vif['id'])
                raise
            # The port as the API shows it (so the API answers without
            # reading it again; an older compute's answer has none).
            port = ports.get(vif['id'])
            if port is not None:
                vif['port'] = {k: port[k] for k in (
                    'id', 'network_id', 'mac_address', 'status',
                    'fixed_ips')}
            return vif

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def detach_interface(self, context, instance, port_id, event=None):
        """Unplug port_id from the guest, free it, drop its VIF (saved
        with the event finished, as attach)."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'interface_detach',
                error_phase=True):
            self.driver.detach_interface(instance.uuid, port_id)
            try:
                self.network_api.deallocate_port_for_instance(
                    context, instance.uuid, port_id)
            except Exception:
                LOG.warning('Port %s of %s was gone already', port_id,
                            instance.uuid)
            self.refresh_info_cache(context, instance)
            event.save_and_finish(instance)

    def refresh_info_cache(self, context, instance, new_vif=None,
                           info=None):
        """The instance's info cache as the network service has its
        ports now (the copy the request carried may be older than a
        change that ran before it; info: the network info just read),
        each VIF keeping its tag."""
        tags = {v.get('id'): v.get('tag')
                for v in list(instance.network_info or ()) + [new_vif or {}]
                if v.get('tag')}
        if info is None:
            info = self.network_api.get_instance_nw_info(context,
                                                         instance.uuid)
        for vif in info:
            if tags.get(vif['id']):
                vif['tag'] = tags[vif['id']]
        instance.network_info = info
