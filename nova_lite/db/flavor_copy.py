"""Set-based copy of legacy flavors (top-level cell DB) into the API DB:
the work behind the migrate_flavors online migration.

One batch is three steps (see move_batch for why this order is crash- and
race-safe):
  1. read (cell DB): the next N legacy flavors by id;
  2. copy (API DB, one transaction): decide which are not there yet (by
     flavorid) and whose name is free, insert them with their extra specs
     and projects;
  3. soft-delete (cell DB, one transaction): the legacy rows whose
     flavorid is now in the API DB.

Step 2 has two ways of moving rows; the decisions and the transaction are
the same:
- rows: step 1 also reads the specs and projects; step 2 inserts prepared
  tuples with one executemany per table (works between any two databases,
  e.g. PostgreSQL, or different servers);
- cross-database: when the API DB's connection can read the cell DB --
  MySQL/MariaDB databases on one server reached with the same credentials,
  or two SQLite files (ATTACH) -- INSERT ... SELECT straight from the
  legacy tables, so no row passes through Python.

A batch is first moved optimistically: copied whole with no deciding
SELECTs (the API DB's unique constraints refuse a flavorid already there
or a name taken, and the batch is then redone flavor by flavor), and, as
a batch read in id order is every live legacy flavor in its id range,
copied and soft-deleted with one range statement per table (IdRange),
checked by rowcount.

Everything here is plain SQL built from the table metadata and run with
the driver's own parameter style: this is the hot path of a migration
that may move millions of rows, and per-row ORM/Core processing was most
of its cost.
"""
import contextlib
import copy
import functools
import os

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import utils

LOG = logging.getLogger(__name__)

# Tests turn this off to run the rows path where the cross-database path
# would be chosen.
CROSS_DATABASE = True
# How many times step 2 is retried when a concurrent runner wins a race.
RACE_RETRIES = 5
IN_CHUNK = utils.IN_CHUNK
ATTACH_AS = 'nl_legacy_cell'


def _flavor_module():
    from nova_lite.objects import flavor
    return flavor


def _copied_columns(table):
    """Columns copied as they are: all but id, deleted, deleted_at (and
    flavor_id, which is re-pointed at the API flavor)."""
    return [c.name for c in table.columns
            if c.name not in ('id', 'deleted', 'deleted_at', 'flavor_id')]


chunks = utils.chunks


class Sql(object):
    """SQL text for one dialect: quoted names, the driver's placeholder."""

    def __init__(self, dialect, schema=None):
        self.dialect = dialect
        self.quote = dialect.identifier_preparer.quote
        self.mark = '?' if dialect.paramstyle in ('qmark', 'numeric') \
            else '%s'
        self.schema = schema

    def table(self, table, schema=None):
        name = self.quote(table.name)
        return '%s.%s' % (self.quote(schema), name) if schema else name

    def names(self, columns, alias=None):
        prefix = alias + '.' if alias else ''
        return ', '.join(prefix + self.quote(c) for c in columns)

    def marks(self, n):
        return ', '.join([self.mark] * n)

    def bind(self, type_, value):
        process = type_.dialect_impl(self.dialect).bind_processor(
            self.dialect)
        return process(value) if process else value


def _run(conn, sql, params=()):
    return conn.exec_driver_sql(sql, tuple(params))


def _fetch(conn, sql, params=()):
    """All rows as the driver's own tuples (no Row objects: the rows path
    reads tens of thousands per batch)."""
    result = _run(conn, sql, params)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


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

