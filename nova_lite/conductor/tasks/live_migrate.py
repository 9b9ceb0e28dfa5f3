"""The super conductor's live migration orchestration:
live_migrate_instance.

    CreateLiveMigrationTask -> CheckRequestTask
        -> migrate.UpdateRequestSpecTask
        -> ScheduleLiveTask (the scheduler; or, forced to a host, a
           claim there without it) -> PreCheckTask (destination and
           source side by side; with no host named, both in
           FindDestinationTask: a destination failing its pre-checks
           gives way to the next, up to [DEFAULT] migrate_max_retries)
           -> BindPortsTask (INACTIVE bindings to the
           destination) -> CastLiveMigrationTask (to the source)

run as one CompositeTask within the instance's cell: a failure anywhere
rolls back the steps done, newest first (the destination's bindings
deleted, the source allocation back to the instance in place of the
destination claim, the request spec as it was, the migration in
error), and the server stays ACTIVE where it was (task None) with the
failure as its fault and in its action's event. The computes do the
rest (nova_lite.compute.service.live_migration_tasks).

base.step_boundary runs before scheduling ('live_schedule') and before
the hand-off ('live_dispatch'); a super conductor that dies before the
hand-off leaves the live migration (status accepted) to its start-up
recovery (recover).
"""
import eventlet
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import migrate
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)

MIGRATING = instance_obj.MIGRATING


class CreateLiveMigrationTask(base.TaskBase):
    """The migration record in the instance's cell.

    On entry: the instance ACTIVE (or paused) in task_state migrating.
    On exit: a Migration of type live-migration in status accepted
    (self.migration), its uuid the consumer that will hold the source
    allocation.
    Rollback: the migration goes to error.
    """

    def __init__(self, context, instance, host):
        super().__init__(context)
        self.instance = instance
        self.host = host
        self.migration = None

    def _execute(self):
        inst = self.instance
        migration = objects.Migration(
            self.context, uuid=uuidutils.generate_uuid(),
            instance_uuid=inst.uuid, source_compute=inst.host,
            source_node=inst.node, dest_compute=self.host,
            status=migration_obj.ACCEPTED,
            migration_type=migration_obj.LIVE_MIGRATION,
            old_instance_type_id=inst.flavor.id,
            new_instance_type_id=inst.flavor.id,
            project_id=inst.project_id, user_id=inst.user_id,
            hidden=False, cross_cell_move=False)
        migration.create()
        self.migration = migration
        return migration

    def rollback(self, ex):
        if self.migration is not None:
            self.migration.status = migration_obj.ERROR
            self.migration.save()


class CheckRequestTask(base.TaskBase):
    """What Nova's conductor refuses before scheduling: the server's own
    host (UnableToMigrateToSelf), a host of another cell or none
    (MigrationPreCheckError), a source or named destination whose
    compute is down (ComputeServiceUnavailable)."""

    def __init__(self, context, instance, host):
        super().__init__(context)
        self.instance = instance
        self.host = host

    def _execute(self):
        _check_up(self.context, self.instance.host)
        if self.host is None:
            return
        if self.host == self.instance.host:
            raise exception.UnableToMigrateToSelf(
                instance_id=self.instance.uuid, host=self.host)
        if not _computes(self.context, self.host):
            raise exception.MigrationPreCheckError(
                reason='Unable to live migrate instance %s to host %s: it '
                       'is not a compute of the instance\'s cell.'
                       % (self.instance.uuid, self.host))
        _check_up(self.context, self.host)


def _computes(cell_context, host):
    return [s for s in objects.ServiceList.get_by_host(cell_context, host)
            if s.binary == constants.COMPUTE_BINARY]


def _check_up(cell_context, host):
    if not service_obj.compute_is_up(cell_context, host):
        raise exception.ComputeServiceUnavailable(host=host)


class ScheduleLiveTask(migrate.ScheduleMoveTask):
    """Pick the destination and claim it (migrate.ScheduleMoveTask,
    the source allocation handed to the migration in the same
    transaction); forced to a host (2.30 - 2.67), claim there without
    the scheduler's filters, as Nova's forced live migration does.

    On exit: the migration names the destination.
    Rollback: ScheduleMoveTask's.
    """

    def __init__(self, context, instance, migration_task, spec_task,
                 force_host=None):
        super().__init__(context, instance, migration_task, spec_task)
        self.force_host = force_host

    def _execute(self):
        if self.force_host is None:
            base.step_boundary('live_schedule')
            return super()._execute()
        migration = self.migration_task.migration
        node = objects.ComputeNodeList.get_all_by_host(
            self.context, self.force_host)[0]
        placement = compute_inventory.placement_for(self.context)
        held = placement.get_consumer(self.context, self.instance.uuid)
        request = {}
        for resources in held['allocations'].values():
            for name, amount in resources.items():
                request[name] = request.get(name, 0) + amount
        placement.claim(self.context, self.instance.uuid,
                        {node.uuid: request}, move_to=migration.uuid)
        self.claimed = True
        migration.dest_compute = node.host
        migration.dest_node = node.hypervisor_hostname
        migration.save()
        return {'host': node.host, 'nodename': node.hypervisor_hostname}


