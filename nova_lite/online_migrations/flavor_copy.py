"""Moving legacy flavors (top-level cell DB) into the API DB, set-based:
the work behind the migrate_flavors online migration and behind writes
to a legacy flavor (online_migrations.flavors).

One batch of legacy flavors moves in four steps:
  1. read (cell DB, no lock): the next N live legacy flavors by id;
  2. lock (cell DB): UPDATE them to soft-deleted in a transaction left
     open. The UPDATE must match exactly the flavors read -- else one was
     moved or destroyed since, and the batch is read again (Changed) --
     and its row locks (SQLite: the database's write lock) keep every
     other writer off them until step 4;
  3. copy (API DB, one transaction, committed at once) the flavors with
     their extra specs and projects, while the cell DB soft-deletes their
     specs and projects in the same open transaction(s) -- at the same
     time, on connections of their own;
  4. commit the cell DB: specs and projects first, then the flavors.

Nothing is deleted before its copy has committed: a crash before the API
commit changes nothing, a crash after it leaves flavors in both
databases, where readers take the API DB copy and hide the legacy row,
and the next run finishes their soft-delete. A user destroying a legacy
flavor takes the same row lock first (legacy_flavors.destroy): before step 2 it
makes step 2 fail, after it it waits for step 4 and then destroys the
API copy. Every writer locks a legacy flavor row before its specs and
projects, so these waits cannot form a cycle through our connections.

Everything here is plain SQL (db.driver_sql) run with the driver's own
parameter style; the backend-specific settings it needs (ATTACH, isolation
levels, foreign key checks, cache_spill) stay in this module and
legacy_write.
"""
import contextlib
import functools
import os

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import driver_sql
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite.online_migrations import legacy_write
from nova_lite import utils

LOG = logging.getLogger(__name__)

# Tests turn this off to run the rows path where the cross-database path
# would be chosen.
CROSS_DATABASE = True
# How many times a batch is redone after losing a race.
RACE_RETRIES = 5
ATTACH_AS = 'nl_legacy_cell'
# Rows per multi-row INSERT on PostgreSQL (at most 13 columns: far under
# its 65,535 parameters).
MULTI_ROW = 1000


def _copied_columns(table):
    """Columns copied as they are: all but id, deleted, deleted_at (and
    flavor_id, which is re-pointed at the API flavor)."""
    return [c.name for c in table.columns
            if c.name not in ('id', 'deleted', 'deleted_at', 'flavor_id')]


def _converter(columns, source, target):
    """Row -> tuple converting driver values of `source` to what
    `target`'s driver takes, or None when both are the same dialect."""
    if source.name == target.name:
        return None
    steps = []
    for column in columns:
        result = column.type.dialect_impl(source).result_processor(
            source, None)
        bind = column.type.dialect_impl(target).bind_processor(target)
        steps.append((result, bind))

    def convert(row):
        out = []
        for value, (result, bind) in zip(row, steps):
            if result:
                value = result(value)
            if bind:
                value = bind(value)
            out.append(value)
        return tuple(out)
    return convert


# --- choosing the path --------------------------------------------------

def cross_database_source():
    """('schema', cell database name) or ('attach', cell SQLite file) when
    the API DB connection can read the legacy tables; else None."""
    if not CROSS_DATABASE or not CONF.database.connection:
        return None
    api = sa.engine.make_url(CONF.api_database.connection)
    cell = sa.engine.make_url(CONF.database.connection)
    backend = api.get_backend_name()
    if backend != cell.get_backend_name():
        return None
    if backend == 'mysql':
        def server(url):
            return (url.drivername, url.host, url.port or 3306,
                    url.username, url.password,
                    sorted(url.query.items()))
        if cell.database and server(api) == server(cell):
            return ('schema', cell.database)
    elif backend == 'sqlite':
        files = [u.database for u in (api, cell)]
        if all(f and f != ':memory:' and not f.startswith('file:')
               for f in files):
            paths = [os.path.realpath(f) for f in files]
            if paths[0] != paths[1]:
                return ('attach', paths[1])
    return None


# --- step 1: read the batch ---------------------------------------------