@main_db.reader
def read_batch(lctx, after_id=None, limit=None, ids=None, rows=True):
    """The next `limit` live legacy flavors by id after after_id (or those
    with the given ids): a Batch. With rows=True also every column of
    them, their specs and their projects (one query per table, by id
    range)."""
    fl = _flavor_module()
    conn = lctx.session.connection()
    sql = Sql(conn.dialect)
    t = fl.LEGACY.flavors
    cols = ['id', 'flavorid', 'name']
    if rows:
        cols += [c for c in _copied_columns(t) if c not in cols]
    where, params = ['deleted = 0'], []
    if ids is not None:
        if not ids:
            return Batch([], cols, conn.dialect)
        where.append('id IN (%s)' % sql.marks(len(ids)))
        params += list(ids)
    if after_id is not None:
        where.append('id > %s' % sql.mark)
        params.append(after_id)
    query = 'SELECT %s FROM %s WHERE %s ORDER BY id' % (
        sql.names(cols), sql.table(t), ' AND '.join(where))
    if limit is not None:
        query += ' LIMIT %d' % int(limit)
    batch = Batch(_fetch(conn, query, params), cols, conn.dialect,
                  contiguous=ids is None)
    if rows and batch.flavors:
        lo, hi = batch.flavors[0][0], batch.flavors[-1][0]
        wanted = set(batch.ids)
        for name, table in (('specs', fl.LEGACY.extra_specs),
                            ('projects', fl.LEGACY.projects)):
            related_cols = ['flavor_id'] + _copied_columns(table)
            found = _fetch(conn, 'SELECT %s FROM %s WHERE deleted = 0 AND '
                           'flavor_id BETWEEN %s AND %s' % (
                               sql.names(related_cols), sql.table(table),
                               sql.mark, sql.mark), (lo, hi))
            batch.related[name] = (related_cols,
                                   [r for r in found if r[0] in wanted])
    return batch


class Batch(object):
    """Legacy flavors read in step 1 (tuples; id, flavorid, name first).

    contiguous: read as "the next N live flavors by id", so they were every
    live legacy flavor with an id between the first and the last (read by
    a list of ids: not known).
    """

    def __init__(self, flavors, columns, dialect, contiguous=False):
        self.flavors = flavors
        self.columns = columns
        self.dialect = dialect
        self.contiguous = contiguous
        self.related = {}

    @property
    def ids(self):
        return [f[0] for f in self.flavors]

    def id_range(self, ids=None):
        """ids (default: all of the batch) as an IdRange over the batch's
        span when the batch is contiguous, else as a plain list."""
        ids = self.ids if ids is None else list(ids)
        if not (self.contiguous and ids):
            return ids
        keep = set(ids)
        excluded = [i for i in self.ids if i not in keep]
        if len(excluded) > IN_CHUNK:
            return ids
        return IdRange(ids, self.flavors[0][0], self.flavors[-1][0],
                       excluded)

    def __len__(self):
        return len(self.flavors)


class IdRange(list):
    """Legacy flavor ids that were, when read, every live legacy flavor with
    lo <= id <= hi except those in `excluded` (a few).

    Statements on such ids use one range predicate per table (the shape of
    a plain SQL bulk copy) instead of IN lists of IN_CHUNK ids. A live row
    in the range that was not read cannot appear later: ids only grow and
    soft-deleted rows never come back to life. Rows in the range may
    however have been soft-deleted since by a concurrent runner, so every
    range statement on the flavors table checks that it touched exactly
    len(ids) rows, and its transaction is rolled back and redone by id
    lists (a plain list) if not: RangeMismatch.
    """

    def __init__(self, ids, lo, hi, excluded=()):
        super(IdRange, self).__init__(ids)
        self.lo, self.hi = lo, hi
        self.excluded = list(excluded)

    def where(self, sql, column):
        """(SQL condition, params) selecting the range on column."""
        cond = '%s BETWEEN %s AND %s' % (column, sql.mark, sql.mark)
        params = [self.lo, self.hi]
        if self.excluded:
            cond += ' AND %s NOT IN (%s)' % (column,
                                             sql.marks(len(self.excluded)))
            params += self.excluded
        return cond, params


class RangeMismatch(Exception):
    """A range statement touched other rows than its IdRange's ids."""


