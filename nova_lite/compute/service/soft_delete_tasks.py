"""Soft delete, restore and the reclaim of soft-deleted servers on this
host (compute RPC 1.9; [DEFAULT] reclaim_instance_interval > 0).

A soft delete powers the guest off and leaves the server SOFT_DELETED
with everything it holds (host, allocations, ports, volumes); a restore
powers it on again (ACTIVE). Each is a compare-and-swap on the task
state the API set (soft-deleting, restoring): a forceDelete or an
administrator's reset meanwhile wins. Every periodic run, the servers
of this host soft-deleted longer than reclaim_instance_interval ago are
deleted for good (as terminate_instance deletes).
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import saves
from nova_lite.conf import CONF
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)

INTERRUPTED = (instance_obj.SOFT_DELETING, instance_obj.RESTORING)


class SoftDeleteTasks(object):
    """soft_delete_instance and restore_instance of ComputeManager, and
    the periodic reclaim. host: this host's name; driver: its virt
    driver; locks: its InstanceLocks; terminate: fn(context, instance)
    that deletes a server for good (ComputeManager.terminate_instance's
    work, with no instance action)."""

    def __init__(self, host, driver, locks, terminate):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.terminate = terminate

    @instance_events.wrap_instance_event(prefix='compute')
    def soft_delete_instance(self, context, instance):
        """soft-deleting -> SOFT_DELETED, SHUTDOWN. Notifications:
        instance.soft_delete.start/.end."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'soft_delete'):
            self._soft_delete(instance)

    def _soft_delete(self, instance):
        try:
            self.driver.power_off(instance.uuid)
        except fake.GuestNotFound:
            pass
        saves.save_quietly(instance, [instance_obj.SOFT_DELETING],
                           vm_state=instance_obj.SOFT_DELETED,
                           power_state=instance_obj.SHUTDOWN,
                           task_state=None)

    @instance_events.wrap_instance_event(prefix='compute')
    def restore_instance(self, context, instance):
        """restoring -> ACTIVE, RUNNING. Notifications:
        instance.restore.start/.end."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'restore'):
            self._restore(instance)

    def _restore(self, instance):
        try:
            self.driver.power_on(instance.uuid)
        except Exception as exc:
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, [instance_obj.RESTORING],
                               task_state=None)
            raise
        saves.save_quietly(instance, [instance_obj.RESTORING],
                           vm_state=instance_obj.ACTIVE,
                           power_state=instance_obj.RUNNING,
                           task_state=None)

    def recover_interrupted(self, instance):
        """After a restart of this host: an interrupted soft delete or
        restore is run to its end (both are idempotent). Never raises
        (logged)."""
        try:
            with self.locks(instance.uuid):
                if instance.task_state == instance_obj.SOFT_DELETING:
                    self._soft_delete(instance)
                else:
                    self._restore(instance)
        except Exception:
            LOG.exception('Could not finish %s of %s', instance.task_state,
                          instance.uuid)

    def reclaim(self, context):
        """Delete for good the servers of this host soft-deleted (no
        task) longer than reclaim_instance_interval ago. Seconds until
        the next look is due (None: soft delete is off). Never raises
        (logged)."""
        interval = CONF.reclaim_instance_interval
        if interval <= 0:
            return None
        try:
            queued = objects.InstanceList.get_by_filters(
                context, {'host': self.host, 'deleted': False,
                          'soft_deleted': True,
                          'vm_state': [instance_obj.SOFT_DELETED],
                          'task_state': [None]})
        except Exception:
            LOG.exception('Could not list the soft-deleted servers of %s',
                          self.host)
            return interval
        now = timeutils.utcnow()
        for instance in queued:
            since = instance.updated_at or instance.created_at
            if since is not None and timeutils.delta_seconds(
                    timeutils.normalize_time(since), now) < interval:
                continue
            if not saves.save_quietly(instance, [None],
                                      task_state=instance_obj.DELETING):
                continue
            LOG.info('Reclaiming soft-deleted server %s', instance.uuid)
            try:
                self.terminate(context, instance)
            except Exception:
                LOG.exception('Could not reclaim %s', instance.uuid)
        return interval
