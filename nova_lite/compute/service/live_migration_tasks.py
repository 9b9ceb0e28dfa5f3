"""The compute service's side of a live migration (compute RPC 1.15).

The super conductor (conductor.tasks.live_migrate) has made the
migration (accepted), claimed the destination for the instance while
the migration holds the source allocation, run the pre-checks
(check_can_live_migrate_destination here on the destination, then
check_can_live_migrate_source on the source) and made the ports'
bindings to the destination (INACTIVE); it casts live_migration to
the source. From there, the server ACTIVE in task_state migrating:

  source       live_migration: accepted -> queued (waiting for one of
               [DEFAULT] max_concurrent_live_migrations) -> preparing
  destination  pre_live_migration (called): the incoming guest, its
               VIFs plugged for the ports' bindings here (the network
               service sends network-vif-plugged of each); the source
               waits for those events ([compute]
               live_migration_wait_for_vif_plug, as Nova) with
               [DEFAULT] vif_plugging_timeout: missing when
               vif_plugging_is_fatal, the migration is rolled back
               (error, Nova's fault), else it goes on
  source       running: the driver copies, its progress saved on the
               migration; then post-migrating, the switch: the ports'
               bindings to the destination ACTIVE, the instance's host
               the destination (one save), the source guest and the
               migration's (source) allocation dropped
  destination  post_live_migration_at_destination: the guest runs, the
               ports' source bindings deleted, task None, completed

A failure or an abort before the switch rolls back on the source
(roll_back): the migration's allocation back to the instance (replacing
the destination claim), the destination bindings deleted, task None on
the source, the migration error (a fault recorded) or cancelled, and
rollback_live_migration_at_destination cast to drop the incoming guest.
After the switch the move only goes forward. Every step is idempotent:
recover() (a restart of either compute) runs the remaining ones.

steps.step_boundary (conductor.tasks.base: its observers, none in
production) runs before each step: 'live_pre_at_dest' (destination),
'live_copy' (source, before the driver copies), 'live_switch' (source,
post-migrating saved, before the bindings are activated),
'live_post_at_source' (source, the instance's host the destination,
before the destination's last step is cast), 'live_post_at_dest'
(destination), 'live_rollback' (source) and 'live_rollback_at_dest'
(destination).
"""
import eventlet
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import locks
from nova_lite.compute.service import saves
from nova_lite.compute.service import vif_plugging
from nova_lite.conductor.tasks import base as steps
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.virt import live_migration as virt_live

LOG = logging.getLogger(__name__)

MIGRATING = instance_obj.MIGRATING
# How often a source waiting for its destination's pre_live_migration
# reads whether the destination gave up on it (restarted).
PRE_CHECK_SECONDS = 2.0
BEFORE_SWITCH = (migration_obj.QUEUED, migration_obj.PREPARING,
                 migration_obj.RUNNING)


