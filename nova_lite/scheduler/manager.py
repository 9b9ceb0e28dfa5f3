"""The scheduler: picks hosts for servers and claims their resources,
and serves placement (inventories and allocations in the API DB) to
computes and cell conductors over each cell's transport
(nova_lite.scheduler.placement).

select_destinations: allocation candidates from ONE query over
inventories and allocations ([scheduler] max_candidates at most), the
host state of only those candidates from their cells, filters, weighers,
then a generation-checked claim for each instance on the best host that
takes it; alternates come from the same cell as the primary.

Periodic host discovery, as Nova's scheduler does: every [scheduler]
discover_hosts_in_cells_interval seconds (first as the scheduler
starts its periodic tasks; -1, the default, never) the compute hosts of
every cell without a host mapping are mapped
(objects.host_mapping.discover_hosts: a host mapped to another cell is
reported, not remapped; several schedulers may do it at once).
"""
import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import base as steps
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import host_mapping
from nova_lite.placement import allocations
from nova_lite.placement import candidates
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import server_group as server_group_filters
from nova_lite.scheduler import host_state
from nova_lite.scheduler import placement
from nova_lite.scheduler import request_filter

LOG = logging.getLogger(__name__)
# The filters a member placed by the request changes the answer of.
GROUP_FILTERS = ('ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter')


def _selection(state, resources):
    return {'host': state.host, 'nodename': state.nodename,
            'cell_uuid': state.cell_uuid, 'compute_node_uuid': state.uuid,
            'allocation_request': {state.uuid: dict(resources)}}


