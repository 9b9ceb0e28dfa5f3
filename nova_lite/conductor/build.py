"""Building servers: the super conductor's schedule_and_build_instances
and a cell conductor's reschedule to an alternate host.

Super conductor (API DB + every cell): ask the scheduler (which claims
the primary hosts), create each instance in its host's cell, point the
instance mapping at that cell, drop the build request, cast the build to
the compute. No host, or no answer from the scheduler within
[DEFAULT] long_rpc_timeout: the instance goes to cell0 in ERROR with a
fault (and nothing stays claimed for it).
A build request already gone means the user deleted the server while it
was scheduled: the instance just created is destroyed again and its
claim freed, so nothing is left behind. The conductor first takes the
build requests it was sent (objects.build_request.take): one another
conductor or the periodic task took already is not built. A build
request no conductor took within [conductor] build_request_timeout (its
message lost: the API died before it sent it, or a broker restart
dropped it) is buried in cell0 by the super conductors' periodic task
(bury_unpicked_builds), so no server waits in BUILD/scheduling for
ever. A failed build is put in its final state once the databases
answer again (until_databases_answer): each of those steps can be run
again, so a database restart in the middle of one -- connections
refused or dropped for a few seconds -- does not leave it in BUILD.

Cell conductor (its cell DB only, no API DB): a compute whose spawn
failed hands the instance back with the alternates the scheduler
returned; the next one that takes the claim (through the placement RPC
topic) gets the build, up to [scheduler] max_attempts hosts in all. A
build whose compute went down mid-way is failed (ERROR, fault, claim
and ports freed) by the cell conductor's periodic task, so no server
stays in BUILD because a compute died.
"""
import datetime

from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import group_info
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.outage import until_databases_answer
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import build_request as build_request_obj
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects import instance_mapping
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite import utils

LOG = logging.getLogger(__name__)
FAULT_CODE = 500
# The service version from which every conductor takes the build
# requests it builds (bury_unpicked_builds waits for it).
PICKUP_SERVICE_VERSION = 22
# Build requests buried per periodic run at most.
BURY_BATCH = 50


def _token():
    """A unique taker: this conductor's host and a random uuid."""
    return ('%s:%s' % (uuidutils.generate_uuid(), CONF.host))[:255]


def _fresh_instance(context, source, **values):
    """A new Instance with source's fields (not its id), ready to create."""
    inst = objects.Instance(context)
    for name in source.fields:
        if name != 'id' and source.obj_attr_is_set(name):
            setattr(inst, name, getattr(source, name))
    for name, value in values.items():
        setattr(inst, name, value)
    return inst


def _create_bdms(cctxt, instance, build_request):
    """The block device mappings of the boot request, in the instance's
    cell (cell0 too, as Nova: deleting the server frees its volumes)."""
    if build_request.block_device_mappings:
        objects.BlockDeviceMappingList.create_for_instance(
            cctxt, instance.uuid, build_request.block_device_mappings)


def _message(exc):
    """A fault's message: ours as formatted, any other error's class
    and text (an RPC timeout, say)."""
    if isinstance(exc, exception.NovaLiteException):
        return exc.format_message()
    return ('%s: %s' % (type(exc).__name__, exc))[:255]


def _record_build_failure(cctxt, uuid, exc):
    """The conductor's failed event on the server's create action."""
    objects.InstanceActionEvent.event_finish_with_failure(
        cctxt, uuid, 'conductor_schedule_and_build_instances', exc,
        exc.__traceback__, host=CONF.host, want_result=False)


