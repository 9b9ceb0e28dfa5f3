"""The scheduler: reads compute nodes from every enabled cell, and serves
placement (compute-node inventories in the API DB) to computes and cell
conductors over each cell's transport (nova_lite.scheduler.placement)."""
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.scheduler import placement

LOG = logging.getLogger(__name__)


class NoValidHost(messaging.MessagingException):
    pass


class SchedulerManager(object):
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.service_name = 'scheduler'
        self.placement = None

    def init_host(self, context, service_ref):
        self.placement = placement.PlacementServers(service_ref.host)
        self.placement.start(context)

    def stop_rpc_servers(self):
        """Service.stop: the placement servers stop with the service's."""
        if self.placement is not None:
            self.placement.stop()

    def cleanup_host(self):
        self.stop_rpc_servers()

    def reset(self):
        """SIGHUP: serve placement on cells mapped since the start."""
        if self.placement is not None:
            self.placement.start()

    def periodic_tasks(self, context, raise_on_error=False):
        return 60

    def _candidates(self, context):
        cells = [c for c in objects.CellMappingList.get_all(context)
                 if not c.is_cell0() and not c.disabled]
        results = nova_context.scatter_gather_cells(
            context, cells, 30, lambda cctxt: list(
                objects.ComputeNodeList.get_all(cctxt)))
        for cell in cells:
            nodes = results[cell.uuid]
            if nova_context.is_cell_failure(nodes):
                continue
            for node in nodes:
                yield cell, node

    def select_destinations(self, context, spec):
        """Hosts with room for spec (vcpus, memory_mb, disk_gb), best first."""
        fits = []
        for cell, node in self._candidates(context):
            free_ram = (node.memory_mb * node.ram_allocation_ratio
                        - node.memory_mb_used)
            free_cpu = node.vcpus * node.cpu_allocation_ratio \
                - node.vcpus_used
            if (free_ram >= spec.get('memory_mb', 0)
                    and free_cpu >= spec.get('vcpus', 0)):
                fits.append((free_ram, node.host,
                             node.hypervisor_hostname, cell.uuid))
        fits.sort(reverse=True)
        return [[host, nodename, cell_uuid]
                for _, host, nodename, cell_uuid in fits]
