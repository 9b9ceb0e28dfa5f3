"""Online data migrations: a registry of (context, max_count) -> (found,
done) functions and the runner behind `nova-lite-manage db
online_data_migrations`.

A migration moves at most max_count rows per call, is idempotent, safe to
run concurrently with itself and crash-safe; a row it cannot move is
counted in found but not in done, and logged with the reason.
"""
import collections

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db import flavor_copy
from nova_lite.db.main import api as main_db

LOG = logging.getLogger(__name__)

# Rows per call when no count is given, for migrations that do not name
# their own batch size.
DEFAULT_BATCH = 50
# migrate_flavors moves set-based: a batch is a fixed number of statements
# (one per table to lock, copy and soft-delete) and two commits (API DB,
# then cell DB) whatever its size, so the batch size is set by how long
# its transactions hold the legacy rows locked (a user destroying one of
# them waits that long). 10,000 flavors with 5 specs and 3 projects each
# (80,000 related rows) take ~1 s on MariaDB and ~0.2 s on SQLite
# (tools/bench/flavor_migration.py); smaller batches only add commits,
# which on SQLite fsync two files each.
FLAVOR_BATCH = 10000

# migrate_compute_node_inventories moves a batch with a fixed number of
# statements and four commits (5,000 nodes in 2 cells,
# tools/bench/inventory_migration.py on SQLite: batches of 50 take ~7x a
# raw SQL copy, batches of 1,000 under 2x); 1,000 nodes are one short
# transaction per database.
COMPUTE_NODE_BATCH = 1000

Migration = collections.namedtuple('Migration', 'name fn needs batch pending')
_REGISTRY = collections.OrderedDict()


def register(name=None, needs=None, batch=None, pending=None):
    """Register fn(context, max_count) -> (found, done); registration
    order is run order. needs: {binary: minimum service version}; batch:
    rows per call when the runner is given no count (None: DEFAULT_BATCH).

    pending(context) -> int counts the rows still to move without moving
    anything (nova-lite-status reports it); it reads with plain SQL so it
    answers against a schema older than the code.
    """
    def decorator(fn):
        key = name or fn.__name__
        _REGISTRY[key] = Migration(key, fn, dict(needs or {}), batch,
                                   pending)
        return fn
    return decorator


def migrations():
    return list(_REGISTRY.values())


def blocked_by(context, needs):
    """What a migration still waits for, or None when it may run.

    needs is {binary: minimum service version}; see
    objects.service.unmet_needs (an unreachable cell blocks too; a binary
    with no service recorded does not).
    """
    if not needs:
        return None
    from nova_lite.objects import service
    return service.unmet_needs(context, needs)


def run_migrations(context, max_count=None, names=None, progress=False,
                   batch=None):
    """Run registered migrations in batches.

    max_count bounds the rows done in total (None: until nothing is left,
    in batches of `batch`, else of each migration's own batch size, else
    of DEFAULT_BATCH; with max_count, batches of max_count). Returns
    (rows, exit_code): one row
    {'name', 'found', 'done', 'blocked', 'error'} per migration; exit code
    0 nothing (more) can be done, 1 more to do (count reached, or a
    migration is blocked on service versions), 2 a migration raised (the
    others still ran). found = rows done + rows left that the last batch
    could not move.
    """
    selected = [m for m in migrations() if names is None or m.name in names]
    unknown = set(names or ()) - {m.name for m in selected}
    if unknown:
        raise ValueError('unknown migrations: %s' % ', '.join(sorted(unknown)))
    remaining = max_count
    rows = []
    bar = _progress_bar(progress, max_count)
    try:
        for migration in selected:
            row = {'name': migration.name, 'found': 0, 'done': 0,
                   'blocked': None, 'error': None}
            rows.append(row)
            if remaining == 0:
                continue
            try:
                row['blocked'] = blocked_by(context, migration.needs)
            except Exception as e:
                # E.g. a cell that does not answer: not provably upgraded.
                row['blocked'] = 'service versions unknown (%s)' % e
            if row['blocked']:
                LOG.info('Migration %s waits for %s', migration.name,
                         row['blocked'])
                continue
            size = (max_count or batch or migration.batch or
                    DEFAULT_BATCH)
            remaining = _run_one(context, migration, row, size, remaining,
                                 bar)
    finally:
        bar.close()
    if any(r['error'] for r in rows):
        code = 2
    elif remaining == 0 or any(r['blocked'] for r in rows):
        code = 1
    else:
        code = 0
    return rows, code


def _run_one(context, migration, row, batch, remaining, bar):
    stuck = 0
    while remaining is None or remaining > 0:
        count = batch if remaining is None else min(batch, remaining)
        try:
            found, done = migration.fn(context, count)
        except Exception as e:
            LOG.exception('Migration %s failed', migration.name)
            row['error'] = '%s: %s' % (type(e).__name__, e)
            break
        row['done'] += done
        stuck = found - done
        bar.update(done)
        if remaining is not None:
            remaining -= done
        if not found or not done:
            break
    row['found'] = row['done'] + stuck
    return remaining


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress_bar(progress, total):
    if not progress:
        return _NoBar()
    import tqdm
    return tqdm.tqdm(total=total, unit='rows', desc='online migrations')