class Builder(object):
    def __init__(self):
        self.scheduler = scheduler_rpcapi.SchedulerAPI()
        self.compute = compute_rpcapi.ComputeAPI()

    def schedule_and_build_instances(self, context, instance_uuids,
                                     request_spec, requested_networks,
                                     admin_password=None,
                                     injected_files=None):
        token = _token()
        build_requests = {br.instance_uuid: br for br in
                          until_databases_answer(build_request_obj.take)(
                              context, token, instance_uuids)}
        uuids = [u for u in instance_uuids if u in build_requests]
        if not uuids:
            return
        try:
            group_info.refresh(context, request_spec, uuids)
            selections = self.scheduler.select_destinations(
                context, request_spec, uuids, return_alternates=True)
        except exception.NoValidHost as exc:
            LOG.info('No valid host for %s: %s', uuids, exc)
            for uuid in uuids:
                self.bury_logging_errors(context, build_requests[uuid],
                                          exc)
            return
        except Exception as exc:
            # No answer (or a failure) from the scheduler: the servers
            # go to ERROR in cell0, never stay in BUILD, and whatever the
            # scheduler may have claimed for them is freed.
            LOG.exception('Scheduling %s failed', uuids)
            for uuid in uuids:
                self.bury_logging_errors(context, build_requests[uuid],
                                          exc, free_claims=True)
            return
        cells = {c.uuid: c for c in objects.CellMappingList.get_all(context)}
        for uuid, hosts in zip(uuids, selections):
            cell = cells[hosts[0]['cell_uuid']]
            try:
                self._build_one(context, cell, build_requests[uuid],
                                request_spec, requested_networks, hosts,
                                admin_password, token, injected_files)
            except Exception as exc:
                LOG.exception('Building %s in %s failed', uuid, cell.name)
                self.fail_build(context, cell, build_requests[uuid], exc)

    def _build_one(self, context, cell, build_request, spec,
                   requested_networks, hosts, admin_password, token,
                   injected_files=None):
        primary = hosts[0]
        with nova_context.target_cell(context, cell) as cctxt:
            inst = _fresh_instance(
                cctxt, build_request.instance, host=primary['host'],
                node=primary['nodename'], launched_on=primary['host'],
                vm_state=instance_obj.BUILDING,
                task_state=instance_obj.SCHEDULING,
                availability_zone=(
                    spec.availability_zone
                    or aggregate_obj.zone_of_host(context, primary['host'])
                    or CONF.default_availability_zone))
            inst.create()
            _create_bdms(cctxt, inst, build_request)
            objects.InstanceAction.action_start(
                cctxt, inst.uuid, instance_action.CREATE, want_result=False)
            # Still ours? Deleted meanwhile, or taken from this (too
            # slow) conductor as stranded (bury_stranded_builds ends it):
            # what was made here goes. Renewed, it cannot be taken for
            # the stranded timeout: the mapping below is ours to set.
            if not build_request_obj.renew(context, token, inst.uuid):
                LOG.info('Build request of %s is no longer this '
                         'conductor\'s (deleted, or taken as stranded); '
                         'removing it from %s', inst.uuid, cell.name)
                inst.destroy()
                compute_inventory.placement_for(context).remove_allocations(
                    context, inst.uuid)
                return
            instance_mapping.set_cell(context, [inst.uuid], cell.uuid)
            try:
                build_request.destroy()
            except exception.BuildRequestNotFound:
                LOG.info('Server %s was deleted while it was scheduled; '
                         'removing it from %s', inst.uuid, cell.name)
                inst.destroy()
                compute_inventory.placement_for(context).remove_allocations(
                    context, inst.uuid)
                return
            self.compute.build_and_run_instance(
                cctxt, primary['host'], inst, spec, requested_networks,
                hosts[1:], admin_password, injected_files=injected_files)

    def fail_build(self, context, cell, build_request, exc):
        """After an unexpected failure of _build_one (a database error,
        say): the server ends in ERROR with a fault, never in BUILD, and
        nothing stays claimed for it. The instance the cell has is failed
        there (its mapping pointed at the cell, its build request
        dropped); with none there, the server is buried in cell0."""
        try:
            self._fail_build_in(context, cell, build_request, exc)
        except Exception:
            LOG.exception('Could not put %s in ERROR after its build '
                          'failed', build_request.instance_uuid)

    @until_databases_answer
    def _fail_build_in(self, context, cell, build_request, exc):
        uuid = build_request.instance_uuid
        compute_inventory.placement_for(context).remove_allocations(
            context, uuid)
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                inst = objects.Instance.get_by_uuid(cctxt, uuid)
            except exception.InstanceNotFound:
                self._bury_in_cell0(context, build_request, exc)
                return
            if inst.vm_state != instance_obj.ERROR:
                # The fault, the state and the create action's failed
                # event (if the build got that far) in one transaction:
                # a reader never sees ERROR without the fault, and a
                # step run again after an outage adds none twice.
                with instance_obj.session_transaction(cctxt):
                    inst.add_fault(FAULT_CODE, _message(exc), details=None)
                    inst.vm_state = instance_obj.ERROR
                    inst.task_state = None
                    inst.save()
                    try:
                        _record_build_failure(cctxt, uuid, exc)
                    except exception.InstanceActionNotFound:
                        pass
            instance_mapping.set_cell(context, [uuid], cell.uuid)
            try:
                build_request.destroy()
            except exception.BuildRequestNotFound:
                # The user deleted the server meanwhile (the API dropped
                # its build request and left the rest to us): nothing of
                # it stays, as when _build_one finds it gone.
                LOG.info('Server %s was deleted while its failed build was '
                         'recorded; removing it from %s', uuid, cell.name)
                inst.destroy()

    def bury_logging_errors(self, context, build_request, exc,
                            free_claims=False):
        """_bury_in_cell0 (once the databases answer; with free_claims,
        the claims the scheduler may have made for it freed first); a
        failure is logged, so that the other servers of the request are
        still buried."""
        try:
            self._bury(context, build_request, exc, free_claims)
        except Exception:
            LOG.exception('Could not bury %s in cell0',
                          build_request.instance_uuid)

    @until_databases_answer
    def _bury(self, context, build_request, exc, free_claims):
        if free_claims:
            compute_inventory.placement_for(context).remove_allocations(
                context, build_request.instance_uuid)
        self._bury_in_cell0(context, build_request, exc)

    def _bury_in_cell0(self, context, build_request, exc):
        """ERROR in cell0 with a fault, the create action failed, the
        mapping pointed at cell0, the build request dropped. Run again
        after a database error, it finishes what the last run left: the
        cell0 records are one transaction, made once."""
        cell0 = objects.CellMapping.get_by_uuid(context,
                                                constants.CELL0_UUID)
        uuid = build_request.instance_uuid
        with nova_context.target_cell(context, cell0) as cctxt:
            try:
                inst = objects.Instance.get_by_uuid(cctxt, uuid)
            except exception.InstanceNotFound:
                inst = _fresh_instance(cctxt, build_request.instance,
                                       vm_state=instance_obj.ERROR,
                                       task_state=None)
                with instance_obj.session_transaction(cctxt):
                    inst.create()
                    _create_bdms(cctxt, inst, build_request)
                    inst.add_fault(FAULT_CODE, _message(exc), details=None)
                    objects.InstanceAction.action_start(
                        cctxt, uuid, instance_action.CREATE,
                        want_result=False)
                    _record_build_failure(cctxt, uuid, exc)
            instance_mapping.set_cell(context, [uuid], cell0.uuid)
            try:
                build_request.destroy()
            except exception.BuildRequestNotFound:
                inst.destroy()

    # --- cell conductor ----------------------------------------------

    def build_instances(self, context, instance, request_spec,
                        requested_networks, host_list, failure,
                        injected_files=None):
        """Reschedule instance (task_state scheduling, host None) to the
        first of host_list whose claim succeeds; ERROR with a fault when
        none does, or when the databases did not answer for as long as
        until_databases_answer waits (nothing claimed for it then)."""
        try:
            self._reschedule(context, instance, request_spec,
                             requested_networks, host_list, failure,
                             injected_files)
        except Exception as exc:
            LOG.exception('Rescheduling %s failed', instance.uuid)
            try:
                self._fail_reschedule(context, instance, exc)
            except Exception:
                LOG.exception('Could not put %s in ERROR after its '
                              'reschedule failed', instance.uuid)

    @until_databases_answer
    def _fail_reschedule(self, context, instance, exc):
        compute_inventory.placement_for(context).remove_allocations(
            context, instance.uuid)
        instance.host = None
        instance.node = None
        instance.vm_state = instance_obj.ERROR
        instance.task_state = None
        with instance_obj.session_transaction(context):
            try:
                instance.save(expected_task_state=[
                    instance_obj.SCHEDULING])
            except (exception.UnexpectedTaskStateError,
                    exception.InstanceNotFound):
                return
            instance.add_fault(FAULT_CODE, _message(exc), details=None)

    @until_databases_answer
    def _reschedule(self, context, instance, request_spec,
                    requested_networks, host_list, failure,
                    injected_files=None):
        placement = compute_inventory.placement_for(context)
        for i, alt in enumerate(host_list):
            try:
                placement.claim(context, instance.uuid,
                                alt['allocation_request'],
                                project_id=instance.project_id,
                                user_id=instance.user_id)
            except exception.NovaLiteException as exc:
                LOG.info('Alternate %s for %s refused the claim: %s',
                         alt['host'], instance.uuid, exc)
                continue
            instance.host = alt['host']
            instance.node = alt['nodename']
            instance.launched_on = alt['host']
            try:
                instance.save(expected_task_state=[
                    instance_obj.SCHEDULING])
            except (exception.UnexpectedTaskStateError,
                    exception.InstanceNotFound):
                placement.remove_allocations(context, instance.uuid)
                return
            LOG.info('Rescheduling %s to %s after: %s', instance.uuid,
                     alt['host'], failure.get('message'))
            self.compute.build_and_run_instance(
                context, alt['host'], instance, request_spec,
                requested_networks, host_list[i + 1:],
                injected_files=injected_files)
            return
        instance.vm_state = instance_obj.ERROR
        instance.task_state = None
        reason = ('Exhausted all hosts available for retrying build '
                  'failures for instance %s.' % instance.uuid)
        # The state and its fault together (run again, neither twice).
        with instance_obj.session_transaction(context):
            try:
                instance.save(expected_task_state=[
                    instance_obj.SCHEDULING])
            except (exception.UnexpectedTaskStateError,
                    exception.InstanceNotFound):
                return
            instance.add_fault(FAULT_CODE, exception.MaxRetriesExceeded(
                reason=reason).format_message(),
                details=failure.get('details'), host=failure.get('host'))


