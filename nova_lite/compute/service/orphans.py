"""Guests no live server owns, and deletes that never completed.

A guest outlives its server when the server was deleted without its
compute (the API's local delete while the compute looked down) or its
row was removed behind the compute's back; its usage then counts as the
host's own and nothing else ever frees it. As Nova's
running_deleted_instance_* options say, each compute looks for such
guests at start-up and every running_deleted_instance_poll_interval
seconds, and reaps them (destroys the guest, frees its ports and
placement allocations), powers them off, or only logs them.

A guest is orphaned when its server is deleted (for longer than
running_deleted_instance_timeout), is gone from this host's cell, or
lives idle on another host. A guest set aside by a move (<uuid>_resize),
a server in a task or a move, or a hidden copy of a cross-cell move is
never touched while its server lives.

A delete whose message was lost (a broker restart) leaves the server in
task_state deleting for ever: the same periodic run completes the
deletes of this host's servers that stayed in deleting longer than
delete_retry_interval and that no request of this host is working on.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)

REAP, LOG_ONLY, SHUTDOWN, NOOP = 'reap', 'log', 'shutdown', 'noop'


def _older_than(when, seconds):
    if when is None:
        return True
    when = timeutils.normalize_time(when)
    return timeutils.is_older_than(when, seconds)


class Orphan(object):
    """A guest (its driver key) no live server of this host owns: why
    (deleted / gone / elsewhere) and the instance, when one was read."""

    def __init__(self, key, uuid, why, instance=None):
        self.key = key
        self.uuid = uuid
        self.why = why
        self.instance = instance

    @property
    def server_gone(self):
        return self.why in ('deleted', 'gone')

    def describe(self, host):
        if self.why == 'deleted':
            return 'its server %s is deleted' % self.uuid
        if self.why == 'gone':
            return 'its server %s is not in this cell' % self.uuid
        return 'its server %s lives on %s, not %s' % (
            self.uuid, self.instance.host, host)


def classify(context, host, key):
    """The Orphan a guest of host (its driver key) is, or None when a
    live server of host (or a move in progress) owns it. context: one
    that reads host's cell (a compute's, through its conductor)."""
    uuid = key[:-len(fake.RESIZE_SUFFIX)] \
        if key.endswith(fake.RESIZE_SUFFIX) else key
    try:
        instance = instance_obj.Instance.get_by_uuid(context, uuid,
                                                     read_deleted='yes')
    except exception.InstanceNotFound:
        return Orphan(key, uuid, 'gone')
    if instance.deleted:
        if _older_than(instance.deleted_at,
                       CONF.running_deleted_instance_timeout):
            return Orphan(key, uuid, 'deleted', instance)
        return None
    if (key != uuid or instance.host == host or instance.hidden
            or instance.task_state is not None
            or instance.migration_context):
        return None   # ours, or a move's
    return Orphan(key, uuid, 'elsewhere', instance)


class Reaper(object):
    """find/handle guests of deleted servers, and finish_stuck_deletes.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; network_api: the network service's client;
    terminate(context, instance): this host's delete of one server.
    """

    def __init__(self, host, driver, locks, network_api, terminate):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.terminate = terminate
        self._last_run = None

    # --- when ------------------------------------------------------------

    def run_if_due(self, context):
        """Every periodic run: finish stuck deletes; and look for
        guests of deleted servers if running_deleted_instance_poll_
        interval has passed since the last look. Seconds until the next
        look is due (None: no periodic look, only at start-up). Never
        raises (logged)."""
        self._finish_stuck_deletes(context)
        interval = CONF.running_deleted_instance_poll_interval
        if interval <= 0:
            return None
        now = timeutils.utcnow()
        if (self._last_run is None
                or timeutils.delta_seconds(self._last_run, now) >= interval):
            self._look(context)
            return interval
        return max(1, interval - timeutils.delta_seconds(self._last_run,
                                                         now))

    def run_once(self, context):
        """At start-up: finish stuck deletes, then handle the guests of
        deleted servers. Never raises (logged)."""
        self._finish_stuck_deletes(context)
        self._look(context)

    def _finish_stuck_deletes(self, context):
        try:
            self.finish_stuck_deletes(context)
        except Exception:
            LOG.exception('Could not finish the stuck deletes of %s',
                          self.host)

    def _look(self, context):
        self._last_run = timeutils.utcnow()
        if CONF.running_deleted_instance_action == NOOP:
            return
        try:
            self.handle(context, self.find(context))
        except Exception:
            LOG.exception('Could not look for guests of deleted servers '
                          'on %s', self.host)

    # --- guests of deleted servers ---------------------------------------

    def _classify(self, context, key):
        return classify(context, self.host, key)

    def find(self, context):
        """The Orphans among the guests this host's driver runs."""
        orphans = []
        for key in sorted(self.driver.list_guests()):
            orphan = self._classify(context, key)
            if orphan is not None:
                orphans.append(orphan)
        return orphans

    def handle(self, context, orphans, action=None):
        """Act on orphans as action (default [DEFAULT]
        running_deleted_instance_action) says; each one again under its
        server's lock, after reading it again."""
        action = action or CONF.running_deleted_instance_action
        if action == NOOP:
            return
        for orphan in orphans:
            with self.locks(orphan.uuid):
                if orphan.key not in self.driver.list_guests():
                    continue
                again = self._classify(context, orphan.key)
                if again is None:
                    continue
                what = again.describe(self.host)
                if action == LOG_ONLY:
                    LOG.warning('Guest %s on %s runs but %s (left as '
                                'running_deleted_instance_action=log '
                                'says)', again.key, self.host, what)
                elif action == SHUTDOWN:
                    LOG.warning('Guest %s on %s runs but %s: powering '
                                'it off', again.key, self.host, what)
                    try:
                        self.driver.power_off(again.key)
                    except fake.GuestNotFound:
                        pass
                else:
                    LOG.warning('Guest %s on %s runs but %s: destroying '
                                'it', again.key, self.host, what)
                    self._reap(context, again)

    def _reap(self, context, orphan):
        if not orphan.server_gone:
            # The server lives elsewhere: only this host's copy goes;
            # its ports and allocations are the live server's.
            self.driver.destroy(orphan.key)
            return
        self.driver.destroy(orphan.uuid, with_resize_copy=True)
        try:
            self.network_api.deallocate_for_instance(context, orphan.uuid)
        except Exception:
            LOG.exception('Could not free the ports of %s', orphan.uuid)
        try:
            compute_inventory.placement_for(context).remove_allocations(
                context, orphan.uuid)
        except Exception:
            LOG.exception('Could not free the allocations of %s',
                          orphan.uuid)

    # --- deletes that never completed -------------------------------------

    def finish_stuck_deletes(self, context):
        """Delete this host's servers in task_state deleting for longer
        than delete_retry_interval that no request here works on (their
        delete message was lost); terminate is idempotent."""
        grace = CONF.delete_retry_interval
        for instance in instance_obj.InstanceList.get_by_filters(
                context, {'host': self.host,
                          'task_state': [instance_obj.DELETING]}):
            if self.locks.busy(instance.uuid):
                continue
            if not _older_than(instance.updated_at, grace):
                continue
            LOG.warning('Server %s on %s has been deleting since %s: '
                        'finishing its delete', instance.uuid, self.host,
                        instance.updated_at)
            try:
                self.terminate(context, instance)
            except Exception:
                LOG.exception('Could not finish the delete of %s',
                              instance.uuid)
