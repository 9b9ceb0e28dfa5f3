"""The compute service manager: one per hypervisor host. No database."""
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import resource_tracker
from nova_lite.conf import CONF
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)


class ComputeManager(object):
    target = messaging.Target(version='1.2')

    def __init__(self, host):
        self.host = host
        self.service_name = 'compute'
        self.driver = fake.load_driver(host)
        self.rt = resource_tracker.ResourceTracker(host, self.driver)
        self.service_ref = None

    def init_host(self, context, service_ref):
        self.service_ref = service_ref
        self.driver.init_host(self.host)
        self.update_available_resource(context)

    def cleanup_host(self):
        pass

    def update_available_resource(self, context):
        self.rt.update_available_resource(context, self.service_ref.id)

    def periodic_tasks(self, context, raise_on_error=False):
        try:
            self.update_available_resource(context)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Error updating resources for %s', self.host)
        return CONF.update_resources_interval

    # --- RPC API 1.0 --------------------------------------------------

    def ping(self, context):
        return {'host': self.host, 'guests': len(self.driver.list_guests())}

    def describe_node(self, context, compute_node):
        return {'host': self.host,
                'fields': sorted(f for f in compute_node.fields
                                 if compute_node.obj_attr_is_set(f))}

    # --- RPC API 1.1 --------------------------------------------------

    def get_guests(self, context):
        guests = self.driver.list_guests()
        return {'count': len(guests), 'guests': sorted(guests)}

    # --- RPC API 1.2 --------------------------------------------------

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()