def bury_unpicked_builds(context, builder):
    """Bury (ERROR in cell0 with a fault, create action failed, build
    request removed, any claim freed) the build requests no conductor
    took within [conductor] build_request_timeout: their message to a
    super conductor was lost. Each is taken first, so of two super
    conductors running this at once one buries it, and a conductor
    that receives its message later finds it taken and does nothing.
    Does nothing while a conductor older than PICKUP_SERVICE_VERSION
    (which builds without taking) may run. Returns the uuids buried."""
    timeout = CONF.conductor.build_request_timeout
    if timeout <= 0:
        return []
    older_than = timeutils.utcnow() - datetime.timedelta(seconds=timeout)
    if not build_request_obj.any_unpicked(context, older_than):
        return []
    try:
        minimum = service_version.get_minimum_version_all_cells(
            context, [constants.CONDUCTOR_BINARY], use_cache=False).get(
            constants.CONDUCTOR_BINARY, service_version.SERVICE_VERSION)
    except exception.CellsNotResponding as exc:
        LOG.warning('Not burying build requests older than %d s: %s',
                    timeout, exc.format_message())
        return []
    if minimum < PICKUP_SERVICE_VERSION:
        LOG.info('Not burying build requests older than %d s: a '
                 'nova-conductor at version %d may still be building them',
                 timeout, minimum)
        return []
    buried = []
    for build_request in build_request_obj.take_unpicked(
            context, _token(), older_than, BURY_BATCH):
        uuid = build_request.instance_uuid
        exc = exception.BuildRequestNotPickedUp(uuid=uuid, seconds=timeout)
        LOG.warning('Burying %s in cell0: %s', uuid, exc.format_message())
        # Nothing should be claimed (only a conductor that took it
        # schedules it); freed all the same, as a failed scheduling.
        builder.bury_logging_errors(context, build_request, exc,
                                    free_claims=True)
        buried.append(uuid)
    return buried


