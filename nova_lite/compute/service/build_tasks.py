"""Building and deleting a server on this host (compute RPC 1.3).

Building: networking -> spawning -> ACTIVE/RUNNING. A spawn that fails
undoes what it did here (guest, ports, volumes' connections, the claim
on this host) and hands the instance back to its cell conductor to try
the next alternate host; nothing here calls up to the API DB. Build and
terminate of one instance are serialised on this host (the per-instance
locks), and every state change is a compare-and-swap on the task
state, so a delete racing a build ends with the server deleted and
nothing left behind.
"""
import time
import traceback

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import event_waits
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import vif_plugging
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db.outage import until_databases_answer
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.notifications import instance as notify
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.share import api as share_api

LOG = logging.getLogger(__name__)
# Times a compute sends the freeing of a server's allocations that got
# no reply (_free_claim).
FREE_CLAIM_ATTEMPTS = 3

# How long a compute asks whether a build's last save (ACTIVE), whose
# answer was lost, was made, and how often.
SAVED_ACTIVE_WAIT = 180
SAVED_ACTIVE_RETRY = 2

# A build the stop of its compute interrupted (its guest may be half
# made); a build still in task_state scheduling has its cast waiting in
# this host's queue.
INTERRUPTED = (instance_obj.NETWORKING, instance_obj.SPAWNING)
# Seconds after this process started past which a build of this host
# still in task scheduling, unchanged since before the start, is one
# whose cast an earlier process of this host took and died with (a
# cast still queued for it is delivered well within this).
ABANDONED_CAST_GRACE = 60


