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
  never listed.
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

from nova_lite.compute import server_actions
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
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout,
        cell_rows.marker_values, marker)
    for cell in cells:
        values = results[cell.uuid]
        if values is not None and not nova_context.is_cell_failure(values):
            return values
    raise exception.MarkerNotFound(marker=marker)


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
    merged = heapq.merge(*pages, key=cell_rows.sort_values, reverse=True)
    return [cell_rows.decode(row)
            for row in itertools.islice(merged, limit)]


# --- one server -----------------------------------------------------------

def _server_cell(context, server_id, check):
    """The cell of the server (None while it is being scheduled), once
    check(project_id) -- the caller's policy check -- allowed it;
    InstanceNotFound (404) for none, or another project's."""
    instance = server_actions.get(context, server_id)
    check(instance.project_id)
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           server_id)
    return mapping.cell_mapping


def live_in_progress(context, server_id, check):
    """The in-progress live migrations of a server, oldest first."""
    cell = _server_cell(context, server_id, check)
    if cell is None:
        return []
    with nova_context.target_cell(context, cell) as cctxt:
        return cell_rows.of_instance(cctxt, server_id,
                                     migration_type=LIVE_MIGRATION,
                                     statuses=LIVE_IN_PROGRESS)


def get_live_in_progress(context, server_id, migration_id, check):
    """One in-progress live migration of a server, by its id (a
    string from the URL). 404s: LiveMigrationNotFoundForInstance (no
    such migration of this server), MigrationNotLiveMigration,
    LiveMigrationNotInProgress."""
    cell = _server_cell(context, server_id, check)
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
