"""The compute API the REST controllers call: services and hypervisors
across every cell.

Reads fan out to all cells with scatter-gather (one query per cell and
kind of row) and degrade when a cell fails or times out: its rows are left
out, or reported as unavailable where the caller can show that. Objects
returned keep a context targeted at their cell, so ``save()`` and
``destroy()`` on them write to the right database.
"""
import collections
import re

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.compute.api import host_providers
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import utils

LOG = logging.getLogger(__name__)


# services: services of answering cells; unavailable: minimal Service
# objects (host, binary only) for computes mapped to cells that did not
# answer.
ServiceListing = collections.namedtuple('ServiceListing',
                                        ['services', 'unavailable'])
# A compute node with the service record of its host (same cell).
Hypervisor = collections.namedtuple('Hypervisor', ['node', 'service'])


def _cells(context):
    """Cells that can hold services and compute nodes (not cell0)."""
    return [cell for cell in objects.CellMappingList.get_all(context)
            if not cell.is_cell0()]


def _gather(context, cells, fn, *args):
    return nova_context.scatter_gather_cells(context, cells,
                                             CONF.cell_timeout, fn, *args)


# --- services ------------------------------------------------------------

def _services_in_cell(cctxt, host, binary):
    # Filters match the binary names services are reported under (objects
    # also accept the legacy nova-lite-* names; the API does not).
    if host is not None:
        services = objects.ServiceList.get_by_host(cctxt, host)
    elif binary is not None:
        services = objects.ServiceList.get_by_binary(cctxt, binary)
    else:
        services = objects.ServiceList.get_all(cctxt)
    return [s for s in services if binary is None or s.binary == binary]


def service_get_all(context, host=None, binary=None,
                    include_unavailable=False):
    """Services of every cell, optionally filtered by host and binary.

    With include_unavailable, computes mapped to a cell that failed to
    answer come back in ``unavailable`` (host and binary only).
    """
    cells = _cells(context)
    results = _gather(context, cells, _services_in_cell, host, binary)
    services, down_cells = [], []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer when listing services; '
                        'its services are not shown.', cell.identity)
            down_cells.append(cell)
            continue
        services.extend(result)
    unavailable = []
    if include_unavailable and binary in (None, constants.COMPUTE_BINARY):
        for cell in down_cells:
            for mapping in objects.HostMappingList.get_by_cell_id(
                    context, cell.uuid):
                if host is None or mapping.host == host:
                    unavailable.append(objects.Service(
                        host=mapping.host, binary=constants.COMPUTE_BINARY))
    return ServiceListing(services, unavailable)


def parse_id(resource_id, want_uuid):
    """('uuid'|'id', value) for a path id, or None when it cannot match."""
    if want_uuid:
        return ('uuid', resource_id) if uuidutils.is_uuid_like(
            resource_id) else None
    try:
        value = int(resource_id)
    except (TypeError, ValueError):
        return None
    return ('id', value) if value > 0 and str(value) == resource_id else None


def _service_in_cell(cctxt, key, value):
    try:
        if key == 'uuid':
            return objects.Service.get_by_uuid(cctxt, value)
        return objects.Service.get_by_id(cctxt, value)
    except exception.ServiceNotFound:
        return None


def service_get_by_id(context, service_id, by_uuid):
    """The service with this uuid (by_uuid) or integer id, in any cell.

    Integer ids repeat across cells: one matching in several cells is a
    ServiceNotUnique (400).
    """
    parsed = parse_id(service_id, by_uuid)
    if parsed is None:
        raise exception.ServiceNotFound(service_id=service_id)
    cells = _cells(context)
    results = _gather(context, cells, _service_in_cell, *parsed)
    found = [results[c.uuid] for c in cells
             if not nova_context.is_cell_failure(results[c.uuid])
             and results[c.uuid] is not None]
    if not found:
        raise exception.ServiceNotFound(service_id=service_id)
    if len(found) > 1:
        raise exception.ServiceNotUnique(service_id=service_id)
    return found[0]


def service_update(context, service):
    """Save the changes made to a service obtained from this module."""
    service.save()
    return service


def service_update_by_host_and_binary(context, host, binary, values):
    """Update the service (host, binary) in the cell its host maps to."""
    mapping = objects.HostMapping.get_by_host(context, host)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        service = objects.Service.get_by_host_and_binary(cctxt, host, binary)
        for key, value in values.items():
            setattr(service, key, value)
        service.save()
    return service


