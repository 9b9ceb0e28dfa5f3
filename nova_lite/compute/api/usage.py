"""Usage reports (os-simple-tenant-usage): what the servers of every
cell used in a window, per project.

- The servers: those launched before the window's end and not
  terminated before its start, deleted ones included, from every cell
  (cell0's never launched), read in parallel (``[api]
  list_cell_timeout``; a cell that does not answer is left out with a
  warning) and merged in (project_id, uuid) order: the order a report
  pages in (``limit`` servers after the ``marker`` server).
- A server's hours: from max(launched_at, start) to min(terminated_at,
  end); its sizes from its flavor, as the Compute API counts them.
- Statements do not depend on the number of servers: one for the cells,
  one per cell for the page, and with a marker one per cell to find it.
"""
import heapq
import itertools
import json

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute.api import server_records
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import usage as cell_rows
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

TERMINATED = 'terminated'


def _cells(context):
    return [c for c in objects.CellMappingList.get_all(context)
            if not c.is_cell0()]


def _answers(context, cells, fn, *args):
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, fn, *args)
    answers = []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer for a usage report: %s',
                        cell.uuid, result)
            continue
        answers.append(result)
    return answers


def _after(context, cells, marker):
    found = [v for v in _answers(context, cells, cell_rows.marker, marker)
             if v is not None]
    if not found:
        raise exception.MarkerNotFound(marker=marker)
    return found[0]


def _flavor(text):
    """The server's current flavor (flat dict) from its instance_extra
    text; {} if it has none."""
    if not text:
        return {}
    try:
        return server_records.flat_flavor(json.loads(text)) or {}
    except (ValueError, AttributeError):
        return {}


def _hours(launched, terminated, start, end):
    if terminated is not None and terminated < start:
        return 0
    if launched is None or launched > end:
        return 0
    stop = end if terminated is None else min(end, terminated)
    return (stop - max(launched, start)).total_seconds() / 3600.0


def _size(flavor, rec, name):
    value = flavor.get(name)
    return (rec[name] if value is None else value) or 0


def _server_usage(row, start, end, now, flavors):
    rec = dict(zip(cell_rows.COLUMNS, row))
    text = row[len(cell_rows.COLUMNS)]
    # Servers of one flavor carry the same copy: decoded once.
    flavor = flavors.get(text)
    if flavor is None:
        flavor = flavors[text] = _flavor(text)
    launched, terminated = rec['launched_at'], rec['terminated_at']
    state = TERMINATED if terminated else rec['vm_state']
    uptime = (terminated if terminated else now) - launched
    return {
        'hours': _hours(launched, terminated, start, end),
        'flavor': flavor.get('name') or '',
        'instance_id': rec['uuid'],
        'name': rec['display_name'],
        'tenant_id': rec['project_id'],
        'memory_mb': _size(flavor, rec, 'memory_mb'),
        'local_gb': (_size(flavor, rec, 'root_gb')
                     + _size(flavor, rec, 'ephemeral_gb')),
        'vcpus': _size(flavor, rec, 'vcpus'),
        'started_at': launched,
        'ended_at': terminated,
        'state': state,
        'uptime': int(uptime.total_seconds()),
    }


def server_usages(context, start, end, project_id=None, limit=None,
                  marker=None):
    """The usage of each server that ran in [start, end) (naive UTC
    datetimes), of one project or all, in (project_id, uuid) order:
    at most limit (None: all) after the marker server (MarkerNotFound,
    a 400, if no cell has it)."""
    ctxt = context.elevated(read_deleted='yes')
    cells = _cells(ctxt)
    after = _after(ctxt, cells, marker) if marker else None
    pages = _answers(ctxt, cells, cell_rows.in_window, start, end,
                     project_id, limit, after)
    rows = heapq.merge(*pages, key=cell_rows.sort_key)
    if limit is not None:
        rows = itertools.islice(rows, limit)
    now = timeutils.utcnow()
    flavors = {}
    return [_server_usage(row, start, end, now, flavors) for row in rows]


def tenant_usages(usages, start, end, detailed):
    """The per-project sums of server usages (in their order), each
    with its servers' usages when detailed."""
    tenants = {}
    for usage in usages:
        summary = tenants.get(usage['tenant_id'])
        if summary is None:
            summary = tenants[usage['tenant_id']] = {
                'tenant_id': usage['tenant_id'],
                'total_local_gb_usage': 0, 'total_vcpus_usage': 0,
                'total_memory_mb_usage': 0, 'total_hours': 0,
                'start': start, 'stop': end}
            if detailed:
                summary['server_usages'] = []
        hours = usage['hours']
        summary['total_local_gb_usage'] += usage['local_gb'] * hours
        summary['total_vcpus_usage'] += usage['vcpus'] * hours
        summary['total_memory_mb_usage'] += usage['memory_mb'] * hours
        summary['total_hours'] += hours
        if detailed:
            summary['server_usages'].append(usage)
    return list(tenants.values())
