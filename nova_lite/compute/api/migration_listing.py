"""The read side of migrations: lists across every cell and the
in-progress live migrations of one server.

Records are plain dicts (nova_lite.db.main.migrations_list.COLUMNS).
Listing rules (GET /os-migrations):

- Newest first: created_at, then id, then uuid (the tie-breaker that is
  global across cells), all descending. One sorted k-way merge
  (heapq.merge) of one page per cell, read in parallel (scatter-gather,
  ``[api] list_cell_timeout``); each cell is asked for at most
  ``limit`` rows after the marker, the merge keeps the first ``limit``
  and decodes only those.
- The marker is a migration's uuid, in whatever cell (cell0 holds no
  migrations and is never asked); its sort values bound every cell's
  page. An unknown marker is a MarkerNotFound (400), as is one whose
  cell does not answer.
- A ``hidden`` record (the other cell's copy of a cross-cell move) is
  never listed, and a record is listed once: while a move swaps which
  copy is hidden both may be visible, and only the newest is listed
  (on whatever page: a page with cross-cell records asks the cells
  for their copies, one more statement per cell). A marker is either
  copy's uuid (the same): the listed copy's sort values bound the next
  page, which leaves that uuid out.
- A cell that does not answer is left out, with a warning (as server
  lists do without down-cell support).
- Statements per request do not depend on the number of records: one
  per cell for the page (and one per cell for a marker), one in the API
  database for the cells.
"""
import heapq
import itertools
import re

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import migrations_list as cell_rows
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

LIVE_MIGRATION = cell_rows.LIVE_MIGRATION
LIVE_IN_PROGRESS = cell_rows.LIVE_IN_PROGRESS
# A migration id in a URL: what an Integer column can hold.
_ID = re.compile(r'^[0-9]{1,10}$')
_MAX_ID = 2 ** 31 - 1


def _cells(context):
    return [c for c in objects.CellMappingList.get_all(context)
            if not c.is_cell0()]


def _marker_values(context, cells, marker):
    """The sort values of the marker's record: of its listed copy when
    a cross-cell move left one in each cell (the hidden copy's only
    when that is all there is)."""
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout,
        cell_rows.marker_values, marker)
    found = [results[cell.uuid] for cell in cells
             if results[cell.uuid] is not None
             and not nova_context.is_cell_failure(results[cell.uuid])]
    if not found:
        raise exception.MarkerNotFound(marker=marker)
    listed = [values for values, hidden in found if not hidden]
    return max(listed or [values for values, _ in found],
               key=cell_rows.values_key)


def list(context, filters, limit=None, marker=None):
    """One page of migration records across every cell, newest first.

    filters: status, host (source or destination compute),
    source_compute, migration_type, instance_uuid, user_id, project_id
    (equality) and changes_since / changes_before (naive UTC datetimes
    bounding updated_at, inclusive). limit: the page size (None: no
    limit). marker: the uuid of the migration to start after
    (MarkerNotFound if no answering cell has it).
    """
    cells = _cells(context)
    after = None
    if marker is not None:
        after = _marker_values(context, cells, marker)
    if limit == 0:
        return []
    fetch = limit
    while True:
        pages = _pages(context, cells, filters, fetch, after)
        merged = heapq.merge(*pages, key=cell_rows.sort_values,
                             reverse=True)
        rows = [row for row in _unique(merged)]
        kept = _drop_shadowed(context, cells, rows, filters)
        dropped = len(rows) - len(kept)
        if (limit is None or len(kept) >= limit or not dropped
                or not any(len(p) == fetch for p in pages)):
            return [cell_rows.decode(row)
                    for row in itertools.islice(kept, limit)]
        # Copies shadowed by a newer one cost rows of the page: read on.
        fetch += dropped


def _pages(context, cells, filters, limit, after):
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, cell_rows.page,
        filters, limit, after)
    pages = []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer within %ss when listing '
                        'migrations; its migrations are left out.',
                        cell.identity, CONF.api.list_cell_timeout)
        else:
            pages.append(result)
    return pages


def _unique(rows):
    """rows without a second copy of a record (same uuid) on the page:
    the first (newest) copy is kept."""
    seen = set()
    for row in rows:
        uuid = row[cell_rows.UUID_INDEX]
        if uuid not in seen:
            seen.add(uuid)
            yield row


def _drop_shadowed(context, cells, rows, filters):
    """rows without the cross-cell move copies that a newer listed copy
    of the same record shadows, wherever that copy is (before the
    marker too): while a move swaps which copy is hidden both are
    listed for a moment, and only the newest must be, on whatever page.
    One statement per cell, only when the page has cross-cell records."""
    moving = sorted({row[cell_rows.UUID_INDEX] for row in rows
                     if row[cell_rows.CROSS_CELL_INDEX]})
    if not moving:
        return rows
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout,
        cell_rows.listed_copies, moving, filters)
    newest = {}
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            continue
        for values in result:
            key = cell_rows.values_key(values)
            newest[values[2]] = max(newest.get(values[2], key), key)
    return [row for row in rows
            if not row[cell_rows.CROSS_CELL_INDEX]
            or cell_rows.sort_values(row) >= newest.get(
                row[cell_rows.UUID_INDEX], cell_rows.sort_values(row))]


# --- one server -----------------------------------------------------------

def _server_cell(context, server_id):
    """The cell of the server (None while it is being scheduled)."""
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           server_id)
    return mapping.cell_mapping


def live_in_progress(context, server_id):
    """The in-progress live migrations of a server, oldest first (the
    caller has found it, 404 for another project's, and checked policy
    on its owner)."""
    cell = _server_cell(context, server_id)
    if cell is None:
        return []
    with nova_context.target_cell(context, cell) as cctxt:
        return cell_rows.of_instance(cctxt, server_id,
                                     migration_type=LIVE_MIGRATION,
                                     statuses=LIVE_IN_PROGRESS)


def get_live_in_progress(context, server_id, migration_id):
    """One in-progress live migration of a server, by its id (a
    string from the URL), as live_in_progress finds it. 404s:
    LiveMigrationNotFoundForInstance (no such migration of this
    server), MigrationNotLiveMigration, LiveMigrationNotInProgress."""
    cell = _server_cell(context, server_id)
    found = []
    if (cell is not None and _ID.match(migration_id)
            and int(migration_id) <= _MAX_ID):
        with nova_context.target_cell(context, cell) as cctxt:
            found = cell_rows.of_instance(cctxt, server_id,
                                          migration_id=int(migration_id))
    ids = dict(migration_id=migration_id, instance_id=server_id)
    if not found:
        raise exception.LiveMigrationNotFoundForInstance(**ids)
    migration = found[0]
    if migration['migration_type'] != LIVE_MIGRATION:
        raise exception.MigrationNotLiveMigration(**ids)
    if migration['status'] not in LIVE_IN_PROGRESS:
        raise exception.LiveMigrationNotInProgress(**ids)
    return migration
