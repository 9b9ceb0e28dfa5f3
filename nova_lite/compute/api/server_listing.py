"""The read side of servers: get, list and update, across every cell.

Everything here returns *server records*
(nova_lite.compute.api.server_records.ServerRecord, the read model: its
docstring is the contract with the REST layer). Rows are read, and
records built from them, in server_records (the one module of the
compute API that reads server rows); this module pages, merges and
orders them. Listing rules:

- One sorted k-way merge (heapq.merge) of one page per cell, read in
  parallel (scatter-gather, ``[api] list_cell_timeout``), and of the
  build requests (servers not yet in a cell) from the API DB. Each cell
  is asked for at most ``limit`` rows after the marker; the merge keeps
  the first ``limit``.
- The sort always ends with created_at and uuid (the tie-breaker that is
  global across cells); the marker is any server's uuid, wherever it
  lives (a cell or a build request): its sort values bound every
  cell's page. An unknown marker is a 400.
- Hidden instances (copies of a cross-cell move) are never listed; a
  uuid is listed once (a cell's row wins over its build request).
- A cell that does not answer is left out with a warning, or (with
  cell_down_support, microversion 2.69) its servers of the project
  follow the answering cells' rows as minimal records (cell_down).
- Statements per request do not depend on the number of servers: per
  cell one page query (plus one for the rows tied at the page's last
  created_at, when the page is full, in the default order), for a
  detail listing one for the whole rows of the merge's winners (the
  page reads only sort keys and uuid), one per kind of related row,
  and one for the page hosts' compute services when host_status is
  wanted; in the API DB one for the cells, one for the build requests,
  one for the marker. Rows read: at most limit narrow rows per cell,
  limit whole ones in all (doc/scaling.rst).
"""
import functools
import heapq

from oslo_log import log as logging

from nova_lite.compute.api import flavors as compute_flavors
from nova_lite.compute.api import server_records
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects

LOG = logging.getLogger(__name__)

DEFAULT_SORT_KEYS = server_records.DEFAULT_SORT_KEYS
# Keys a list can be sorted by: instance columns.
SORTABLE = server_records.SORTABLE
# Columns filtered by regular expression.
REGEX_FILTERS = server_records.REGEX_FILTERS
# Host status of a server's compute (Nova's HostStatus values).
HOST_UP, HOST_DOWN, HOST_MAINTENANCE, HOST_UNKNOWN, HOST_NONE = (
    server_records.HOST_UP, server_records.HOST_DOWN,
    server_records.HOST_MAINTENANCE, server_records.HOST_UNKNOWN,
    server_records.HOST_NONE)


# --- cells -------------------------------------------------------------------

def _cells(context):
    return objects.CellMappingList.get_all(context)


def _marker_values(context, marker, cells):
    """The record of the server named by marker, wherever it lives, and
    whether its cell is down; MarkerNotFound if it is nowhere."""
    mapping = server_records.mapping(context, marker)
    if mapping is None:
        raise exception.MarkerNotFound(marker=marker)
    if mapping['cell_uuid'] is None:
        rec = server_records.build_request_row(context, marker)
        if rec is None:
            raise exception.MarkerNotFound(marker=marker)
        return rec, False
    cell = next((c for c in cells if c.uuid == mapping['cell_uuid']), None)
    if cell is None:
        raise exception.MarkerNotFound(marker=marker)
    result = nova_context.scatter_gather_cells(
        context, [cell], CONF.api.list_cell_timeout,
        server_records.marker_in_cell, marker)[cell.uuid]
    if nova_context.is_cell_failure(result):
        if isinstance(result, exception.InstanceNotFound):
            raise exception.MarkerNotFound(marker=marker)
        return server_records.down_record(mapping), True
    return server_records.cell_record(result), False


def list(context, search_opts, sort_keys=None, sort_dirs=None, limit=None,
         marker=None, all_tenants=False, cell_down_support=False,
         host_status=False, detailed=True):
    """One page of servers across every cell and the build requests.

    search_opts: filters as nova_lite.db.main.instance_pages.list_records
    takes them (project_id set unless all_tenants), plus 'flavor' (a
    flavorid, matched through the flavor's id). limit: the page size
    (None: no limit). marker: the uuid of the server to start after.
    host_status: fill each record's host_status (a query per cell).
    detailed: read what a detail body shows (metadata, tags, faults,
    volumes: a query per kind and cell); without it, the instance rows
    alone. Returns ServerRecords in order.
    """
    rows = _rows(context, search_opts, sort_keys, sort_dirs, limit, marker,
                 cell_down_support, host_status, detailed)
    if detailed:
        _with_security_groups(context, rows)
    return [server_records.record(r) for r in rows]