def service_delete(context, service):
    """Delete a service; a compute's host mapping and its nodes' resource
    providers go with it. A compute whose providers still hold other
    consumers' allocations is ComputeServiceInUse (409), deleting
    nothing."""
    if service.binary == constants.COMPUTE_BINARY:
        host_providers.release(context, service)
        try:
            objects.HostMapping.get_by_host(context, service.host).destroy()
        except exception.HostMappingNotFound:
            # A compute deleted before discover_hosts mapped it.
            pass
    service.destroy()


# --- hypervisors ---------------------------------------------------------

def _like(pattern):
    """A compiled regex with SQL LIKE '%pattern%' semantics."""
    parts = []
    for char in pattern:
        parts.append('.*' if char == '%' else '.' if char == '_'
                     else re.escape(char))
    return re.compile('.*%s.*' % ''.join(parts), re.IGNORECASE | re.DOTALL)


def _hypervisors_in_cell(cctxt):
    nodes = objects.ComputeNodeList.get_all(cctxt)
    services = objects.ServiceList.get_by_binary(cctxt,
                                                 constants.COMPUTE_BINARY)
    return _pair(nodes, services)


def _pair(nodes, services):
    by_id = {s.id: s for s in services}
    by_host = {s.host: s for s in services}
    pairs = []
    for node in nodes:
        service = (by_id.get(node.service_id) if node.service_id
                   else by_host.get(node.host))
        if service is None:
            LOG.debug('Compute node %s has no compute service; skipped.',
                      node.id)
            continue
        pairs.append(Hypervisor(node, service))
    return pairs


def _hypervisor_page_in_cell(cctxt, after_id, limit):
    """Up to limit hypervisors of the cell after node id after_id, in
    node order: the page's nodes (and their providers) and the services
    of their hosts only, never every node of the cell. A node without a
    compute service is skipped (as in the full listing), so the cell is
    asked again until the page is full or the cell has no more nodes."""
    pairs = []
    while limit is None or len(pairs) < limit:
        want = None if limit is None else limit - len(pairs)
        nodes = objects.ComputeNodeList.get_page(cctxt, after_id, want)
        if not nodes:
            break
        services = objects.ServiceList.get_by_binary_and_hosts(
            cctxt, constants.COMPUTE_BINARY, {n.host for n in nodes})
        pairs.extend(_pair(nodes, services))
        after_id = nodes[-1].id
        if want is None or len(nodes) < want:
            break
    return pairs


def _hypervisor_page(context, cells, limit, marker, marker_by_uuid):
    """compute_node_get_all with a limit or a marker: the cells are read
    in order, each from where the page stands, until the page is full
    (a page costs what its nodes cost, not what the cloud's do)."""
    start, after_id = 0, None
    if marker is not None:
        parsed = parse_id(marker, marker_by_uuid)
        if parsed is None:
            raise exception.MarkerNotFound(marker=marker)
        found = _gather(context, cells, _hypervisor_in_cell, *parsed)
        for index, cell in enumerate(cells):
            result = found[cell.uuid]
            if result is not None and not nova_context.is_cell_failure(
                    result):
                start, after_id = index, result.node.id
                break
        else:
            raise exception.MarkerNotFound(marker=marker)
    hypervisors = []
    for index in range(start, len(cells)):
        remaining = None if limit is None else limit - len(hypervisors)
        if remaining == 0:
            break
        cell = cells[index]
        result = _gather(context, [cell], _hypervisor_page_in_cell,
                         after_id if index == start else None,
                         remaining)[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer when listing hypervisors; '
                        'its hypervisors are not shown.', cell.identity)
            continue
        hypervisors.extend(result)
    return hypervisors


def compute_node_get_all(context, hostname_pattern=None, limit=None,
                         marker=None, marker_by_uuid=False):
    """Hypervisors of every answering cell, in cell then node order.

    hostname_pattern filters like SQL LIKE '%pattern%'; a pattern matching
    nothing is HypervisorNotFoundByPattern (404). marker is the id (uuid
    when marker_by_uuid) of the last hypervisor of the previous page; an
    unknown marker is MarkerNotFound (400). With a limit or a marker (and
    no pattern) only the cells and nodes the page needs are read.
    """
    cells = _cells(context)
    if hostname_pattern is None and (limit is not None
                                     or marker is not None):
        return _hypervisor_page(context, cells, limit, marker,
                                marker_by_uuid)
    results = _gather(context, cells, _hypervisors_in_cell)
    hypervisors = []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer when listing hypervisors; '
                        'its hypervisors are not shown.', cell.identity)
            continue
        hypervisors.extend(result)
    if hostname_pattern is not None:
        regex = _like(hostname_pattern)
        hypervisors = [h for h in hypervisors
                       if regex.fullmatch(h.node.hypervisor_hostname or '')]
        if not hypervisors:
            raise exception.HypervisorNotFoundByPattern(
                pattern=hostname_pattern)
    if marker is not None:
        attr = 'uuid' if marker_by_uuid else 'id'
        ids = [str(getattr(h.node, attr)) for h in hypervisors]
        if marker not in ids:
            raise exception.MarkerNotFound(marker=marker)
        hypervisors = hypervisors[ids.index(marker) + 1:]
    if limit is not None:
        hypervisors = hypervisors[:limit]
    return hypervisors


