"""The instance usage audit log (GET /os-instance_usage_audit_log): for
the audit period that last completed before a time, what the computes
of every cell recorded in their task logs (nova_lite.compute.service.
usage_audit), beside every compute service, disabled ones included (they
may hold servers). Two statements per cell (its compute services, its
task logs of the period), cells read in parallel; a cell that does not
answer is left out with a warning.
"""
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import task_log as task_log_obj
from nova_lite import utils

LOG = logging.getLogger(__name__)


def _cell_audit(cctxt, beginning, ending):
    hosts = [s.host for s in objects.ServiceList.get_by_binary(
        cctxt, constants.COMPUTE_BINARY)]
    logs = objects.TaskLog.get_for_period(
        cctxt, task_log_obj.USAGE_AUDIT, beginning, ending)
    return hosts, logs


def audit_log(context, before=None):
    """{period_beginning, period_ending, num_hosts, num_hosts_done,
    num_hosts_running, num_hosts_not_run, hosts_not_run, total_instances,
    total_errors, overall_status, log} of the period that last completed
    before ``before`` (default: now), as the Compute API shows it."""
    beginning, ending = utils.last_completed_audit_period(
        CONF.instance_usage_audit_period, before)
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0()]
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.cell_timeout, _cell_audit, beginning, ending)
    hosts, logs = set(), []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer for the usage audit log; '
                        'its hosts are not shown.', cell.identity)
            continue
        hosts.update(result[0])
        logs.extend(result[1])
    done = {t.host for t in logs if t.state == task_log_obj.DONE}
    running = {t.host for t in logs if t.state == task_log_obj.RUNNING}
    not_run = sorted(hosts - {t.host for t in logs})
    errors = sum(t.errors or 0 for t in logs)
    return {
        'period_beginning': str(beginning),
        'period_ending': str(ending),
        'num_hosts': len(hosts),
        'num_hosts_done': len(done),
        'num_hosts_running': len(running),
        'num_hosts_not_run': len(not_run),
        'hosts_not_run': not_run,
        'total_instances': sum(t.task_items or 0 for t in logs),
        'total_errors': errors,
        'overall_status': '%s hosts done. %s errors.' % (
            'ALL' if len(done) == len(hosts) else
            '%s of %s' % (len(done), len(hosts)), errors),
        'log': {t.host: {'state': t.state, 'instances': t.task_items,
                         'errors': t.errors, 'message': t.message}
                for t in logs},
    }