class SchedulerManager(object):
    target = messaging.Target(version='1.2')

    def __init__(self):
        self.service_name = 'scheduler'
        self.placement = None
        # time.monotonic() of the next host discovery (None: at once).
        self.next_discovery = None

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
        """The host discovery when due; seconds until the next one (60
        when it is disabled). An interval of 0 discovers at each run of
        the periodic tasks ([DEFAULT] periodic_interval)."""
        interval = CONF.scheduler.discover_hosts_in_cells_interval
        if interval < 0:
            self.next_discovery = None
            return 60
        now = time.monotonic()
        if self.next_discovery is None or now >= self.next_discovery:
            self.next_discovery = now + (interval or CONF.periodic_interval)
            self.discover_hosts(context, raise_on_error)
        return max(self.next_discovery - time.monotonic(), 0.1)

    def discover_hosts(self, context, raise_on_error=False):
        """Map the compute hosts of every cell that have no host mapping
        (logged: the hosts mapped, a conflict, an unreadable cell)."""
        try:
            found = host_mapping.discover_hosts(
                context, objects.CellMappingList.get_all(context))
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Periodic host discovery failed')
            return
        for host, cell in found.mapped:
            LOG.info('Mapped host %s to cell %s', host, cell.identity)
        for problem in found.problems():
            LOG.warning('Host discovery: %s', problem)

    def _cells(self, context):
        return [c for c in objects.CellMappingList.get_all(context)
                if not c.is_cell0() and not c.disabled]

    def _hosts(self, context, spec, resources, count=1):
        """Host states that pass the filters, best first: enough for
        count instances and the primary's alternates."""
        extra = request_filter.prefilters(context, spec)
        if extra is None:
            return []
        named = self._forced_nodes(context, spec)
        if named is not None:
            if not named:
                return []
            extra['named'] = named
        found = candidates.find(context, resources,
                                CONF.scheduler.max_candidates, **extra)
        if not found:
            return []
        attempts = CONF.scheduler.max_attempts
        return host_state.best_hosts(
            context, self._cells(context), found, spec,
            wanted=count + attempts - 1, per_cell=attempts)

    def _forced_nodes(self, context, spec):
        """None when no host or node is forced; else the names of the
        nodes (resource providers) the candidates must be among: the
        forced nodes, or the nodes of the forced hosts (read from their
        cells), so that max_candidates never leaves them out."""
        hosts, nodes = host_state.forced(spec)
        if not hosts:
            return set(nodes) if nodes else None
        named = set()
        for host in hosts:
            try:
                mapping = objects.HostMapping.get_by_host(context, host)
            except exception.HostMappingNotFound:
                continue
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                named.update(
                    n.hypervisor_hostname for n in
                    objects.ComputeNodeList.get_all_by_host(cctxt, host)
                    if not nodes or n.hypervisor_hostname in nodes)
        return named

    def select_destinations(self, context, spec=None, spec_obj=None,
                            instance_uuids=None, return_alternates=False,
                            migration_uuid=None):
        """1.2: migration_uuid (a move of the one instance of
        instance_uuids): the claim on the destination hands the
        instance's current (source) allocation to the migration_uuid
        consumer in the same transaction, and the source stays counted
        while the destination is checked (allocations.claim's move_to).

        1.1: for each of instance_uuids, [primary, alternates...] as
        selection dicts (host, nodename, cell_uuid, compute_node_uuid,
        allocation_request), the primary's resources claimed for the
        instance. NoValidHost when one cannot be placed; then the claims
        made for the others are released (all or nothing).

        1.0 (spec: {vcpus, memory_mb, disk_gb}): [[host, node, cell]]
        with room, best first, nothing claimed."""
        if spec_obj is None:
            return self._select_v10(context, spec or {})
        # A step boundary for the tests' plugin (no observer in
        # production): the request is taken and nothing is claimed yet.
        steps.step_boundary('select_destinations')
        try:
            return self._select(context, spec_obj, instance_uuids,
                                return_alternates, migration_uuid)
        except exception.NoValidHost as exc:
            raise messaging.ExpectedException() from exc

    def _select_v10(self, context, spec):
        resources = {'VCPU': spec.get('vcpus', 0),
                     'MEMORY_MB': spec.get('memory_mb', 0),
                     'DISK_GB': spec.get('disk_gb', 0)}
        if not any(resources.values()):
            resources['MEMORY_MB'] = 1
        spec_obj = objects.RequestSpec(availability_zone=None,
                                       ignore_hosts=[],
                                       requested_destination=None)
        return [[s.host, s.nodename, s.cell_uuid]
                for s in self._hosts(context, spec_obj, resources)]

    def _select(self, context, spec, instance_uuids, return_alternates,
                migration_uuid=None):
        if migration_uuid is not None and len(instance_uuids) != 1:
            raise exception.InvalidInput(
                reason='a move places exactly one instance')
        resources = spec.resources()
        hosts = self._hosts(context, spec, resources, len(instance_uuids))
        claimed, answer = [], []
        try:
            for uuid in instance_uuids:
                primary = self._claim_first(context, spec, uuid, hosts,
                                            resources, migration_uuid)
                claimed.append(uuid)
                self._joined(context, spec, primary, hosts)
                selections = [_selection(primary, resources)]
                if return_alternates:
                    selections += [
                        _selection(s, resources) for s in hosts
                        if s.cell_uuid == primary.cell_uuid
                        and s.uuid != primary.uuid
                    ][:CONF.scheduler.max_attempts - 1]
                answer.append(selections)
        except exception.NoValidHost:
            # (A move claims nothing when it finds no host.)
            for uuid in claimed:
                allocations.remove_allocations(context, uuid)
            raise
        return answer

    def _joined(self, context, spec, state, hosts):
        """A member of the request's server group was just placed on
        state: the group counts it for the next instances of the request
        (as Nova adds the host to instance_group.hosts) and hosts keeps
        those the group's filters still pass."""
        group = server_group_filters.group_of(spec)
        if group is None or any(host_state.forced(spec)):
            return
        group.hosts = list(group.hosts or []) + [state.host]
        names = [n for n in CONF.filter_scheduler.enabled_filters
                 if n.strip() in GROUP_FILTERS]
        hosts[:] = host_state.weigh(
            filters.filter_hosts(context, hosts, spec, names), spec=spec)

    def _claim_first(self, context, spec, consumer, hosts, resources,
                     move_to=None):
        """Claim resources for consumer on the first of hosts that takes
        them (hosts is re-sorted: a host just used counts as fuller);
        move_to: the consumer that takes over what consumer held."""
        for state in list(hosts):
            try:
                allocations.claim(
                    context, consumer, {state.uuid: resources},
                    project_id=spec.project_id, user_id=spec.user_id,
                    move_to=move_to)
            except (exception.InsufficientResources,
                    exception.ResourceProviderGenerationConflict,
                    exception.ResourceProviderNotFound) as exc:
                LOG.debug('Claim on %s failed: %s', state.host, exc)
                hosts.remove(state)
                continue
            for rc, amount in resources.items():
                state.free[rc] = state.free.get(rc, 0) - amount
            hosts[:] = host_state.weigh(hosts, spec=spec)
            return state
        raise exception.NoValidHost(
            reason='There are not enough hosts available.')