def stranded_after():
    """Seconds after which a build request a super conductor took and
    has not finished is stranded: [conductor] build_request_timeout
    past the longest the scheduler may take ([DEFAULT]
    long_rpc_timeout). None: [conductor] build_request_timeout 0."""
    timeout = CONF.conductor.build_request_timeout
    if timeout <= 0:
        return None
    return timeout + CONF.long_rpc_timeout


def bury_stranded_builds(context, builder):
    """End the builds whose super conductor took their build request and
    then died (or gave up) before finishing: taken longer ago than
    stranded_after() and still there. Each is taken again first (a
    conductor still at it finds it gone when it renews, and undoes what
    it made). One that got as far as an instance in a cell is failed
    there (ERROR, fault, mapping, claims freed); one that did not is
    buried in cell0. Returns the uuids ended."""
    seconds = stranded_after()
    if seconds is None:
        return []
    before = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
    if not build_request_obj.any_stranded(context, before):
        return []
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0()]
    ended = []
    for build_request in build_request_obj.take_stranded(
            context, _token(), before, BURY_BATCH):
        uuid = build_request.instance_uuid
        exc = exception.BuildNotFinished(uuid=uuid, seconds=seconds)
        LOG.warning('Build of %s was taken by a conductor %d s ago and '
                    'never finished; ending it', uuid, seconds)
        cell = _cell_holding(context, cells, uuid)
        if cell is None:
            builder.bury_logging_errors(context, build_request, exc,
                                        free_claims=True)
        else:
            builder.fail_build(context, cell, build_request, exc)
        ended.append(uuid)
    return ended