def _hypervisor_in_cell(cctxt, key, value):
    try:
        if key == 'uuid':
            node = objects.ComputeNode.get_by_uuid(cctxt, value)
        else:
            node = objects.ComputeNode.get_by_id(cctxt, value)
    except exception.ComputeNodeNotFound:
        return None
    try:
        if node.service_id:
            service = objects.Service.get_by_id(cctxt, node.service_id)
        else:
            service = objects.Service.get_by_compute_host(cctxt, node.host)
    except (exception.ServiceNotFound, exception.HostBinaryNotFound):
        return None
    return Hypervisor(node, service)


def compute_node_get(context, hypervisor_id, by_uuid):
    """The hypervisor with this compute-node uuid (by_uuid) or integer id.

    With integer ids (which repeat across cells) the first cell wins, as in
    the Compute API before microversion 2.53.
    """
    parsed = parse_id(hypervisor_id, by_uuid)
    if parsed is None:
        raise exception.HypervisorNotFound(hypervisor=hypervisor_id)
    cells = _cells(context)
    results = _gather(context, cells, _hypervisor_in_cell, *parsed)
    for cell in cells:
        result = results[cell.uuid]
        if result is not None and not nova_context.is_cell_failure(result):
            return result
    raise exception.HypervisorNotFound(hypervisor=hypervisor_id)


def hypervisor_uptime(context, hypervisor):
    """The uptime string the hypervisor's compute reports (compute RPC to
    its host, in the cell its host mapping names).

    Raises HypervisorNotFound when its host is not mapped to a cell,
    ComputeServiceUnavailable (400) when its compute service is down or
    does not answer, HypervisorUptimeNotImplemented (501) when it cannot
    report an uptime.
    """
    try:
        mapping = objects.HostMapping.get_by_host(context,
                                                  hypervisor.service.host)
    except exception.HostMappingNotFound:
        raise exception.HypervisorNotFound(hypervisor=hypervisor.node.id)
    return _uptime_in_cell(context, mapping.cell_mapping, hypervisor)


def _uptime_in_cell(context, cell, hypervisor):
    host = hypervisor.service.host
    if not hypervisor.service.is_up():
        raise exception.ComputeServiceUnavailable(host=host)
    with nova_context.target_cell(context, cell) as cctxt:
        try:
            return compute_rpcapi.ComputeAPI().get_host_uptime(cctxt, host)
        except messaging.MessagingTimeout:
            raise exception.ComputeServiceUnavailable(host=host)


# Computes asked for their uptime at once, at most this many together.
_UPTIME_FANOUT = 50


def hypervisor_uptimes(context, hypervisors):
    """[uptime or None] for a listing (microversion 2.88 and later): the
    computes are asked together (one read of the host mappings); a compute
    that is down, silent, unmapped or too old to tell gives None."""
    cells = dict((m.host, m.cell_mapping)
                 for m in objects.HostMappingList.get_all(context))
    uptimes = [None] * len(hypervisors)

    def ask(index, hypervisor):
        def call():
            cell = cells.get(hypervisor.service.host)
            if cell is None:
                return
            try:
                uptimes[index] = _uptime_in_cell(context, cell, hypervisor)
            except (exception.ComputeServiceUnavailable,
                    exception.HypervisorUptimeNotImplemented):
                pass
        return call
    calls = [ask(i, h) for i, h in enumerate(hypervisors)]
    for part in utils.chunks(calls, _UPTIME_FANOUT):
        utils.run_together(*part)
    return uptimes


def compute_node_statistics(context):
    """Sums of capacity and usage over every hypervisor, and their count."""
    keys = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used', 'memory_mb_used',
            'local_gb_used', 'free_ram_mb', 'free_disk_gb',
            'current_workload', 'running_vms', 'disk_available_least')
    totals = dict.fromkeys(keys, 0)
    hypervisors = compute_node_get_all(context)
    for hypervisor in hypervisors:
        for key in keys:
            totals[key] += getattr(hypervisor.node, key, None) or 0
    totals['count'] = len(hypervisors)
    return totals