# --- flavors ------------------------------------------------------------

def move_legacy_flavors(context, lctx, ids):
    """Move the legacy flavors with these ids to the API DB (see
    flavor_copy's docstring). Returns (found, done)."""
    source = flavor_copy.cross_database_source()
    batch = flavor_copy.read_batch(lctx, ids=list(ids), rows=source is None)
    return flavor_copy.move_batch(context, lctx, batch, source)


# Old (v1) APIs and conductors read flavors only from the legacy tables:
# move them once every one of those runs code that reads the API DB.
def _count_rows(context, *queries):
    """The count of the first of these plain-SQL queries that the cell
    database's schema can answer (pending counters run against schemas
    older than the code); None if none can."""
    for query in queries:
        with main_db.get_context_manager(context).reader.connection.using(
                context) as conn:
            try:
                return conn.execute(sa.text(query)).scalar()
            except db_exc.DBError:
                continue
    return None


def _legacy_flavors_pending(context):
    """Legacy flavors still read from the top-level cell database."""
    # A schema from before the legacy tables: nothing.
    return _count_rows(
        context, 'SELECT count(*) FROM instance_types WHERE deleted = 0') or 0


@register(name='migrate_flavors', batch=FLAVOR_BATCH,
          needs={'nova-lite-api': 2, 'nova-lite-conductor': 2},
          pending=_legacy_flavors_pending)
def migrate_flavors(context, max_count):
    """Copy legacy cell-DB flavors (with extra specs and projects) to the
    API DB, then soft-delete them. Returns (found, done).

    Walks the legacy table by id so that flavors left in place for a name
    clash (found, not done) never hold up the ones behind them; stops when
    max_count flavors are done or the table is exhausted. Each batch is one
    flavor_copy.move_batch() (see there for crash and race safety).
    """
    from nova_lite.objects import flavor
    lctx = flavor.legacy_context(context)
    if lctx is None:
        return 0, 0
    source = flavor_copy.cross_database_source()
    found = done = 0
    after_id = None
    while done < max_count:
        batch = flavor_copy.read_batch(lctx, after_id=after_id,
                                       limit=max_count - done,
                                       rows=source is None)
        if not batch.flavors:
            break
        after_id = batch.ids[-1]
        batch_found, batch_done = flavor_copy.move_batch(context, lctx,
                                                         batch, source)
        found += batch_found
        done += batch_done
    return found, done


# --- compute-node capacity -> resource-provider inventories ----------------

def _compute_nodes_pending(context):
    """Compute nodes of every reachable cell not flagged migrated (of the
    [database] cell alone in a process without the API database)."""
    from nova_lite.conf import CONF
    from nova_lite import context as nova_context
    from nova_lite.objects import cell_mapping
    if not api_db.available():
        return _count_unmigrated_nodes(context) \
            if CONF.database.connection else 0
    count = 0
    for cell in cell_mapping.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                count += _count_unmigrated_nodes(cctxt)
            except Exception:
                LOG.warning('Cannot count compute nodes to migrate in cell '
                            '%s', cell.identity)
    return count


def _count_unmigrated_nodes(cctxt):
    # Before inventory_migrated exists no node has moved yet; before
    # compute_nodes exists there is none.
    return _count_rows(
        cctxt,
        'SELECT count(*) FROM compute_nodes WHERE deleted = 0 AND (uuid IS '
        'NULL OR inventory_migrated IS NULL OR NOT inventory_migrated)',
        'SELECT count(*) FROM compute_nodes WHERE deleted = 0') or 0


# APIs and conductors older than 3 read capacity from the compute_nodes
# columns only: move it once every one of them (in every cell) reads the
# inventories.
@register(name='migrate_compute_node_inventories', batch=COMPUTE_NODE_BATCH,
          needs={'nova-lite-api': 3, 'nova-lite-conductor': 3},
          pending=_compute_nodes_pending)
def migrate_compute_node_inventories(context, max_count):
    """Give every compute node without one a resource provider with its
    inventories and host usage (ComputeNode._migrate_inventory: uuid in the
    cell DB, then provider + inventories + usage in one API DB transaction,
    then the cell's inventory_migrated hint). Returns (found, done).

    Walks the cells in turn and each cell's unflagged nodes by id, in bulk
    (one cell query, one uuid UPDATE, one API DB transaction and one flag
    UPDATE per batch), until max_count nodes are done. Idempotent and safe
    next to itself and to loaders migrating the same nodes: providers that
    exist are never recreated. A node whose columns make no valid
    inventory is found, not done, and logged.
    """
    from nova_lite import context as nova_context
    from nova_lite.objects import cell_mapping
    from nova_lite.objects import compute_node
    found = done = 0
    for cell in cell_mapping.CellMappingList.get_all(context):
        if cell.is_cell0() or done >= max_count:
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            cell_found, cell_done = compute_node.migrate_pending(
                cctxt, max_count - done)
        found += cell_found
        done += cell_done
    return found, done