def _check_range(ids, rowcount, what):
    if rowcount != len(ids):
        raise RangeMismatch('%s matched %d rows for %d flavors' % (
            what, rowcount, len(ids)))


# --- step 2: copy into the API DB ---------------------------------------

def _existing(conn, sql, column, values):
    t = _flavor_module().API.flavors
    found = set()
    for part in chunks(values):
        found.update(v for (v,) in _run(
            conn, 'SELECT %s FROM %s WHERE deleted = 0 AND %s IN (%s)' % (
                sql.quote(column), sql.table(t), sql.quote(column),
                sql.marks(len(part))), part))
    return found


def decide(conn, sql, batch):
    """(flavorids already in the API DB, moving flavors, name clashes)."""
    present = _existing(conn, sql, 'flavorid', [f[1] for f in batch.flavors])
    candidates = [f for f in batch.flavors if f[1] not in present]
    taken = _existing(conn, sql, 'name',
                      [f[2] for f in candidates if f[2] is not None])
    moving = [f for f in candidates if f[2] not in taken]
    clashes = [f for f in candidates if f[2] in taken]
    return present, moving, clashes


def insert_rows(conn, sql, batch, moving):
    """Rows path: executemany of the rows read in step 1."""
    fl = _flavor_module()
    t = fl.API.flavors
    cols = batch.columns[1:]  # all but the legacy id
    convert = _converter([fl.LEGACY.flavors.c[c] for c in cols],
                         batch.dialect, conn.dialect)
    _insert_many(conn, sql, t, cols, [
        convert(f[1:]) if convert else f[1:] for f in moving])
    api_id = {}
    for part in chunks([f[1] for f in moving]):
        api_id.update(_run(conn, 'SELECT flavorid, id FROM %s WHERE '
                           'deleted = 0 AND flavorid IN (%s)' % (
                               sql.table(t), sql.marks(len(part))),
                           part).all())
    new_id = {f[0]: api_id[f[1]] for f in moving}
    copy_related(conn, sql, batch, new_id)


def copy_related(conn, sql, batch, new_id):
    """Rows path: specs and projects of the moved flavors, re-pointed at
    their API ids (legacy id -> API id in new_id)."""
    fl = _flavor_module()
    for name, table in (('specs', fl.API.extra_specs),
                        ('projects', fl.API.projects)):
        cols, rows = batch.related[name]
        legacy_table = (fl.LEGACY.extra_specs if name == 'specs'
                        else fl.LEGACY.projects)
        convert = _converter([legacy_table.c[c] for c in cols[1:]],
                             batch.dialect, conn.dialect)
        if convert:
            values = [(new_id[r[0]],) + convert(r[1:]) for r in rows
                      if r[0] in new_id]
        else:
            values = [(new_id[r[0]],) + r[1:] for r in rows
                      if r[0] in new_id]
        _insert_many(conn, sql, table, cols, values)


def _insert_many(conn, sql, table, cols, values):
    """One executemany of live rows. Every value is a parameter: PyMySQL
    turns an executemany into multi-row INSERTs only when VALUES holds
    nothing but placeholders (else it sends one INSERT per row)."""
    if values:
        conn.exec_driver_sql('INSERT INTO %s (%s, deleted) VALUES (%s)' % (
            sql.table(table), sql.names(cols), sql.marks(len(cols) + 1)),
            [v + (0,) for v in values])


def insert_select(conn, sql, legacy_ids, schema):
    """Cross-database path: INSERT ... SELECT from the legacy tables
    (`schema` names the cell DB on the API DB's connection) of the live
    legacy flavors with these ids (an IdRange: one statement per table)."""
    fl = _flavor_module()
    t, lt = fl.API.flavors, fl.LEGACY.flavors
    cols = _copied_columns(lt)
    insert = 'INSERT INTO %s (%s, deleted) SELECT %s, 0 FROM %s ' \
        'WHERE deleted = 0 AND ' % (sql.table(t), sql.names(cols),
                                    sql.names(cols), sql.table(lt, schema))
    if isinstance(legacy_ids, IdRange):
        cond, params = legacy_ids.where(sql, 'id')
        _check_range(legacy_ids, _run(conn, insert + cond, params).rowcount,
                     'INSERT ... SELECT of legacy flavors')
    else:
        for part in chunks(legacy_ids):
            _run(conn, insert + 'id IN (%s)' % sql.marks(len(part)), part)
    copy_related_select(conn, sql, legacy_ids, schema)


