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
from nova_lite.db.main import api as main_db

LOG = logging.getLogger(__name__)

DEFAULT_BATCH = 50
# How often one batch is retried when a concurrent runner wins a race.
RACE_RETRIES = 5

Migration = collections.namedtuple('Migration', 'name fn needs pending')
_REGISTRY = collections.OrderedDict()


def register(name=None, needs=None, pending=None):
    """Register fn(context, max_count) -> (found, done); registration
    order is run order. needs: {binary: minimum service version}.

    pending(context) -> int counts the rows still to move without moving
    anything (nova-lite-status reports it); it reads with plain SQL so it
    answers against a schema older than the code.
    """
    def decorator(fn):
        key = name or fn.__name__
        _REGISTRY[key] = Migration(key, fn, dict(needs or {}), pending)
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


def run_migrations(context, max_count=None, names=None, progress=False):
    """Run registered migrations in batches.

    max_count bounds the rows done in total (None: until nothing is left,
    in batches of DEFAULT_BATCH). Returns (rows, exit_code): one row
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
    batch = max_count or DEFAULT_BATCH
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
            remaining = _run_one(context, migration, row, batch, remaining,
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

def _flavor_module():
    from nova_lite.objects import flavor
    return flavor


@main_db.reader
def _read_legacy(lctx, ids=None, after_id=None, limit=None):
    """Legacy flavors (every column) with their specs and projects (every
    column), by ids or the next `limit` after after_id: three queries."""
    fl = _flavor_module()
    t = fl.LEGACY.flavors
    query = sa.select(t).where(t.c.deleted == 0)
    if ids is not None:
        query = query.where(t.c.id.in_(ids))
    if after_id is not None:
        query = query.where(t.c.id > after_id)
    query = query.order_by(t.c.id).limit(limit)
    flavors = [dict(r._mapping) for r in lctx.session.execute(query)]
    related = {}
    ids = [f['id'] for f in flavors]
    for table in (fl.LEGACY.extra_specs, fl.LEGACY.projects):
        related[table.name] = [
            dict(r._mapping) for part in fl.chunks(ids)
            for r in lctx.session.execute(sa.select(table).where(
                table.c.flavor_id.in_(part), table.c.deleted == 0))]
    return (flavors, related[fl.LEGACY.extra_specs.name],
            related[fl.LEGACY.projects.name])


def _copy_row(row, **changes):
    copied = {k: v for k, v in row.items() if k not in ('id', 'deleted_at')}
    copied['deleted'] = 0
    copied.update(changes)
    return copied


@api_db.writer
def _copy_to_api(context, flavors, specs, projects):
    """Insert the flavors not yet in the API DB (by flavorid) whose name is
    free, with their specs and projects, in one transaction.

    Returns (flavorids now in the API DB, legacy rows left for a name
    clash). Raises DBDuplicateEntry if a concurrent writer got there
    first; the transaction is then rolled back whole.
    """
    fl = _flavor_module()
    session = context.session
    t = fl.API.flavors
    present = fl.api_flavorids_present(context,
                                       [f['flavorid'] for f in flavors])
    candidates = [f for f in flavors if f['flavorid'] not in present]
    names = [f['name'] for f in candidates if f['name'] is not None]
    taken = set()
    for part in fl.chunks(names):
        taken.update(n for (n,) in session.execute(sa.select(t.c.name).where(
            t.c.name.in_(part), t.c.deleted == 0)))
    clashes = [f for f in candidates if f['name'] in taken]
    moving = [f for f in candidates if f['name'] not in taken]
    if moving:
        session.execute(t.insert(), [_copy_row(f) for f in moving])
        fids = [f['flavorid'] for f in moving]
        new_id = {}
        for part in fl.chunks(fids):
            new_id.update((fid, i) for i, fid in session.execute(
                sa.select(t.c.id, t.c.flavorid).where(
                    t.c.flavorid.in_(part), t.c.deleted == 0)))
        api_id = {f['id']: new_id[f['flavorid']] for f in moving}
        for table, rows in ((fl.API.extra_specs, specs),
                            (fl.API.projects, projects)):
            copies = [_copy_row(r, flavor_id=api_id[r['flavor_id']])
                      for r in rows if r['flavor_id'] in api_id]
            if copies:
                session.execute(table.insert(), copies)
    return present | {f['flavorid'] for f in moving}, clashes


def move_legacy_flavors(context, lctx, flavors, specs=None, projects=None):
    """Copy legacy flavors (ids, or rows from _read_legacy) to the API DB,
    then soft-delete the legacy rows that are now there. (found, done).

    Order of writes, which makes it crash-safe: (1) one API DB transaction
    inserts flavors, specs and projects together; (2) one cell DB
    transaction soft-deletes the copied legacy rows. A crash before (1)
    commits changes nothing. A crash between (1) and (2) leaves the flavor
    in both databases; readers prefer the API DB and hide legacy rows whose
    flavorid is there, and a rerun finds the flavorid present, copies
    nothing and finishes (2). Nothing is deleted before its copy is
    committed, so nothing is lost.

    Concurrency: a runner that loses an insert race on the unique
    (flavorid, deleted) or (name, deleted) constraints gets DBDuplicateEntry
    (or a deadlock on MariaDB), its transaction rolls back, and it retries
    the batch, now seeing the winner's rows as already present.
    """
    if flavors and not isinstance(flavors[0], dict):
        flavors, specs, projects = _read_legacy(lctx, ids=list(flavors))
    if not flavors:
        return 0, 0
    for attempt in range(RACE_RETRIES):
        try:
            in_api, clashes = _copy_to_api(context, flavors, specs or [],
                                           projects or [])
            break
        except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock) as e:
            LOG.debug('Flavor batch raced with another writer (%s); '
                      'retrying', type(e).__name__)
    else:
        raise RuntimeError('flavor migration lost %d races in a row'
                           % RACE_RETRIES)
    for flavor in clashes:
        LOG.warning('Legacy flavor %(flavorid)s is not migrated: its name '
                    '%(name)r is taken by a different flavor in the API '
                    'database. Rename or delete one of them, then rerun.',
                    flavor)
    _flavor_module().legacy_soft_delete(
        lctx, [f['id'] for f in flavors if f['flavorid'] in in_api])
    return len(flavors), len(flavors) - len(clashes)


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


@register(name='migrate_flavors',
          needs={'nova-lite-api': 2, 'nova-lite-conductor': 2},
          pending=_legacy_flavors_pending)
def migrate_flavors(context, max_count):
    """Copy legacy cell-DB flavors (with extra specs and projects) to the
    API DB, then soft-delete them. Returns (found, done).

    Walks the legacy table by id so that flavors left in place for a name
    clash (found, not done) never hold up the ones behind them; stops when
    max_count flavors are done or the table is exhausted. Each batch is one
    move_legacy_flavors() call (see there for crash and race safety).
    """
    lctx = _flavor_module().legacy_context(context)
    if lctx is None:
        return 0, 0
    found = done = 0
    after_id = None
    while done < max_count:
        flavors, specs, projects = _read_legacy(
            lctx, after_id=after_id, limit=max_count - done)
        if not flavors:
            break
        after_id = flavors[-1]['id']
        batch_found, batch_done = move_legacy_flavors(
            context, lctx, flavors, specs, projects)
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
@register(name='migrate_compute_node_inventories',
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
