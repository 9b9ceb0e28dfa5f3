"""The hosts of os-hosts (the Compute API below 2.43): every service's
host with its zone, and one compute host's resources and their use by
project, as Nova's os-hosts reads them (compute nodes and instances of
the host's cell)."""
import collections

from nova_lite.compute.api import availability_zones
from nova_lite.compute.api import hosts as hosts_api
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects

Host = collections.namedtuple('Host', ['host_name', 'service', 'zone'])


def list_hosts(context, zone=None):
    """[Host] of every service (Nova's ``service`` is the binary without
    its ``nova-`` prefix), in the order the cells list them; an empty
    zone filters nothing, as in Nova."""
    services = hosts_api.service_get_all(context).services
    zones = availability_zones.host_zones(context)
    found = []
    for service in services:
        binary = constants.current_binary(service.binary)
        host = Host(service.host, binary.replace('nova-', '', 1),
                    availability_zones.zone_of(service, zones))
        if not zone or host.zone == zone:
            found.append(host)
    return found


def _cell_of(context, host):
    try:
        return objects.HostMapping.get_by_host(context, host).cell_mapping
    except exception.HostMappingNotFound:
        raise exception.HostMappingNotFound(
            message="Host '%s' is not mapped to any cell" % host)


def compute_service(context, host):
    """The compute service of host (404 if it has none)."""
    cell = _cell_of(context, host)
    with nova_context.target_cell(context, cell) as cctxt:
        for service in objects.ServiceList.get_by_host(cctxt, host):
            if (constants.current_binary(service.binary)
                    == constants.COMPUTE_BINARY):
                return service
    raise exception.ComputeHostNotFound(host=host)


def resources(context, host):
    """[(project, cpu, memory_mb, disk_gb)] of host: (total), (used_now),
    (used_max) -- what its instances' flavors add up to -- then each
    project with instances there, as Nova's os-hosts show."""
    cell = _cell_of(context, host)
    with nova_context.target_cell(context, cell) as cctxt:
        nodes = objects.ComputeNodeList.get_all_by_host(cctxt, host)
        instances = objects.InstanceList.get_by_host(cctxt, host)
    if not nodes:
        raise exception.ComputeHostNotFound(host=host)
    total = (sum(n.vcpus for n in nodes), sum(n.memory_mb for n in nodes),
             sum(n.local_gb for n in nodes))
    used_now = (sum(n.vcpus_used for n in nodes),
                sum(n.memory_mb_used for n in nodes),
                sum(n.local_gb_used for n in nodes))
    by_project = collections.OrderedDict()
    for instance in instances:
        cpu, mem, disk = by_project.get(instance.project_id, (0, 0, 0))
        by_project[instance.project_id] = (
            cpu + (instance.vcpus or 0), mem + (instance.memory_mb or 0),
            disk + (instance.root_gb or 0) + (instance.ephemeral_gb or 0))
    used_max = tuple(sum(values[i] for values in by_project.values())
                     for i in range(3))
    return ([('(total)',) + total, ('(used_now)',) + used_now,
             ('(used_max)',) + used_max]
            + [(project,) + values for project, values in
               by_project.items()])


def set_enabled(context, host, enabled):
    """Enable or disable host's compute service (os-hosts' status)."""
    service = compute_service(context, host)
    hosts_api.service_update_by_host_and_binary(
        context, host, service.binary,
        {'disabled': not enabled, 'disabled_reason': None})