class LiveMigrationTasks(object):
    """host: this host's name; driver: its virt driver; network_api:
    the network service's client; waits: its EventWaits (None: no
    wait for network-vif-plugged)."""

    def __init__(self, host, driver, network_api, group_locks=None,
                 waits=None):
        self.host = host
        self.waits = waits
        # The host's locks that the late checks of server groups take.
        self._group_locks = group_locks or locks.InstanceLocks()
        self.driver = driver
        self.network_api = network_api
        self.controls = {}          # migration id -> virt_live.Control
        self._slots = None

    def _rpc(self):
        return compute_rpcapi.ComputeAPI()

    def _semaphore(self):
        if self._slots is None and CONF.max_concurrent_live_migrations:
            self._slots = eventlet.semaphore.Semaphore(
                CONF.max_concurrent_live_migrations)
        return self._slots

    # --- pre-checks (called by the super conductor) ------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def check_can_live_migrate_destination(self, context, instance,
                                           migration, block_migration,
                                           disk_over_commit,
                                           request_spec=None):
        """Destination: whether this host can take the guest; the
        migrate data (block_migration decided: None is 'auto', a block
        migration unless the disks are on shared storage).
        MigrationPreCheckError when it cannot, among others when the
        server group of request_spec (compute RPC 1.17) would break its
        policy here (group_check; the migration is in error before the
        group's lock is released)."""
        try:
            group_check.check(
                context, self.host, self._group_locks, instance,
                group_check.group_of_spec(request_spec),
                lambda: saves.save_migration(migration, migration_obj.ERROR),
                'Live migration')
        except exception.InstanceGroupPolicyViolated as exc:
            raise exception.MigrationPreCheckError(
                reason=exc.format_message())
        flavor = instance.flavor
        try:
            data = self.driver.check_can_live_migrate_destination(
                instance.uuid, flavor.vcpus, flavor.memory_mb,
                flavor.root_gb + flavor.ephemeral_gb)
        except Exception as exc:
            raise exception.MigrationPreCheckError(reason=str(exc))
        if block_migration is None:
            block_migration = not data['shared_storage']
        return dict(data, block_migration=bool(block_migration),
                    disk_over_commit=bool(disk_over_commit))

    @instance_events.wrap_instance_event(prefix='compute')
    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        """Source: the guest runs here. MigrationPreCheckError when
        not."""
        try:
            self.driver.check_can_live_migrate_source(instance.uuid)
        except Exception as exc:
            raise exception.MigrationPreCheckError(reason=str(exc))
        return migrate_data

    # --- source: live_migration -------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def live_migration(self, context, instance, migration, migrate_data):
        """Source: run the live migration (see the module)."""
        control = self.controls.setdefault(migration.id,
                                           virt_live.Control())
        try:
            slots = self._semaphore()
            if slots is not None and slots.locked():
                if not saves.save_migration(
                        migration, migration_obj.QUEUED,
                        [migration_obj.ACCEPTED]):
                    return
            if slots is None:
                self._migrate(context, instance, migration, migrate_data,
                              control)
                return
            # Waiting for a slot, an abort is seen within a step.
            while not slots.acquire(timeout=virt_live.STEP_SECONDS):
                if control.aborted:
                    break
            else:
                try:
                    self._migrate(context, instance, migration,
                                  migrate_data, control)
                finally:
                    slots.release()
                return
            self.roll_back(context, instance, migration,
                           migration_obj.CANCELLED)
        finally:
            self.controls.pop(migration.id, None)

    def _migrate(self, context, instance, migration, migrate_data,
                 control):
        if not saves.save_migration(
                migration, migration_obj.PREPARING,
                [migration_obj.ACCEPTED, migration_obj.QUEUED]):
            return      # rolled back meanwhile (recovery, an abort)
        dest = migration.dest_compute
        try:
            if control.aborted:
                raise virt_live.Aborted()
            with notify.action(context, instance, self.host,
                               'live_migration_pre'), \
                    self._waiting_for_plugs(instance):
                migrate_data = self._pre_at_dest(
                    context, instance, migration, migrate_data, control)
            if control.aborted:
                raise virt_live.Aborted()
            steps.step_boundary('live_copy')

            def report(progress):
                # The first report also marks the migration running (one
                # save), unless it moved on meanwhile.
                for name, value in progress.items():
                    setattr(migration, name, value)
                if migration.status == migration_obj.RUNNING:
                    migration.save()
                elif not saves.save_migration(migration,
                                              migration_obj.RUNNING,
                                              [migration_obj.PREPARING]):
                    raise virt_live.Aborted()

            self.driver.live_migration(
                instance.uuid, dest, migrate_data.get('block_migration'),
                report, control)
        except virt_live.Aborted:
            LOG.info('Live migration of %s to %s aborted', instance.uuid,
                     dest)
            self.roll_back(context, instance, migration,
                           migration_obj.CANCELLED)
            return
        except exception.VirtualInterfacePlugTimeout as timeout:
            # As Nova's: rolled back (error), its fault this.
            exc = exception.MigrationError(
                reason='Timed out waiting for events: %s. If these '
                       'timeouts are a persistent issue it could mean the '
                       'networking backend on host %s does not send them; '
                       'you may need to disable the [compute] '
                       'live_migration_wait_for_vif_plug option on host '
                       '%s.' % (timeout.kwargs.get('events'), dest, dest))
            LOG.warning('Live migration of %s to %s failed: %s',
                        instance.uuid, dest, exc)
            saves.record_fault(instance, exc, self.host)
            self.roll_back(context, instance, migration,
                           migration_obj.ERROR, exc)
            raise exc
        except Exception as exc:
            LOG.warning('Live migration of %s to %s failed: %s',
                        instance.uuid, dest, exc)
            saves.record_fault(instance, exc, self.host)
            self.roll_back(context, instance, migration,
                           migration_obj.ERROR, exc)
            raise
        if not saves.save_migration(migration,
                                    migration_obj.POST_MIGRATING,
                                    [migration_obj.RUNNING]):
            # Aborted at the last moment: the switch never happened.
            self.roll_back(context, instance, migration,
                           migration_obj.CANCELLED)
            return
        self.switch_over(context, instance, migration)

    def _waiting_for_plugs(self, instance):
        """The block (the destination's preparation) makes
        network-vif-plugged of the server's ports come; leaving it waits
        for them (vif_plugging.waiting_for) when [compute]
        live_migration_wait_for_vif_plug and the network service
        announces plugs."""
        port_ids = [vif["id"] for vif in instance.network_info or ()]
        if (self.waits is None or not port_ids
                or not CONF.compute.live_migration_wait_for_vif_plug
                or not self.network_api.plugs_announced()):
            port_ids = []
        return vif_plugging.waiting_for(self.waits, instance, port_ids)

    def _pre_at_dest(self, context, instance, migration, migrate_data,
                     control):
        """The destination's pre_live_migration (a call, timeout
        [DEFAULT] long_rpc_timeout), waited for in steps: an abort ends
        the wait (Aborted), and so does the destination's restart,
        which puts the migration in error (recover_host_moves there;
        seen here every PRE_CHECK_SECONDS). The call's late answer is
        then dropped (the rollback's cast drops what it prepared)."""
        call = eventlet.spawn(self._rpc().pre_live_migration, context,
                              migration.dest_compute, instance, migration,
                              migrate_data)
        waited = 0.0
        while True:
            try:
                with eventlet.Timeout(virt_live.STEP_SECONDS):
                    return call.wait()
            except eventlet.Timeout:
                pass
            if control.aborted:
                call.link(_dropped, instance.uuid)
                raise virt_live.Aborted()
            waited += virt_live.STEP_SECONDS
            if waited >= PRE_CHECK_SECONDS:
                waited = 0.0
                status = migration_obj.Migration.get_by_id(
                    context, migration.id).status
                if status != migration_obj.PREPARING:
                    call.link(_dropped, instance.uuid)
                    raise exception.MigrationError(
                        reason='the destination %s stopped while it '
                               'prepared the live migration (%s)'
                               % (migration.dest_compute, status))

    def switch_over(self, context, instance, migration):
        """Source, migration post-migrating: the point of no return
        passed. The ports ACTIVE on the destination, the instance's
        host the destination, post_live_migration_at_destination cast,
        then the guest and the migration's allocation gone here.
        Idempotent (recover runs it again)."""
        steps.step_boundary('live_switch')
        dest = migration.dest_compute
        notify.notify_about_instance_action(
            context, instance, self.host, 'live_migration_post',
            notify.START)
        self.network_api.activate_instance_bindings(
            context, instance.uuid, dest)
        if instance.host != dest:
            instance.host = dest
            instance.node = migration.dest_node
            instance.migration_context = None
            try:
                instance.save(expected_task_state=[MIGRATING])
            except saves.MOVED_ON as exc:
                LOG.info('Instance %s moved on at the switch of its '
                         'live migration: %s', instance.uuid, exc)
                if saves.was_deleted(exc):
                    self._abandon_deleted(context, instance, migration)
                    return
        steps.step_boundary('live_post_at_source')
        self._rpc().post_live_migration_at_destination(
            context, dest, instance, migration)
        try:
            self.driver.post_live_migration_at_source(instance.uuid)
        except Exception:
            LOG.exception('Could not drop the guest of %s on %s after its '
                          'live migration (left to the orphan reaper)',
                          instance.uuid, self.host)
        compute_inventory.placement_for(context).remove_allocations(
            context, migration.uuid)
        notify.notify_about_instance_action(
            context, instance, self.host, 'live_migration_post', notify.END)

    def _abandon_deleted(self, context, instance, migration):
        """The server was deleted while it moved: what the move holds
        goes (the migration's allocation, the incoming guest), the
        migration in error."""
        placement = compute_inventory.placement_for(context)
        placement.remove_allocations(context, migration.uuid)
        placement.remove_allocations(context, instance.uuid)
        self.driver.post_live_migration_at_source(instance.uuid)
        saves.save_migration(migration, migration_obj.ERROR)
        self._rpc().rollback_live_migration_at_destination(
            context, migration.dest_compute, instance, migration)

    def roll_back(self, context, instance, migration, status, exc=None):
        """Source, before the switch: the server as it was on this host
        (see the module); migration status (error or cancelled)."""
        steps.step_boundary('live_rollback')
        dest = migration.dest_compute
        with notify.action(context, instance, self.host,
                           'live_migration_rollback'):
            placement = compute_inventory.placement_for(context)
            if _gone(context, instance):
                # The delete freed the instance's claims: the
                # migration's must not come back to it.
                placement.remove_allocations(context, migration.uuid)
                placement.remove_allocations(context, instance.uuid)
            else:
                placement.move_allocations(context, migration.uuid,
                                           instance.uuid)
            if dest:
                self.network_api.delete_instance_bindings(
                    context, instance.uuid, dest)
            saves.save_quietly(instance, [MIGRATING], task_state=None,
                               migration_context=None)
            saves.save_migration(migration, status)
        if dest:
            self._rpc().rollback_live_migration_at_destination(
                context, dest, instance, migration)

    # --- destination --------------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        """Destination: the incoming guest, ready for the copy, its VIFs
        plugged for the ports' bindings here (network-vif-plugged is
        sent for each: the source waits for them)."""
        steps.step_boundary('live_pre_at_dest')
        flavor = instance.flavor
        disk = 0 if not migrate_data.get('block_migration') else (
            flavor.root_gb + flavor.ephemeral_gb)
        self.driver.pre_live_migration(instance.uuid, flavor.vcpus,
                                       flavor.memory_mb, disk,
                                       guest=guest_info.describe(instance))
        self.network_api.bindings_plugged(context, instance.uuid, self.host)
        return migrate_data

    @instance_events.wrap_instance_event(prefix='compute')
    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        """Destination, after the switch: the guest runs here, the
        server ACTIVE with no task, the ports' bindings to the source
        deleted, the migration's (source) allocation gone, the
        migration completed. Idempotent."""
        steps.step_boundary('live_post_at_dest')
        with notify.action(context, instance, self.host,
                           'live_migration_post_dest'):
            try:
                self.driver.post_live_migration_at_destination(
                    instance.uuid)
            except Exception as exc:
                self._failed_at_destination(context, instance, migration,
                                            exc)
                raise
            saves.save_quietly(instance, [MIGRATING], task_state=None,
                               power_state=instance_obj.RUNNING,
                               migration_context=None, progress=0)
            self.network_api.delete_instance_bindings(
                context, instance.uuid, migration.source_compute)
            self._plugged_here(context, instance)
            # The source drops it too, after its cast here: whichever
            # runs (a source that died after the switch leaves it to
            # this step; its guest is reaped as living elsewhere:
            # compute.service.orphans).
            compute_inventory.placement_for(context).remove_allocations(
                context, migration.uuid)
            saves.save_migration(migration, migration_obj.COMPLETED,
                                 [migration_obj.POST_MIGRATING])

    def _plugged_here(self, context, instance):
        """The guest runs here: its ports, DOWN since the switch
        activated their binding here, are reported plugged
        (network-vif-plugged is sent; nothing waits for it after the
        switch). Logged, not raised, on failure."""
        try:
            port_ids = [p['id'] for p in self.network_api.get_ports(
                context, device_id=instance.uuid)]
            if port_ids:
                self.network_api.ports_plugged(context, instance.uuid,
                                               port_ids, self.host)
        except Exception:
            LOG.exception('Could not report the ports of %s plugged on %s',
                          instance.uuid, self.host)

    def _failed_at_destination(self, context, instance, migration, exc):
        """After the switch the guest could not run here: past the
        point of no return the server goes to ERROR on this host with
        the fault (as Nova's), the migration error, its allocation here
        kept (a rebuild or delete settles it); a deleted server only
        ends its migration."""
        LOG.warning('Live migration of %s failed at its destination %s: '
                    '%s', instance.uuid, self.host, exc)
        compute_inventory.placement_for(context).remove_allocations(
            context, migration.uuid)
        saves.save_migration(migration, migration_obj.ERROR,
                             [migration_obj.POST_MIGRATING])
        if _gone(context, instance):
            return
        saves.record_fault(instance, exc, self.host)
        saves.save_quietly(instance, [MIGRATING], task_state=None,
                           vm_state=instance_obj.ERROR)

    @instance_events.wrap_instance_event(prefix='compute')
    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        """Destination: drop the incoming guest of a rolled-back live
        migration (none is fine)."""
        steps.step_boundary('live_rollback_at_dest')
        with notify.action(context, instance, self.host,
                           'live_migration_rollback_dest'):
            # Only an incoming copy goes (the driver keeps a guest
            # that runs here).
            self.driver.rollback_live_migration_at_destination(
                instance.uuid)

    # --- abort and force-complete (source) ---------------------------------

    def live_migration_abort(self, context, instance, migration_id):
        """Abort the live migration migration_id of this source: queued
        or preparing, it stops before the copy; running, the copy stops
        at its next step; either way it is rolled back (cancelled)."""
        self._signal(context, instance, migration_id,
                     'live_migration_abort', virt_live.Control.abort)

    def live_migration_force_complete(self, context, instance,
                                      migration_id):
        """The running copy of migration_id finishes at its next
        step."""
        self._signal(context, instance, migration_id,
                     'live_migration_force_complete',
                     virt_live.Control.force_complete)

    def _signal(self, context, instance, migration_id, name, act):
        """act(control) on migration_id's control, between
        instance.<name>.start and .end; nothing (logged) when no such
        live migration runs here."""
        control = self.controls.get(migration_id)
        if control is None:
            LOG.info('No live migration %s of %s runs on %s for %s',
                     migration_id, instance.uuid, self.host, name)
            return
        with notify.action(context, instance, self.host, name):
            act(control)

    # --- a restart ----------------------------------------------------------

    def recover(self, context, instance):
        """After a restart of this compute, an instance on this host in
        task_state migrating: a live migration this source was running
        (queued .. running) is rolled back (its guest ran here all
        along); one past its switch (post-migrating) is finished
        forward; on the destination (the switch done), the
        destination's last step runs. A migration still accepted is
        the super conductor's (its cast may be queued here, or its
        recovery rolls it back). Returns whether it acted."""
        try:
            migration = migration_obj.Migration.get_in_progress_by_instance(
                context, instance.uuid, migration_obj.LIVE_IN_PROGRESS)
        except exception.MigrationNotFound:
            LOG.warning('Instance %s is migrating with no live migration '
                        'in progress; its task is cleared', instance.uuid)
            saves.save_quietly(instance, [MIGRATING], task_state=None,
                               migration_context=None)
            return True
        if not migration.is_live or migration.status == \
                migration_obj.ACCEPTED:
            return False
        LOG.warning('Live migration %s of %s (%s) was interrupted by a '
                    'restart of %s', migration.uuid, instance.uuid,
                    migration.status, self.host)
        if migration.status in BEFORE_SWITCH and \
                migration.source_compute == self.host:
            exc = RuntimeError('The live migration was interrupted by a '
                               'restart of the compute service on %s.'
                               % self.host)
            saves.record_fault(instance, exc, self.host)
            self.roll_back(context, instance, migration,
                           migration_obj.ERROR, exc)
        elif migration.status == migration_obj.POST_MIGRATING:
            if migration.source_compute == self.host:
                self.switch_over(context, instance, migration)
            else:
                self.post_live_migration_at_destination(
                    context, instance, migration)
        return True

    def recover_host_moves(self, context):
        """After a restart of this source: live migrations past their
        switch whose instance is on the destination already -- this
        host's remaining steps (guest, allocation) run again and the
        destination's is cast again (each is idempotent). After a
        restart of this destination: a live migration it was preparing
        (its pre_live_migration died with the process) goes to error
        (compare-and-swap on preparing), for the source, waiting for
        the answer, to roll it back."""
        migrations = migration_obj.MigrationList.get_by_host_and_status(
            context, self.host, [migration_obj.POST_MIGRATING,
                                 migration_obj.PREPARING])
        for migration in migrations:
            if not migration.is_live:
                continue
            if migration.status == migration_obj.PREPARING:
                if migration.dest_compute == self.host and \
                        migration.source_compute != self.host:
                    LOG.warning('Live migration %s of %s was being '
                                'prepared here when %s stopped: error',
                                migration.uuid, migration.instance_uuid,
                                self.host)
                    saves.save_migration(migration, migration_obj.ERROR,
                                         [migration_obj.PREPARING])
                continue
            if migration.source_compute != self.host:
                continue
            try:
                instance = instance_obj.Instance.get_by_uuid(
                    context, migration.instance_uuid)
                if instance.host == migration.dest_compute:
                    self.switch_over(context, instance, migration)
            except exception.InstanceNotFound:
                compute_inventory.placement_for(context).remove_allocations(
                    context, migration.uuid)
            except Exception:
                LOG.exception('Could not recover live migration %s',
                              migration.uuid)


def _dropped(call, uuid):
    """A pre_live_migration answer nobody waits for any more."""
    try:
        call.wait()
    except Exception as exc:
        LOG.info('Late pre_live_migration of %s failed: %s', uuid, exc)


def _gone(context, instance):
    """Whether the instance was deleted (its row is gone or marked)."""
    try:
        instance_obj.Instance.get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        return True
    return False