class Batch(object):
    """Legacy flavors read in step 1: tuples of `columns` (id, flavorid,
    name first) and, on the rows path, related[name] = (columns, rows) of
    their specs and projects."""

    def __init__(self, flavors, columns, dialect):
        self.flavors = flavors
        self.columns = columns
        self.dialect = dialect
        self.related = {}

    @property
    def ids(self):
        return [f[0] for f in self.flavors]

    def __len__(self):
        return len(self.flavors)


@main_db.reader
def read_batch(lctx, after_id=None, limit=None, ids=None, rows=True):
    """The next `limit` live legacy flavors by id after after_id, or the
    live ones among the given ids (in id order): a Batch. With rows=True
    also every column of them, their specs and their projects (one query
    per table, or per IN_CHUNK ids where they are sparse)."""
    conn = lctx.session.connection()
    sql = driver_sql.Sql(conn.dialect)
    t = legacy_flavors.FLAVORS
    cols = ['id', 'flavorid', 'name']
    if rows:
        cols += [c for c in _copied_columns(t) if c not in cols]
    query = 'SELECT %s FROM %s WHERE deleted = 0 AND {ids} ORDER BY id' % (
        sql.names(cols), sql.table(t))
    if ids is not None:
        found = []
        for cond, params in sql.id_conditions('id', driver_sql.id_set(ids)):
            found += driver_sql.fetch(conn, query.replace('{ids}', cond),
                                      params)
    else:
        cond, params = '1 = 1', []
        if after_id is not None:
            cond, params = 'id > %s' % sql.mark, [after_id]
        if limit is not None:
            query += ' LIMIT %d' % int(limit)
        found = driver_sql.fetch(conn, query.replace('{ids}', cond), params)
    batch = Batch(found, cols, conn.dialect)
    if rows and batch.flavors:
        for name, table in (('specs', legacy_flavors.EXTRA_SPECS),
                            ('projects', legacy_flavors.PROJECTS)):
            related_cols = ['flavor_id'] + _copied_columns(table)
            found = []
            for cond, cond_params in sql.id_conditions(
                    'flavor_id', driver_sql.id_set(batch.ids)):
                found += driver_sql.fetch(
                    conn, 'SELECT %s FROM %s WHERE deleted = 0 AND %s' % (
                        sql.names(related_cols), sql.table(table), cond),
                    cond_params)
            batch.related[name] = (related_cols, found)
    return batch


# --- step 3: the copy into the API DB -----------------------------------

def _existing(conn, sql, column, values):
    t = api_flavors.FLAVORS
    found = set()
    for part in driver_sql.chunks(values):
        found.update(v for (v,) in driver_sql.run(
            conn, 'SELECT %s FROM %s WHERE deleted = 0 AND %s IN (%s)' % (
                sql.quote(column), sql.table(t), sql.quote(column),
                sql.marks(len(part))), part))
    return found


def decide(conn, sql, flavors):
    """(flavorids already in the API DB, moving flavors, name clashes)
    among legacy flavor tuples."""
    present = _existing(conn, sql, 'flavorid', [f[1] for f in flavors])
    candidates = [f for f in flavors if f[1] not in present]
    taken = _existing(conn, sql, 'name',
                      [f[2] for f in candidates if f[2] is not None])
    moving = [f for f in candidates if f[2] not in taken]
    clashes = [f for f in candidates if f[2] in taken]
    return present, moving, clashes


@api_db.reader
def _decide_in_api(context, flavors):
    conn = context.session.connection()
    return decide(conn, driver_sql.Sql(conn.dialect), flavors)


def insert_rows(conn, sql, batch, moving):
    """Rows path: executemany of the rows read in step 1."""
    t = api_flavors.FLAVORS
    cols = batch.columns[1:]  # all but the legacy id
    convert = _converter([legacy_flavors.FLAVORS.c[c] for c in cols],
                         batch.dialect, conn.dialect)
    _insert_many(conn, sql, t, cols, [
        convert(f[1:]) if convert else f[1:] for f in moving])
    api_id = {}
    for part in driver_sql.chunks([f[1] for f in moving]):
        api_id.update(driver_sql.run(conn, 'SELECT flavorid, id FROM %s WHERE '
                           'deleted = 0 AND flavorid IN (%s)' % (
                               sql.table(t), sql.marks(len(part))),
                           part).all())
    new_id = {f[0]: api_id[f[1]] for f in moving}
    copy_related(conn, sql, batch, new_id)