def _cell_holding(context, cells, uuid):
    """The cell (of cells) that has an instance uuid, or None."""
    for cell in cells:
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                objects.Instance.get_by_uuid(cctxt, uuid)
            except exception.InstanceNotFound:
                continue
            return cell
    return None


def fail_stranded_builds(context):
    """ERROR (with a fault) for builds in this cell whose compute has
    been down for longer than the service down time -- forced down, or
    its heartbeat that late and no answer to a ping (_confirm_down) --
    and that have not moved for as long; their claims and ports are
    freed. Returns the uuids failed."""
    building = objects.InstanceList.get_by_filters(
        context, {'vm_state': [instance_obj.BUILDING],
                  'task_state': [instance_obj.NETWORKING,
                                 instance_obj.SPAWNING]})
    if not building:
        return []
    down_time = service_obj.service_down_time()
    hosts = {i.host for i in building if i.host}
    # One query for every compute of the cell, not one per host.
    late = {s.host: s for s in objects.ServiceList.get_by_binary(
        context, constants.COMPUTE_BINARY)
        if s.host in hosts and not s.is_up()}
    now = timeutils.utcnow()

    def stranded(inst):
        last = inst.updated_at or inst.created_at
        return inst.host in late and (
            last is None or timeutils.delta_seconds(
                timeutils.normalize_time(last),
                timeutils.normalize_time(now)) >= down_time)

    building = [inst for inst in building if stranded(inst)]
    if not building:
        return []
    down = _confirm_down(context, [late[h] for h in
                                   {i.host for i in building}])
    failed = []
    for inst in building:
        if inst.host not in down:
            continue
        task = inst.task_state
        host = inst.host
        inst.vm_state = instance_obj.ERROR
        inst.task_state = None
        inst.network_info = []
        # Its claim goes: no host holds it any more (as a build that
        # failed everywhere); a guest the compute left is an orphan its
        # reaper destroys when it returns.
        inst.host = None
        inst.node = None
        try:
            inst.save(expected_vm_state=[instance_obj.BUILDING],
                      expected_task_state=[task])
        except exception.NovaLiteException:
            continue
        inst.add_fault(FAULT_CODE, 'Build interrupted: compute service on '
                       '%s is down.' % host, host=host)
        try:
            network_api.API().deallocate_for_instance(context, inst.uuid)
        finally:
            compute_inventory.placement_for(context).remove_allocations(
                context, inst.uuid)
        LOG.warning('Build of %s failed: its compute %s is down',
                    inst.uuid, host)
        failed.append(inst.uuid)
    return failed


def _confirm_down(context, services):
    """The hosts of services (computes whose heartbeat is late) that are
    down: forced down by an operator, or not answering a ping within
    rpc_response_timeout (the pings at once). A late heartbeat alone is
    no proof: a compute's heartbeat goes through its cell conductor, so
    a conductor (or a whole all-in-one process) that fell behind --
    starved of CPU, or paused -- sees every compute's heartbeat late
    while the computes are building; their builds are left alone
    then."""
    down = {s.host for s in services if s.forced_down}
    answered = set()
    compute = compute_rpcapi.ComputeAPI()

    def ping(host):
        def call():
            try:
                compute.ping(context, host)
            except Exception as exc:
                LOG.info('Compute %s, its heartbeat late, did not answer a '
                         'ping: %s', host, type(exc).__name__)
            else:
                answered.add(host)
        return call

    asked = [s.host for s in services if not s.forced_down]
    if asked:
        utils.run_together(*[ping(host) for host in asked])
    for host in sorted(answered):
        LOG.warning('Compute %s answers although its heartbeat is late '
                    '(this conductor or its process fell behind): its '
                    'builds are left alone', host)
    return down | (set(asked) - answered)