def copy_related_select(conn, sql, legacy_ids, schema):
    """Cross-database path: specs and projects of the moved flavors,
    joined to the API flavors through flavorid (legacy_ids: a list, or an
    IdRange whose flavors were all just copied)."""
    fl = _flavor_module()
    if isinstance(legacy_ids, IdRange):
        cond, params = legacy_ids.where(sql, 'r.flavor_id')
        parts = [(cond, params)]
    else:
        parts = [('r.flavor_id IN (%s)' % sql.marks(len(part)), part)
                 for part in chunks(legacy_ids)]
    for table, legacy_table in ((fl.API.extra_specs, fl.LEGACY.extra_specs),
                                (fl.API.projects, fl.LEGACY.projects)):
        cols = _copied_columns(legacy_table)
        for cond, params in parts:
            _run(conn, 'INSERT INTO %(dst)s (flavor_id, %(cols)s, deleted) '
                 'SELECT f.id, %(src_cols)s, 0 FROM %(src)s r '
                 'JOIN %(legacy)s it ON it.id = r.flavor_id '
                 'AND it.deleted = 0 '
                 'JOIN %(flavors)s f ON f.flavorid = it.flavorid '
                 'AND f.deleted = 0 '
                 'WHERE r.deleted = 0 AND %(cond)s' % {
                     'dst': sql.table(table), 'cols': sql.names(cols),
                     'src_cols': sql.names(cols, 'r'),
                     'src': sql.table(legacy_table, schema),
                     'legacy': sql.table(fl.LEGACY.flavors, schema),
                     'flavors': sql.table(fl.API.flavors),
                     'cond': cond}, params)


def copy_batch(conn, batch, source, optimistic=False):
    """Step 2 on conn (inside one API DB transaction). Returns (flavorids
    now in the API DB, legacy flavors left for a name clash).

    optimistic: copy the whole batch without deciding first. The unique
    (flavorid, deleted) and (name, deleted) constraints of the API tables
    are the decision -- a flavorid already there or a name taken raises
    DBDuplicateEntry exactly where decide() would have left the flavor
    out -- and the caller redoes the batch with optimistic=False then.
    This is the common case (nothing copied yet, no clash) at the cost of
    a plain bulk copy: no SELECTs to decide, and with the cross-database
    path one statement per table.
    """
    sql = Sql(conn.dialect)
    schema = None
    if source is not None:
        schema = source[1] if source[0] == 'schema' else ATTACH_AS
    if optimistic:
        present, moving, clashes = set(), batch.flavors, []
    else:
        present, moving, clashes = decide(conn, sql, batch)
    if moving:
        if source is None:
            insert_rows(conn, sql, batch, moving)
        elif optimistic:
            insert_select(conn, sql, batch.id_range(), schema)
        else:
            insert_select(conn, sql, [f[0] for f in moving], schema)
    return present | {f[1] for f in moving}, clashes


@api_db.writer
def _copy_in_session(context, batch, source, optimistic):
    return copy_batch(context.session.connection(), batch, source,
                      optimistic)


@contextlib.contextmanager
def _attached(path):
    """An API DB connection with the cell SQLite file attached.

    ATTACH is refused inside a transaction, and oslo.db's sessions begin
    one at once, so this takes a connection of the API engine (same
    events: foreign keys, BEGIN handling), attaches before beginning and
    detaches after the transaction ended.
    """
    with api_db.get_engine().connect() as conn:
        raw = conn.connection.dbapi_connection
        raw.execute('ATTACH DATABASE ? AS %s' % ATTACH_AS, (path,))
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