def copy_related(conn, sql, batch, new_id):
    """Rows path: specs and projects of the moved flavors, re-pointed at
    their API ids (legacy id -> API id in new_id)."""
    for name, table, legacy_table in (
            ('specs', api_flavors.EXTRA_SPECS, legacy_flavors.EXTRA_SPECS),
            ('projects', api_flavors.PROJECTS, legacy_flavors.PROJECTS)):
        cols, rows = batch.related[name]
        convert = _converter([legacy_table.c[c] for c in cols[1:]],
                             batch.dialect, conn.dialect)
        _insert_many(conn, sql, table, cols, [
            (new_id[r[0]],) + (convert(r[1:]) if convert else r[1:])
            for r in rows if r[0] in new_id])


def _insert_many(conn, sql, table, cols, values):
    """Insert live rows: one executemany (SQLite runs it in process;
    PyMySQL turns it into multi-row INSERTs, but only when VALUES holds
    nothing but placeholders); on PostgreSQL multi-row INSERTs of
    MULTI_ROW rows, as psycopg2's executemany sends one INSERT per
    row."""
    if not values:
        return
    head = 'INSERT INTO %s (%s, deleted) VALUES ' % (sql.table(table),
                                                     sql.names(cols))
    row = '(%s)' % sql.marks(len(cols) + 1)
    if conn.dialect.name != 'postgresql':
        conn.exec_driver_sql(head + row, [v + (0,) for v in values])
        return
    for part in driver_sql.chunks(values, MULTI_ROW):
        conn.exec_driver_sql(head + ', '.join([row] * len(part)),
                             tuple(x for v in part for x in v + (0,)))


def insert_select(conn, sql, legacy_ids, schema):
    """Cross-database path: INSERT ... SELECT of the live legacy flavors
    with these ids (an IdRange or a list) from the legacy tables (`schema`
    names the cell DB on the API DB's connection), with their specs and
    projects."""
    t, lt = api_flavors.FLAVORS, legacy_flavors.FLAVORS
    cols = _copied_columns(lt)
    insert = 'INSERT INTO %s (%s, deleted) SELECT %s, 0 FROM %s WHERE ' \
        'deleted = 0 AND {ids}' % (sql.table(t), sql.names(cols),
                                   sql.names(cols), sql.table(lt, schema))
    legacy_write.expect(
        driver_sql.run_by_ids(conn, sql, insert, 'id', legacy_ids),
            len(legacy_ids), 'INSERT ... SELECT of flavors')
    copy_related_select(conn, sql, legacy_ids, schema)


def copy_related_select(conn, sql, legacy_ids, schema):
    """Cross-database path: specs and projects of the moved flavors,
    joined to the API flavors through flavorid."""
    for table, legacy_table in (
            (api_flavors.EXTRA_SPECS, legacy_flavors.EXTRA_SPECS),
            (api_flavors.PROJECTS, legacy_flavors.PROJECTS)):
        cols = _copied_columns(legacy_table)
        driver_sql.run_by_ids(
            conn, sql, 'INSERT INTO %(dst)s (flavor_id, %(cols)s, deleted) '
            'SELECT f.id, %(src_cols)s, 0 FROM %(src)s r '
            'JOIN %(legacy)s it ON it.id = r.flavor_id AND it.deleted = 0 '
            'JOIN %(flavors)s f ON f.flavorid = it.flavorid '
            'AND f.deleted = 0 WHERE r.deleted = 0 AND {ids}' % {
                'dst': sql.table(table), 'cols': sql.names(cols),
                'src_cols': sql.names(cols, 'r'),
                'src': sql.table(legacy_table, schema),
                'legacy': sql.table(legacy_flavors.FLAVORS, schema),
                'flavors': sql.table(api_flavors.FLAVORS)},
            'r.flavor_id', legacy_ids)