def _with_security_groups(context, rows):
    """Fill the security groups of the rows' servers that have ports
    (one call to the network service for all of them)."""
    wanted = [r['uuid'] for r in rows if r.get('network_info')]
    if not wanted:
        return rows
    groups = network_api.API().get_instances_security_groups(
        context, wanted)
    for row in rows:
        row['security_groups'] = [{'id': g['id'], 'name': g['name']}
                                  for g in groups.get(row['uuid'], ())]
    return rows


def _rows(context, search_opts, sort_keys, sort_dirs, limit, marker,
          cell_down_support, host_status, detailed):
    """list()'s page as rows, in order."""
    filters = dict(search_opts or {})
    filters['hidden'] = False
    # A bad pattern is a 400 before any query.
    server_records.ip_matcher(filters)
    if 'flavor' in filters:
        flavorid = filters.pop('flavor')
        try:
            flavor = compute_flavors.get(context, flavorid)
        except exception.FlavorNotFound:
            return []
        filters['instance_type_id'] = flavor.id
    keys, dirs = server_records.sort_params(sort_keys, sort_dirs)
    compare = server_records.comparator(keys, dirs)
    if limit == 0:
        return []
    cells = _cells(context)
    marker_rec, marker_down = (None, False)
    if marker is not None:
        marker_rec, marker_down = _marker_values(context, marker, cells)
        if marker_down and not cell_down_support:
            raise exception.MarkerNotFound(marker=marker)

    if marker_down:
        # Servers of down cells follow every other: none is after it.
        records, down = [], _down_cells(context, cells)
    else:
        records, down = _merged(context, cells, filters, keys, dirs,
                                compare, limit, marker_rec, host_status,
                                detailed)
    if not down:
        return records
    for cell in down:
        LOG.warning('Cell %s did not answer within %ss when listing '
                    'servers; its servers are %s.', cell.identity,
                    CONF.api.list_cell_timeout,
                    'shown as UNKNOWN' if cell_down_support else 'left out')
    if not cell_down_support or (limit is not None and
                                 len(records) >= limit):
        return records
    if set(filters) - {'project_id', 'hidden', 'deleted'} or \
            filters.get('deleted'):
        # A down cell's servers cannot be checked against other filters.
        return records
    after = None
    if marker_down:
        after = (marker_rec['created_at'], marker_rec['uuid'])
    remaining = None if limit is None else limit - len(records)
    seen = {r['uuid'] for r in records}
    return records + [r for r in server_records.down_rows(
        context, [c.uuid for c in down],
        project_id=filters.get('project_id'), limit=remaining,
        after=after) if r['uuid'] not in seen]


def _down_cells(context, cells):
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, server_records.probe)
    return [c for c in cells
            if nova_context.is_cell_failure(results[c.uuid])]


def _merged(context, cells, filters, keys, dirs, compare, limit, marker_rec,
            host_status, detailed):
    """(records, down cells): the first limit servers after marker_rec
    of the answering cells and the build requests, merged."""
    marker_values = None if marker_rec is None else {
        k: marker_rec.get(k) for k in keys}
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout,
        server_records.page_in_cell,
        filters, keys, dirs, limit, marker_values, detailed)
    pages, down = [], []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            down.append(cell)
        else:
            pages.append(result)
    in_cells = {r['uuid'] for page in pages for r in page}
    building = [r for r in server_records.build_request_records(
                    context, filters, keys, dirs, limit, marker_rec)
                if r['uuid'] not in in_cells and (
                    marker_rec is None
                    or server_records.after(r, marker_rec, compare))]
    if host_status:
        for rec in building:
            rec['host_status'] = HOST_NONE
    key = functools.cmp_to_key(compare)
    building.sort(key=key)
    pages.append(building)
    records, seen = [], set()
    for rec in heapq.merge(*pages, key=key):
        if rec['uuid'] in seen:
            continue
        seen.add(rec['uuid'])
        records.append(rec)
        if limit is not None and len(records) >= limit:
            break
    _finish(context, cells, records, host_status, detailed)
    # A narrow row whose cell stopped answering, or whose instance went,
    # before the rest was read: not shown.
    return [r for r in records if not r.get('_narrow')], down


