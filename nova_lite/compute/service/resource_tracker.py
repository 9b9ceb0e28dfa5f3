"""Keeps the ComputeNode record of each node in step with the driver.

Each periodic update_available_resource reads what the driver reports and
saves what changed through ComputeNode.save(): capacity and usage then go
to the node's resource-provider inventories and host usage allocation (via
the scheduler's placement topic: a compute opens no database), or -- while
older APIs or conductors still run -- to the legacy compute_nodes columns.
Capacity config that makes no valid inventory (a negative allocation
ratio, reserved_host_* above the node's capacity) is refused with a clear
error before anything is written.
"""
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory

LOG = logging.getLogger(__name__)


class ResourceTracker(object):
    def __init__(self, host, driver):
        self.host = host
        self.driver = driver
        self.compute_nodes = {}

    def _values(self, resources):
        values = dict(resources)
        values['free_ram_mb'] = values['memory_mb'] - values['memory_mb_used']
        values['free_disk_gb'] = values['local_gb'] - values['local_gb_used']
        values['current_workload'] = 0
        values['cpu_allocation_ratio'] = CONF.cpu_allocation_ratio
        values['ram_allocation_ratio'] = CONF.ram_allocation_ratio
        values['disk_allocation_ratio'] = CONF.disk_allocation_ratio
        values['stats'] = dict(values.get('stats') or {})
        return values

    def _check_config(self, nodename, values):
        try:
            compute_inventory.inventories_for(
                values, compute_inventory.reserved_from_conf())
        except exception.InvalidInventory as exc:
            LOG.error('Capacity of %s:%s is not reported, nothing was '
                      'written: %s. Fix the configuration.', self.host,
                      nodename, exc.format_message())
            raise

    def update_available_resource(self, context, service_id):
        for nodename in self.driver.get_available_nodes():
            values = self._values(self.driver.get_available_resource(
                nodename))
            self._check_config(nodename, values)
            node = self.compute_nodes.get(nodename)
            if node is None:
                try:
                    node = objects.ComputeNode.get_by_host_and_nodename(
                        context, self.host, nodename)
                except exception.ComputeNodeNotFound:
                    node = objects.ComputeNode(context, host=self.host,
                                               service_id=service_id,
                                               **values)
                    node.create()
                    LOG.info('Compute node record created for %s:%s',
                             self.host, nodename)
                    self.compute_nodes[nodename] = node
                    continue
            for key, value in values.items():
                if (not node.obj_attr_is_set(key)
                        or getattr(node, key) != value):
                    setattr(node, key, value)
            if node.obj_what_changed():
                node.save()
            self.compute_nodes[nodename] = node