def copy_batch(conn, batch, moving, source):
    """Insert the moving legacy flavors of batch (with their specs and
    projects) on conn, an API DB connection inside a transaction.

    Two paths, with the same decisions and transaction:
    - rows (source None): step 1 also read the specs and projects; they
      are inserted with one executemany per table (between any two
      databases);
    - cross-database (source from cross_database_source()): INSERT ...
      SELECT from the legacy tables, so no row passes through Python. Its
      reads of rows locked by step 2 are consistent reads (READ
      COMMITTED; SQLite: the committed file, as the cell's open
      transaction does not spill).
    """
    if not moving:
        return
    sql = driver_sql.Sql(conn.dialect)
    if source is None:
        insert_rows(conn, sql, batch, moving)
    else:
        schema = source[1] if source[0] == 'schema' else ATTACH_AS
        insert_select(conn, sql, driver_sql.id_set(f[0] for f in moving),
                      schema)


@contextlib.contextmanager
def _api_connection(source):
    """A connection for the copy: on SQLite with the cell file attached
    (ATTACH is refused inside a transaction, so before beginning; its
    INSERT ... SELECT joins the parent rows it points at, so foreign key
    checks are off until it is returned); elsewhere READ COMMITTED, so
    that reads of legacy rows locked in step 2 do not wait."""
    engine = api_db.get_engine()
    with engine.connect() as conn:
        if source is None or source[0] != 'attach':
            yield driver_sql.read_committed(conn)
            return
        raw = conn.connection.dbapi_connection
        raw.execute('ATTACH DATABASE ? AS %s' % ATTACH_AS, (source[1],))
        fk = raw.execute('PRAGMA foreign_keys').fetchone()[0]
        raw.execute('PRAGMA foreign_keys = OFF')
        try:
            yield conn
        finally:
            try:
                raw.execute('PRAGMA foreign_keys = %d' % fk)
                raw.execute('DETACH DATABASE %s' % ATTACH_AS)
            except Exception:
                conn.invalidate()
                raise


def _committed_copy(conn, batch, moving, source):
    """Step 3's API DB transaction: copy, commit."""
    with conn.begin():
        copy_batch(conn, batch, moving, source)


# --- one batch ----------------------------------------------------------

def _move(lctx, batch, source, moving, present):
    """Steps 2 to 4 for the moving flavors (copied) and the present ones
    (their flavorid is in the API DB already: soft-deleted only)."""
    ids = driver_sql.id_set([f[0] for f in moving] + [f[0] for f in present])
    if not ids:
        return
    with legacy_write.LegacyWrite(lctx) as legacy:
        legacy.lock(ids)
        with _api_connection(source) as api:
            utils.run_together(
                functools.partial(_committed_copy, api, batch, moving,
                                  source),
                *legacy.related_jobs(ids), native=legacy.blocking_driver)
        legacy.commit()


def move_batch(context, lctx, batch, source):
    """Move a Batch to the API DB (see the module's docstring). Returns
    (found, done): flavors left in place for a name clash are found, not
    done.

    The batch is first moved optimistically, copied without deciding
    first; when the API DB's unique (flavorid, deleted) or (name, deleted)
    constraint refuses it, or its legacy rows changed since step 1, it is
    decided flavor by flavor (decide) and moved again.
    """
    if not batch.flavors:
        return 0, 0
    moving, present, clashes = batch.flavors, [], []
    for attempt in range(RACE_RETRIES + 1):
        try:
            _move(lctx, batch, source, moving, present)
            break
        except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock,
                legacy_write.Changed) as e:
            LOG.debug('Flavor batch is not a plain copy (%s: %s); deciding '
                      'flavor by flavor', type(e).__name__, e)
            live = set(read_batch(lctx, ids=batch.ids, rows=False).ids)
            present_ids, moving, clashes = _decide_in_api(
                context, [f for f in batch.flavors if f[0] in live])
            present = [f for f in batch.flavors
                       if f[0] in live and f[1] in present_ids]
    else:
        raise RuntimeError('flavor migration lost %d races in a row'
                           % RACE_RETRIES)
    for flavor in clashes:
        LOG.warning('Legacy flavor %(flavorid)s is not migrated: its name '
                    '%(name)r is taken by a different flavor in the API '
                    'database. Rename or delete one of them, then rerun.',
                    {'flavorid': flavor[1], 'name': flavor[2]})
    return len(batch), len(batch) - len(clashes)