class PreCheckTask(base.TaskBase):
    """The destination's and the source's pre-checks, side by side
    (compute RPC 1.15 calls; MigrationPreCheckError from either, the
    destination's first).

    On exit: self.migrate_data, what the computes agreed on
    (block_migration decided).
    """

    def __init__(self, context, instance, migration_task, block_migration,
                 disk_over_commit, spec_task=None):
        super().__init__(context)
        self.spec_task = spec_task
        self.instance = instance
        self.migration_task = migration_task
        self.block_migration = block_migration
        self.disk_over_commit = disk_over_commit
        self.migrate_data = None

    def _execute(self):
        migration = self.migration_task.migration
        rpc = compute_rpcapi.ComputeAPI()
        for host in (migration.dest_compute, self.instance.host):
            if not rpc.can_send(self.context, host,
                                compute_rpcapi.LIVE_MIGRATION_VERSION):
                raise exception.MigrationPreCheckError(
                    reason='the compute service on %s is too old for live '
                           'migration' % host)
        # The two checks are independent: the source's runs while the
        # destination's does (one round trip less).
        source = eventlet.spawn(rpc.check_can_live_migrate_source,
                                self.context, self.instance.host,
                                self.instance, {})
        try:
            data = rpc.check_can_live_migrate_destination(
                self.context, migration.dest_compute, self.instance,
                migration, self.block_migration, self.disk_over_commit,
                request_spec=(self.spec_task.spec if self.spec_task
                              else None))
        except Exception:
            try:
                source.wait()
            except Exception:
                pass
            raise
        self.migrate_data = dict(data, **(source.wait() or {}))
        return self.migrate_data


class FindDestinationTask(base.TaskBase):
    """Schedule and pre-check, trying other hosts: no host was named,
    so a destination whose pre-checks fail (MigrationPreCheckError or
    another Invalid, or no answer) is dropped -- its claim rolled back,
    the source allocation back to the instance -- and the scheduler
    asked again without it (nor any host tried before), up to
    [DEFAULT] migrate_max_retries more hosts (-1: until the scheduler
    finds none; 0: no retry), as Nova's conductor retries.

    On exit: the destination claimed and checked (schedule.claimed,
    check.migrate_data). MaxRetriesExceeded (a NoValidHost) when the
    retries are used up; the scheduler's NoValidHost when no host is
    left; nothing claimed either way.
    Rollback: the schedule's (a no-op once it rolled itself back).
    """

    RETRIED = (exception.Invalid, messaging.MessagingTimeout)

    def __init__(self, context, instance, schedule, check, spec_task):
        super().__init__(context)
        self.instance = instance
        self.schedule = schedule
        self.check = check
        self.spec_task = spec_task
        self.failed = []

    def _execute(self):
        spec = self.spec_task.spec
        while True:
            self.schedule.execute()
            try:
                return self.check.execute()
            except self.RETRIED as exc:
                host = self.schedule.migration_task.migration.dest_compute
                self.schedule.rollback(exc)
                self.schedule.claimed = False
                self.failed.append(host)
                LOG.info('Live migration of %s: destination %s failed its '
                         'pre-checks (%s)', self.instance.uuid, host, exc)
                retries = CONF.migrate_max_retries
                if retries != -1 and len(self.failed) > retries:
                    raise exception.MaxRetriesExceeded(
                        reason='Exceeded max scheduling retries %d for '
                               'instance %s during live migration (hosts '
                               'tried: %s; last: %s)'
                               % (retries, self.instance.uuid,
                                  ', '.join(self.failed), exc))
                spec.ignore_hosts = list(spec.ignore_hosts or []) + [host]

    def rollback(self, ex):
        self.schedule.rollback(ex)
        self.schedule.claimed = False


class BindPortsTask(base.TaskBase):
    """The instance's ports get an INACTIVE binding to the destination
    (their ACTIVE one stays the source's until the switch).

    Rollback: the bindings to the destination deleted.
    """

    def __init__(self, context, instance, migration_task):
        super().__init__(context)
        self.instance = instance
        self.migration_task = migration_task
        self.network = network_api.API()

    def _execute(self):
        self.network.create_instance_bindings(
            self.context, self.instance.uuid,
            self.migration_task.migration.dest_compute)

    def rollback(self, ex):
        self.network.delete_instance_bindings(
            self.context, self.instance.uuid,
            self.migration_task.migration.dest_compute)