class BuildTasks(object):
    """build_and_run_instance and terminate_instance of ComputeManager.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; network_api: the network service's client; volumes:
    the VolumeTasks of this host (a build's and a delete's volumes);
    moves: the ResizeRecovery of this host (a delete in the middle of
    a move releases it); waits: its EventWaits (network-vif-plugged).
    """

    def __init__(self, host, driver, locks, network_api, volumes, moves,
                 waits):
        self.host = host
        self.waits = waits
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.volumes = volumes
        self.moves = moves
        # uuids of the builds this process is running.
        self.running = set()
        # (naive UTC, monotonic) when this process started building.
        self.started = (timeutils.utcnow(), time.monotonic())

    def build_and_run_instance(self, context, instance, request_spec,
                               requested_networks, host_list,
                               admin_password=None, injected_files=None):
        """On entry the instance is building, task scheduling, claimed on
        this host. On exit it is ACTIVE and RUNNING here; or, the build
        having failed, everything it made here undone and the instance
        (task scheduling, no host) cast back to its cell conductor with
        the remaining alternates of host_list; or, deleted meanwhile,
        nothing of it left here."""
        self.running.add(instance.uuid)
        try:
            with self.locks(instance.uuid), instance_events.EventReporter(
                    context, 'compute__do_build_and_run_instance',
                    self.host, instance.uuid) as event:
                self._build(context, instance, request_spec,
                            requested_networks, host_list, event,
                            admin_password, injected_files)
        finally:
            self.running.discard(instance.uuid)

    def finish_abandoned_builds(self, context):
        """Every periodic run: builds of this host in task networking
        or spawning that no build of this process runs -- their build
        failed and so did its undoing (a database or message-queue
        outage: the failed build could neither be undone nor sent back
        for rescheduling) -- go to ERROR as an interrupted build does
        (recover_interrupted_build), never left in BUILD. One query."""
        states = list(INTERRUPTED)
        started_at, started = self.started
        if time.monotonic() - started > ABANDONED_CAST_GRACE:
            # Also a build whose cast an earlier process of this host
            # took and died with (killed between taking the message
            # and its first save): nothing would ever build it.
            states.append(instance_obj.SCHEDULING)
        try:
            building = instance_obj.InstanceList.get_by_filters(
                context, {'host': self.host,
                          'vm_state': [instance_obj.BUILDING],
                          'task_state': states})
        except Exception:
            LOG.exception('Could not list the builds of %s', self.host)
            return []
        done = []
        for instance in building:
            if instance.uuid in self.running:
                continue
            if instance.task_state == instance_obj.SCHEDULING and not (
                    _changed_before(instance, started_at)):
                continue    # cast to this process: still to come
            try:
                with self.locks(instance.uuid):
                    if instance.uuid in self.running:
                        continue
                    if instance.task_state == instance_obj.SCHEDULING:
                        self.recover_interrupted_build(
                            context, instance, 'Instance build was '
                            'interrupted by a restart of its compute '
                            'service on %s before it began.' % self.host,
                            abandoned_cast=True)
                    else:
                        self.recover_interrupted_build(
                            context, instance, 'Instance build failed on '
                            '%s and could not be undone then (%s); undone '
                            'later.' % (self.host, 'its database or message '
                                        'queue was unreachable'))
                done.append(instance.uuid)
            except Exception:
                LOG.exception('Could not end the abandoned build of %s',
                              instance.uuid)
        return done

    def _build(self, context, instance, request_spec, requested_networks,
               host_list, event, admin_password=None, injected_files=None):
        try:
            instance.task_state = instance_obj.NETWORKING
            # Waits out a database restart: failing here would leave the
            # build in task scheduling, which no one ends.
            until_databases_answer(instance.save)(
                expected_task_state=[instance_obj.SCHEDULING, None],
                expected_vm_state=[instance_obj.BUILDING])
        except (exception.UnexpectedTaskStateError,
                exception.InstanceInvalidState,
                exception.InstanceNotFound):
            # Deleted meanwhile: whoever deleted it cleans up.
            LOG.info('Instance %s was deleted before its build started',
                     instance.uuid)
            self._free_claim(context, instance)
            return
        notify.notify_about_instance_create(context, instance, self.host,
                                            notify.START)
        try:
            self._check_group_policy(context, instance, request_spec)
            nw_info = self.network_api.allocate_for_instance(
                context, instance.uuid, instance.project_id,
                requested_networks, self.host,
                security_group_ids=network_api.instance_security_group_ids(
                    instance.system_metadata))
            instance.network_info = nw_info
            bdms, volume_backed = self.volumes.prep_block_devices(
                context, instance)
            instance.task_state = instance_obj.SPAWNING
            instance.save(expected_task_state=[instance_obj.NETWORKING])
            self._spawn_plugged(context, instance, nw_info, volume_backed,
                                admin_password, injected_files)
            self.volumes.plug_block_devices(context, instance, bdms)
            instance.vm_state = instance_obj.ACTIVE
            instance.power_state = instance_obj.RUNNING
            instance.task_state = None
            instance.launched_at = timeutils.utcnow()
            try:
                instance.save(expected_task_state=[instance_obj.SPAWNING])
            except messaging.MessagingException:
                # No answer (a broker restart): the conductor may have
                # saved it and the answer been lost. Undoing the guest
                # then would leave an ACTIVE server with nothing behind.
                if not self._saved_active(context, instance):
                    raise
            LOG.info('Instance %s is ACTIVE on %s', instance.uuid, self.host)
            notify.notify_about_instance_create(context, instance, self.host,
                                                notify.END)
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            LOG.info('Instance %s was deleted while building; cleaning up',
                     instance.uuid)
            self._undo_build(context, instance)
        except exception.VirtualInterfacePlugTimeout as exc:
            # The host's network agent may be at fault: the next host.
            self._fail_and_reschedule(context, instance, request_spec,
                                      requested_networks, host_list, event,
                                      exc, injected_files)
        except exception.VirtualInterfaceCreateException as exc:
            self._abort_build(context, instance, event, exc,
                              'Failed to allocate the network(s), not '
                              'rescheduling.')
        except exception.TooManyDiskDevices as exc:
            # Any host of this configuration would refuse it too.
            self._abort_build(context, instance, event, exc,
                              exc.format_message())
        except Exception as exc:
            self._fail_and_reschedule(context, instance, request_spec,
                                      requested_networks, host_list, event,
                                      exc, injected_files)

    def _abort_build(self, context, instance, event, exc, reason):
        """A build failure that is not the host's fault: undone, and
        ERROR with reason, not rescheduled."""
        LOG.warning('Build of instance %s failed on %s: %s',
                    instance.uuid, self.host, exc)
        abort = exception.BuildAbortException(instance_uuid=instance.uuid,
                                              reason=reason)
        notify.notify_about_instance_create(context, instance, self.host,
                                            notify.ERROR, abort)
        event.failed(abort, exc.__traceback__)
        self._undo_build(context, instance)
        self._abort(instance, abort)

    def _saved_active(self, context, instance):
        """Whether the instance is ACTIVE with no task on this host in
        its cell, asked again (every few seconds, for up to
        SAVED_ACTIVE_WAIT seconds) while the message queue does not
        answer; False when it is not, or no answer came."""
        deadline = time.monotonic() + SAVED_ACTIVE_WAIT
        while True:
            try:
                fresh = instance_obj.Instance.get_by_uuid(context,
                                                          instance.uuid)
            except exception.InstanceNotFound:
                return False
            except messaging.MessagingException:
                if time.monotonic() > deadline:
                    LOG.warning('No answer about %s: its build is undone',
                                instance.uuid)
                    return False
                time.sleep(SAVED_ACTIVE_RETRY)
                continue
            saved = (fresh.vm_state == instance_obj.ACTIVE
                     and fresh.task_state is None
                     and fresh.host == self.host)
            if saved:
                LOG.info('Instance %s was saved ACTIVE though its answer '
                         'was lost', instance.uuid)
                instance.obj_reset_changes()
            return saved

    def _fail_and_reschedule(self, context, instance, request_spec,
                             requested_networks, host_list, event, exc,
                             injected_files=None):
        """A build that failed here (exc) and goes to the next host:
        its event failed, what it made here undone (its claim freed),
        the instance back to its cell conductor with the alternates."""
        LOG.warning('Build of instance %s failed on %s: %s',
                    instance.uuid, self.host, exc)
        notify.notify_about_instance_create(context, instance, self.host,
                                            notify.ERROR, exc)
        event.failed(exc, exc.__traceback__)
        self._undo_build(context, instance)
        self._reschedule(context, instance, request_spec,
                         requested_networks, host_list, exc,
                         injected_files)

    def _spawn_plugged(self, context, instance, nw_info, volume_backed,
                       admin_password=None, injected_files=None):
        """Spawn the guest and plug its VIFs, waiting for
        network-vif-plugged as vif_plugging.spawn_and_wait says; the
        VIFs awaited show active in the info cache after."""
        flavor = instance.flavor

        def spawn():
            # A volume-backed server's root disk is its volume.
            self.driver.spawn(
                instance.uuid, flavor.vcpus, flavor.memory_mb,
                (0 if volume_backed else flavor.root_gb)
                + flavor.ephemeral_gb, name=instance.display_name,
                guest=guest_info.describe(instance, nw_info, admin_password,
                                          volume_backed, injected_files))
        awaited = vif_plugging.spawn_and_wait(
            self.waits, self.network_api, context, instance, self.host,
            [v['id'] for v in nw_info or ()],
            [t for _n, t in event_waits.unplugged_vifs(nw_info)], spawn)
        if awaited:
            instance.network_info = [dict(v, active=True) for v in nw_info]

    def _abort(self, instance, abort):
        """A build that is not rescheduled: ERROR with abort as its
        fault, no host (its claim was freed). The fault is written first,
        as Nova does: a client that sees ERROR finds it."""
        instance.add_fault(500, abort.format_message(), host=self.host)
        instance.vm_state = instance_obj.ERROR
        instance.task_state = None
        instance.network_info = []
        instance.host = None
        instance.node = None
        try:
            instance.save(expected_task_state=list(INTERRUPTED))
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            return

    def _check_group_policy(self, context, instance, request_spec):
        """The late check of the server group's policy (group_check):
        a failed check leaves the instance without a host before the
        group's lock is released. InstanceGroupPolicyViolated then."""
        def withdraw():
            instance.host = None
            instance.node = None
            instance.save(expected_task_state=[instance_obj.NETWORKING])
        group_check.check(context, self.host, self.locks, instance,
                          group_check.group_of_spec(request_spec), withdraw,
                          'Build')

    def _free_claim(self, context, instance):
        """Free instance's allocations; a call that got no reply (the
        scheduler serving placement killed after it took the message)
        is sent again, up to FREE_CLAIM_ATTEMPTS in all: freeing is
        idempotent, and a claim left behind would never be freed."""
        placement = compute_inventory.placement_for(context)
        for attempt in range(1, FREE_CLAIM_ATTEMPTS + 1):
            try:
                placement.remove_allocations(context, instance.uuid)
                return
            except messaging.MessagingTimeout:
                if attempt == FREE_CLAIM_ATTEMPTS:
                    LOG.exception('Could not free the allocations of %s',
                                  instance.uuid)
                    return
                LOG.warning('Freeing the allocations of %s got no reply; '
                            'sending it again', instance.uuid)
            except Exception:
                LOG.exception('Could not free the allocations of %s',
                              instance.uuid)
                return

    def _undo_build(self, context, instance):
        self.driver.destroy(instance.uuid)
        self.volumes.disconnect_block_devices(context, instance)
        try:
            self.network_api.deallocate_for_instance(context,
                                                     instance.uuid)
        except Exception:
            LOG.exception('Could not free the ports of %s', instance.uuid)
        self._free_claim(context, instance)

    def _reschedule(self, context, instance, request_spec,
                    requested_networks, host_list, exc, injected_files=None):
        alternates = [h for h in (host_list or [])
                      if h['host'] != self.host]
        try:
            instance.network_info = []
            instance.host = None
            instance.node = None
            instance.task_state = instance_obj.SCHEDULING
            until_databases_answer(instance.save)(
                expected_task_state=[instance_obj.NETWORKING,
                                     instance_obj.SPAWNING])
        except (exception.UnexpectedTaskStateError,
                exception.InstanceNotFound):
            return
        conductor_rpcapi.ConductorAPI(
            transport=getattr(context, 'mq_connection', None)
        ).build_instances(context, instance, request_spec,
                          requested_networks, alternates,
                          {'host': self.host, 'message': str(exc)[:255],
                           'details': traceback.format_exc()},
                          injected_files=injected_files)

    def recover_interrupted_build(self, context, instance, message=None,
                                  abandoned_cast=False):
        """After a restart of this host: a build the stop interrupted
        (building, task in INTERRUPTED; with abandoned_cast, task
        scheduling: its cast died with an earlier process) goes to ERROR
        with a fault, its guest, volumes' connections, ports and claim
        freed; never left in BUILD. Nothing when it moved on
        meanwhile."""
        expected = ([instance_obj.SCHEDULING] if abandoned_cast
                    else list(INTERRUPTED))
        LOG.warning('Build of %s was interrupted on %s (a restart, or its '
                    'failure could not be undone); it goes to ERROR',
                    instance.uuid, self.host)
        self._undo_build(context, instance)
        instance.vm_state = instance_obj.ERROR
        instance.task_state = None
        instance.network_info = []
        # Its claim is freed: it holds nothing on this host any more.
        instance.host = None
        instance.node = None
        try:
            instance.save(expected_vm_state=[instance_obj.BUILDING],
                          expected_task_state=expected)
        except exception.NovaLiteException:
            return
        instance.add_fault(
            500, message or 'Instance build was interrupted by a restart '
            'of its compute service.', host=self.host)

    @instance_events.wrap_instance_event(prefix='compute')
    def terminate_instance(self, context, instance):
        """On entry task deleting. On exit the guest (and a copy set
        aside by a move), the volumes' attachments (and the volumes to
        delete on termination), the ports, the share grants, the claims
        of the instance and of a move in progress are gone, and the
        instance destroyed."""
        with self.locks(instance.uuid):
            notify.notify_about_instance_action(context, instance, self.host,
                                                'delete', notify.START)
            self.volumes.cleanup_block_devices(context, instance)
            self.driver.destroy(instance.uuid, with_resize_copy=True)
            try:
                self.network_api.deallocate_for_instance(context,
                                                         instance.uuid)
                # The server's share grants (its mappings go with its
                # rows).
                share_api.API().deny_all(context, 'user', instance.uuid)
            finally:
                self._free_claim(context, instance)
                self.moves.release_move(context, instance)
            try:
                instance.destroy()
            except exception.InstanceNotFound:
                pass
            LOG.info('Instance %s deleted on %s', instance.uuid, self.host)
            notify.notify_about_instance_action(context, instance, self.host,
                                                'delete', notify.END)


def _changed_before(instance, when):
    """Whether instance (its updated_at, else created_at) last changed
    before when (naive UTC)."""
    changed = instance.updated_at or instance.created_at
    if changed is None:
        return False
    return changed.replace(tzinfo=None) < when