def _copy_attached(batch, source, optimistic):
    with _attached(source[1]) as conn:
        with conn.begin():
            return copy_batch(conn, batch, source, optimistic)


def copy_to_api(context, batch, source):
    """Step 2 with retries. It first copies the whole batch optimistically
    (copy_batch); a flavorid already there or a name taken makes that
    roll back (DBDuplicateEntry, or RangeMismatch if the legacy rows
    changed since step 1) and the batch is decided flavor by flavor.
    A runner that loses an insert race on the unique (flavorid, deleted)
    or (name, deleted) constraints gets DBDuplicateEntry (or a deadlock on
    MariaDB); its transaction rolls back whole and the batch is decided
    again, now seeing the winner's rows as present."""
    optimistic = True
    for attempt in range(RACE_RETRIES + 1):
        try:
            if source is not None and source[0] == 'attach':
                return _copy_attached(batch, source, optimistic)
            return _copy_in_session(context, batch, source, optimistic)
        except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock,
                RangeMismatch) as e:
            if optimistic:
                LOG.debug('Flavor batch is not a plain copy (%s); deciding '
                          'flavor by flavor', type(e).__name__)
                optimistic = False
            else:
                LOG.debug('Flavor batch raced with another writer (%s); '
                          'retrying', type(e).__name__)
    raise RuntimeError('flavor migration lost %d races in a row'
                       % RACE_RETRIES)


# --- step 3: soft-delete in the cell DB ---------------------------------

def _soft_delete_rows(conn, table, ids, now):
    """UPDATE table's live rows of the legacy flavors ids (the flavors
    themselves, or the specs or projects of those still live) to
    soft-deleted. Returns the rows changed."""
    fl = _flavor_module()
    sql = Sql(conn.dialect)
    t = fl.LEGACY.flavors
    update = 'UPDATE %s SET deleted = id, deleted_at = %s WHERE deleted = 0 ' \
        'AND ' % (sql.table(table), sql.mark)
    if isinstance(ids, IdRange):
        live, live_params = ids.where(sql, 'id')
        if table is t:
            return _run(conn, update + live, [now] + live_params).rowcount
        # Specs and projects of the live flavors in the range only (not
        # those of a flavor soft-deleted before, whatever their state).
        cond, params = ids.where(sql, 'flavor_id')
        return _run(conn, update + '%s AND flavor_id IN (SELECT id FROM %s '
                    'WHERE deleted = 0 AND %s)' % (cond, sql.table(t), live),
                    [now] + params + live_params).rowcount
    column = 'id' if table is t else 'flavor_id'
    count = 0
    for part in chunks(ids):
        count += _run(conn, update + '%s IN (%s)' % (
            column, sql.marks(len(part))), [now] + part).rowcount
    return count


def _soft_delete_flavors(conn, ids, now):
    count = _soft_delete_rows(conn, _flavor_module().LEGACY.flavors, ids,
                              now)
    if isinstance(ids, IdRange):
        _check_range(ids, count, 'soft-delete of legacy flavors')
    return count


@main_db.writer
def _soft_delete_in_one(lctx, ids, now):
    conn = lctx.session.connection()
    fl = _flavor_module()
    for related in (fl.LEGACY.extra_specs, fl.LEGACY.projects):
        _soft_delete_rows(conn, related, ids, now)
    return _soft_delete_flavors(conn, ids, now)


@main_db.writer
def _soft_delete_related(lctx, table, ids, now):
    _soft_delete_rows(lctx.session.connection(), table, ids, now)


@main_db.writer
def _soft_delete_flavors_only(lctx, ids, now):
    return _soft_delete_flavors(lctx.session.connection(), ids, now)