def _finish(context, cells, records, host_status, detailed):
    """_finish_in_cell for the records of each cell that made the page,
    in parallel (a cell that stops answering now keeps them bare)."""
    by_cell = {}
    for rec in records:
        cell = rec.pop('_cell', None)
        if cell is not None:
            if 'cell_down' not in rec and not rec.get('_narrow'):
                server_records.decoded(rec)   # as read: not yet decoded
            by_cell.setdefault(cell, []).append(rec)
    if not by_cell or not (detailed or host_status):
        return
    nova_context.scatter_gather_cells(
        context, [c for c in cells if c.uuid in by_cell],
        CONF.api.list_cell_timeout,
        lambda cctxt: server_records.finish_in_cell(
            cctxt, by_cell[cctxt.cell_uuid], host_status, detailed))


# --- one server ------------------------------------------------------------

def _mapping(context, server_id):
    # A mapping queued for delete still shows its server until the cell
    # says it is deleted (as lists do).
    mapping = server_records.mapping(context, server_id)
    if mapping is None:
        raise exception.InstanceNotFound(instance_id=server_id)
    return mapping


def _check_owner(context, rec, server_id):
    """Another project's server does not exist for a non-admin."""
    if not context.is_admin and rec.get('project_id') != context.project_id:
        raise exception.InstanceNotFound(instance_id=server_id)


def get(context, server_id, cell_down_support=False, host_status=False):
    """The ServerRecord of one server: a build request, or the instance
    in its cell. InstanceNotFound (404) if there is none, or if it belongs to
    another project and the caller is no administrator. A cell that
    does not answer: the minimal record (cell_down) with
    cell_down_support, else InstanceCellNotResponding (503)."""
    mapping = _mapping(context, server_id)
    _check_owner(context, mapping, server_id)
    if mapping['cell_uuid'] is None:
        rec = server_records.build_request_row(context, server_id)
        if rec is None:
            # Scheduled meanwhile: the mapping now names a cell.
            mapping = _mapping(context, server_id)
            if mapping['cell_uuid'] is None:
                raise exception.InstanceNotFound(instance_id=server_id)
        else:
            if host_status:
                rec['host_status'] = HOST_NONE
            return server_records.record(rec)
    cell = objects.CellMapping.get_by_uuid(context, mapping['cell_uuid'])
    result = nova_context.scatter_gather_cells(
        context, [cell], CONF.api.list_cell_timeout,
        server_records.get_in_cell, server_id, host_status)[cell.uuid]
    if isinstance(result, exception.InstanceNotFound):
        raise exception.InstanceNotFound(instance_id=server_id)
    if nova_context.is_cell_failure(result):
        LOG.warning('Cell %s did not answer for server %s.',
                    cell.identity, server_id)
        if not cell_down_support:
            raise exception.InstanceCellNotResponding(instance_id=server_id)
        return server_records.record(server_records.down_row_with_spec(
            context, server_id, mapping))
    _check_owner(context, result, server_id)
    return server_records.record(_with_security_groups(context, [result])[0])


def pinned_zones(context, server_ids):
    """{server id: its pinned availability zone or None} (2.96), read
    from the request specs in one query."""
    return server_records.pinned_zones(context, server_ids)


def request_spec_fields(context, server_ids):
    """{server id: {'pinned_availability_zone', 'scheduler_hints'}}
    (2.96, 2.100) of the servers with a request spec, in one query."""
    return server_records.request_spec_fields(context, server_ids)


def update(context, server_id, rec=None, host_status=False, **values):
    """Update a server's instance columns (display_name,
    display_description, access_ip_v4, access_ip_v6, auto_disk_config)
    wherever it is; returns its ServerRecord (with host_status if asked).
    rec: the server's record as get() (with the same host_status)
    returned it, when the caller has read it already (to check policy
    on it)."""
    if rec is None:
        rec = get(context, server_id, host_status=host_status)
    if not values:
        return rec
    if rec.build_request:
        return _update_build_request(context, server_id, values,
                                     host_status)
    mapping = _mapping(context, server_id)
    cell = objects.CellMapping.get_by_uuid(context, mapping['cell_uuid'])
    with nova_context.target_cell(context, cell) as cctxt:
        rec = server_records.update_in_cell(cctxt, server_id, values,
                                            host_status)
    return server_records.record(_with_security_groups(context, [rec])[0])


def _update_build_request(context, server_id, values, host_status):
    if server_records.update_build_request(context, server_id, values):
        return get(context, server_id, host_status=host_status)
    # Scheduled meanwhile: update it in its cell.
    return update(context, server_id, host_status=host_status, **values)
