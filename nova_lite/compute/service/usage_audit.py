"""The instance usage audit of this host ([DEFAULT] instance_usage_audit):
once per completed audit period ([DEFAULT] instance_usage_audit_period),
an instance.exists notification for each server of this host that
existed in the period, and a task log in the cell database (RUNNING,
then DONE with the count of servers and of errors) that GET
/os-instance_usage_audit_log reports. The task log makes it run once
per host and period: a record of the period already there (another run,
or one interrupted by a restart: Nova's rule too) means done.

Audited: the servers on this host that are not deleted and were created
before the period ended (servers deleted during the period are not:
this host no longer lists them).
"""
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import task_log as task_log_obj
from nova_lite import utils

LOG = logging.getLogger(__name__)

# Seconds between two looks at whether a new period has completed.
LOOK_INTERVAL = 60


class UsageAudit(object):
    """The periodic audit of one compute host."""

    def __init__(self, host):
        self.host = host
        self._audited = None    # the last period this process finished

    def run_if_due(self, context):
        """Audit the last completed period unless done already. Seconds
        until the next look (None: the audit is off). Never raises
        (logged)."""
        if not CONF.instance_usage_audit:
            return None
        period = utils.last_completed_audit_period(
            CONF.instance_usage_audit_period)
        if period != self._audited:
            try:
                self.audit(context, *period)
                self._audited = period
            except Exception:
                LOG.exception('Instance usage audit of %s for %s to %s '
                              'failed', self.host, *period)
        return LOOK_INTERVAL

    def audit(self, context, beginning, ending):
        """One period: False when some run had recorded it already."""
        servers = [i for i in objects.InstanceList.get_by_filters(
            context, {'host': self.host, 'deleted': False})
            if i.created_at is None or
            timeutils.normalize_time(i.created_at) < ending]
        try:
            objects.TaskLog.begin_task(
                context, task_log_obj.USAGE_AUDIT, self.host, beginning,
                ending, task_items=len(servers),
                message='Instance usage audit started...')
        except exception.TaskAlreadyRunning:
            return False
        started = time.monotonic()
        errors = 0
        for instance in servers:
            try:
                notify.notify_about_instance_exists(context, instance,
                                                    self.host)
            except Exception:
                errors += 1
                LOG.exception('instance.exists of %s failed', instance.uuid)
        objects.TaskLog.end_task(
            context, task_log_obj.USAGE_AUDIT, self.host, beginning, ending,
            errors, message='Instance usage audit ran for host %s, %s '
                            'instances in %.2f seconds.' % (
                                self.host, len(servers),
                                time.monotonic() - started))
        LOG.info('Instance usage audit of %s for %s to %s: %d servers, '
                 '%d errors', self.host, beginning, ending, len(servers),
                 errors)
        return True