def soft_delete(lctx, ids, moved=True):
    """Soft-delete legacy flavors (by id) with their specs and projects.
    Returns flavors deleted. moved: the flavors' flavorids are in the API
    DB now (the migration); False for a legacy flavor being destroyed.

    ids: a list (one UPDATE per table per IN_CHUNK ids) or an IdRange (one
    UPDATE per table; raises RangeMismatch, rolling back the flavors'
    UPDATE, if it matched other than len(ids) rows: redo with list(ids)).

    On SQLite (one writer at a time), and for flavors not moved, the
    three UPDATEs are one transaction. Moved flavors on backends that
    lock rows (MariaDB, PostgreSQL): the specs' and the projects' UPDATEs
    run at once on two connections, each its own transaction, and the
    flavors' UPDATE follows once both have committed. The work is nearly
    all in the database server, so this takes about the time of the
    larger one (~0.7x of running them in turn on MariaDB, 10,000 flavors
    x 5 specs x 3 projects). Specs and projects always go before their
    flavor, so a crash in between leaves the moved flavor live in the
    legacy tables with its flavorid in the API DB: hidden from readers
    (the API DB copy wins) and soft-deleted by the next run, which finds
    its specs and projects already done. Nothing reads them meanwhile:
    legacy specs and projects are only ever read through a live legacy
    flavor whose flavorid is not in the API DB.
    """
    fl = _flavor_module()
    engine = main_db.get_engine(lctx)
    now = Sql(engine.dialect).bind(fl.LEGACY.flavors.c.deleted_at.type,
                                   timeutils.utcnow())
    if not moved or engine.dialect.name == 'sqlite':
        return _soft_delete_in_one(lctx, ids, now)
    utils.run_together(*[
        functools.partial(_soft_delete_related, copy.copy(lctx), table, ids,
                          now)
        for table in (fl.LEGACY.extra_specs, fl.LEGACY.projects)])
    return _soft_delete_flavors_only(lctx, ids, now)


def soft_delete_with_retries(lctx, ids):
    for attempt in range(RACE_RETRIES):
        try:
            return _flavor_module().legacy_soft_delete(lctx, ids)
        except RangeMismatch as e:
            LOG.debug('Legacy flavors changed since read (%s); '
                      'soft-deleting by id', e)
            ids = list(ids)
        except db_exc.DBDeadlock:
            LOG.debug('Legacy flavor soft-delete deadlocked; retrying')
    raise RuntimeError('legacy flavor soft-delete deadlocked %d times in '
                       'a row' % RACE_RETRIES)


# --- one batch ----------------------------------------------------------

def move_batch(context, lctx, batch, source):
    """Copy a Batch to the API DB, then soft-delete the legacy rows that
    are now there. Returns (found, done).

    Order of writes -- the API DB and the cell DB are different databases,
    so there is no transaction over both:
      (1) one API DB transaction inserts the flavors with their specs and
          projects (all or nothing);
      (2) then one cell DB transaction soft-deletes the copied legacy
          flavors with their specs and projects.
    A crash before (1) commits changes nothing. A crash between (1) and
    (2) leaves the flavor in both databases; readers prefer the API DB and
    hide legacy rows whose flavorid is there, and a rerun finds the
    flavorid present, copies nothing and finishes (2). Nothing is deleted
    before its copy is committed, so nothing is lost. A legacy flavor
    whose flavorid is already in the API DB is never copied over it (the
    API DB wins) and is soft-deleted.
    """
    if not batch.flavors:
        return 0, 0
    in_api, clashes = copy_to_api(context, batch, source)
    for flavor in clashes:
        LOG.warning('Legacy flavor %(flavorid)s is not migrated: its name '
                    '%(name)r is taken by a different flavor in the API '
                    'database. Rename or delete one of them, then rerun.',
                    {'flavorid': flavor[1], 'name': flavor[2]})
    soft_delete_with_retries(
        lctx, batch.id_range([f[0] for f in batch.flavors
                              if f[1] in in_api]))
    return len(batch), len(batch) - len(clashes)