class CastLiveMigrationTask(base.TaskBase):
    """The instance records the move (its migration context, for a
    delete to free the migration's allocation too) and the live
    migration is cast to the source."""

    def __init__(self, context, instance, migration_task, check_task):
        super().__init__(context)
        self.instance = instance
        self.migration_task = migration_task
        self.check_task = check_task

    def _execute(self):
        migration = self.migration_task.migration
        self.instance.migration_context = {
            'migration_id': migration.id, 'migration_uuid': migration.uuid,
            'source_compute': migration.source_compute,
            'source_node': migration.source_node,
            'dest_compute': migration.dest_compute,
            'dest_node': migration.dest_node,
            'migration_type': migration.migration_type,
            'old_vm_state': self.instance.vm_state}
        self.instance.save(expected_task_state=[MIGRATING])
        base.step_boundary('live_dispatch')
        compute_rpcapi.ComputeAPI().live_migration(
            self.context, self.instance.host, self.instance, migration,
            self.check_task.migrate_data)


def live_migrate_instance(cctxt, instance, cell_uuid, host=None,
                          block_migration=None, disk_over_commit=None,
                          force=False):
    """Run the live migration of instance (context targeted at its
    cell, task migrating) to host if named (without the scheduler when
    force), else where the scheduler picks within its cell. On failure
    the server is back as it was (task None, its fault recorded) and
    the error is raised."""
    create = CreateLiveMigrationTask(cctxt, instance, host)
    spec = migrate.UpdateRequestSpecTask(cctxt, instance, instance.flavor,
                                         cell_uuid, host, resize=False)
    schedule = ScheduleLiveTask(cctxt, instance, create, spec,
                                force_host=host if force else None)
    check = PreCheckTask(cctxt, instance, create, block_migration,
                         disk_over_commit, spec)
    if host is None:
        # The scheduler picks: a destination failing its pre-checks
        # gives way to another.
        find = [FindDestinationTask(cctxt, instance, schedule, check, spec)]
    else:
        find = [schedule, check]
    task = base.CompositeTask(cctxt, [
        create, CheckRequestTask(cctxt, instance, host), spec] + find + [
        BindPortsTask(cctxt, instance, create),
        CastLiveMigrationTask(cctxt, instance, create, check)])
    try:
        task.execute()
    except Exception as exc:
        LOG.info('Live migration of %s failed: %s', instance.uuid, exc)
        if _clear_task(instance):
            _record_fault(instance, exc)
        raise


def _clear_task(instance):
    """The instance back to no task (compare-and-swap on migrating);
    whether it was still migrating."""
    instance.task_state = None
    instance.migration_context = None
    try:
        instance.save(expected_task_state=[MIGRATING])
    except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
        return False
    return True


def recover(context):
    """At a super conductor's start: roll back the live migrations it
    accepted and never handed off (status accepted, instance in task
    migrating), in every cell. The compute's first step swaps the
    migration's status from accepted, so a hand-off that did reach the
    source wins over this rollback (a compare-and-swap on the status,
    done first). Assumes one super conductor per deployment."""
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        try:
            with nova_context.target_cell(context, cell) as cctxt:
                _recover_cell(cctxt)
        except Exception:
            LOG.exception('Recovering live migrations in %s failed',
                          cell.name)


def _recover_cell(cctxt):
    instances = instance_obj.InstanceList.get_by_filters(
        cctxt, {'task_state': [MIGRATING]})
    for instance in instances:
        try:
            migration = objects.Migration.get_in_progress_by_instance(
                cctxt, instance.uuid, [migration_obj.ACCEPTED])
        except exception.MigrationNotFound:
            continue
        if not migration.is_live:
            continue
        try:
            migration.status = migration_obj.ERROR
            migration.save(expected_status=[migration_obj.ACCEPTED])
        except exception.MigrationStatusConflict:
            continue    # the source took it
        LOG.warning('Rolling back live migration %s of %s, interrupted by '
                    'a stop of the super conductor', migration.uuid,
                    instance.uuid)
        placement = compute_inventory.placement_for(cctxt)
        if placement.get_consumer(cctxt, migration.uuid)['allocations']:
            placement.move_allocations(cctxt, migration.uuid, instance.uuid)
        if migration.dest_compute:
            network_api.API().delete_instance_bindings(
                cctxt, instance.uuid, migration.dest_compute)
        if not _clear_task(instance):
            continue
        _record_fault(instance, RuntimeError(
            'The live migration was interrupted by a stop of the super '
            'conductor.'))


def _record_fault(instance, exc):
    """exc as the server's fault (it stays ACTIVE where it was)."""
    message = (exc.format_message()
               if isinstance(exc, exception.NovaLiteException)
               else '%s: %s' % (type(exc).__name__, exc))
    try:
        instance.add_fault(500, message[:255])
    except Exception:
        LOG.exception('Could not record the fault of %s', instance.uuid)
