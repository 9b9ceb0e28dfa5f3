"""SQLite files shared by the green threads of one process (the
all-in-one, the functional tests), without "database is locked".

sqlite3 waits for another connection's write lock in C, which under
eventlet stops every green thread, the lock's holder among them. So here
a file's write transactions take turns on a lock of this process first,
and no connection ever waits in C (busy timeout 0):

- An enginefacade context manager on a SQLite file gets two engines on
  it (configure): the writer's, where every transaction (enginefacade
  writer, get_engine()) takes the file's turn (a lock of this process),
  then SQLite's write lock at once (BEGIN IMMEDIATE), and hands the turn
  on after its COMMIT, ROLLBACK or close; and the reader's (enginefacade
  reader), which takes no turn and refuses to write (query_only).
- The file is in WAL journal mode: readers see the last commit and never
  wait for the writer, nor it for them.
- synchronous=NORMAL: under WAL a commit is durable against a crash of
  the process (the WAL is written before COMMIT returns; the OS keeps
  it); an OS crash or power loss may lose the last commits, never the
  file's consistency. Checkpoints still sync.
- A write lock held by another process (nova-lite-manage on the same
  files) is waited for by retrying BEGIN IMMEDIATE with cooperative
  sleeps. Either wait gives up after LOCK_TIMEOUT seconds with
  "database is locked"; a thread that already writes to the file on
  another connection is refused at once (it would wait for itself).
- A connection with other files ATTACHed begins deferred (IMMEDIATE
  would take their write locks too): it holds its own file's turn and
  writes only to it.
- BEGIN is issued by green threads (or, without eventlet, by any thread):
  helper threads of the OS only run statements on connections their
  caller began (utils.run_together(native=True)).
- oslo.db gives SQLite files no pool (NullPool: a new connection, set up
  by every "connect" listener, for each transaction; and the last
  connection to a WAL file to close checkpoints it and deletes the WAL).
  Each engine here keeps up to IDLE_MAX of its connections open between
  transactions (a KeepingNullPool): a connection is set up once. One that
  ends dirty -- in a transaction, with a file attached, or with a
  setting changed by a PRAGMA since it was set up -- is closed.

Library internals are relied on, for speed only, through
nova_lite._compat: oslo.db's SQLite "begin" listener skips its own BEGIN
when told the transaction was begun, and ours must run before it
(SQLAlchemy ignores insert=True for engine events, so the listeners are
re-registered) (_begin, oslo_db); and SQLAlchemy's pool internals
(KeepingNullPool, sqlalchemy). See doc/private-apis.rst.
"""
import functools
import os
import sqlite3
import threading
import time

import sqlalchemy as sa

from nova_lite._compat import oslo_db as oslo_db_compat
from nova_lite._compat import sqlalchemy as sqlalchemy_compat

# Seconds a write transaction waits for its turn before failing.
LOCK_TIMEOUT = 30.0
_RETRY_SLEEP_MAX = 0.05
# Connections an engine keeps open between transactions.
IDLE_MAX = 4

# realpath -> _FileLock; engines on one file share its lock.
_locks = {}


def file_path(url):
    """The real path of a SQLite file URL; None for other databases and
    in-memory or URI SQLite databases."""
    url = sa.engine.make_url(url)
    if url.get_backend_name() != 'sqlite':
        return None
    name = url.database
    if not name or name == ':memory:' or name.startswith('file:'):
        return None
    return os.path.realpath(name)


def configure(manager, options):
    """manager.configure(**options), and on a SQLite file what the
    module's docstring says: a reader engine of its own (slave_connection
    on the same file, used by readers: synchronous_reader=False), both
    engines set up as they are created."""
    path = file_path(options['connection'])
    if path is None:
        manager.configure(**options)
        return
    manager.configure(**dict(options, slave_connection=options['connection'],
                             synchronous_reader=False))
    manager.append_on_engine_create(
        functools.partial(_set_up, manager, path))


def _set_up(manager, path, engine):
    lock = _locks.setdefault(path, _FileLock(path))
    role = []

    def connection_class():
        # Known once the manager has started: the writer engine is the
        # one manager.writer uses.
        if not role:
            role.append(WriterConnection
                        if manager.writer.get_engine() is engine
                        else ReaderConnection)
        return role[0]

    @sa.event.listens_for(engine, 'do_connect')
    def do_connect(dialect, conn_rec, cargs, cparams):
        cparams['factory'] = connection_class()
        cparams['timeout'] = 0

    @sa.event.listens_for(engine, 'connect')
    def connect(dbapi_conn, conn_rec):
        # Registered after SQLAlchemy's and oslo.db's own: the last.
        dbapi_conn.set_up(lock)

    _listen_first(engine, 'begin', _begin)
    # Connections made before these listeners (oslo.db's test connection)
    # are not kept: dispose() closes them and builds the pool anew (of
    # the same class).
    engine.pool = sqlalchemy_compat.KeepingNullPool.replacing(
        engine.pool, _clean, IDLE_MAX)
    engine.dispose()
    _use_wal(path)


def _clean(dbapi_conn):
    """Whether a returned connection may be kept open for the next
    checkout (KeepingNullPool)."""
    return dbapi_conn.clean()


def _begin(conn):
    """Begin on the driver's connection when its turn is free now, and
    tell oslo.db's own listener so (its marker, oslo_db_compat): it
    would send BEGIN through the whole statement machinery. Otherwise
    its BEGIN comes, and waits, through the cursor (errors then reach
    oslo.db's exception translation)."""
    if (not oslo_db_compat.begun(conn)
            and conn.connection.driver_connection.try_begin()):
        oslo_db_compat.mark_begun(conn)


def _listen_first(engine, name, fn):
    # listen(insert=True) is ignored for engine events: take the other
    # listeners off and put them back after fn.
    others = list(getattr(engine.dispatch, name))
    for other in others:
        sa.event.remove(engine, name, other)
    sa.event.listen(engine, name, fn)
    for other in others:
        sa.event.listen(engine, name, other)


def _use_wal(path):
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        _retry_busy(lambda: conn.execute('PRAGMA journal_mode = WAL'),
                    time.monotonic() + LOCK_TIMEOUT)
    finally:
        conn.close()


def _is_busy(exc):
    return 'database is locked' in str(exc) or 'database is busy' in str(exc)


def _retry_busy(fn, deadline):
    """fn() until SQLite stops answering busy (another process holds the
    lock), sleeping cooperatively between tries, until deadline."""
    delay = 0.001
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, _RETRY_SLEEP_MAX)


class _FileLock(object):
    """One file's write turn in this process: green under eventlet."""

    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self.owner = None

    def acquire(self, deadline):
        me = threading.get_ident()
        if self.owner == me:
            raise sqlite3.OperationalError(
                'database is locked: this thread already has a write '
                'transaction open on %s on another connection' % self.path)
        if not self._lock.acquire(
                timeout=max(0.0, deadline - time.monotonic())):
            raise sqlite3.OperationalError(
                'database is locked: no write turn on %s within %.0f s'
                % (self.path, LOCK_TIMEOUT))
        self.owner = me

    def try_acquire(self):
        """Take the turn if it is free now."""
        me = threading.get_ident()
        if self.owner == me or not self._lock.acquire(blocking=False):
            return False
        self.owner = me
        return True

    def release(self):
        self.owner = None
        self._lock.release()


def _is_begin(sql):
    return sql.lstrip()[:5].upper() == 'BEGIN'


class _Cursor(sqlite3.Cursor):
    def execute(self, sql, parameters=()):
        if _is_begin(sql):
            self.connection.begin(super().execute)
            return self
        result = super().execute(sql, parameters)
        verb = sql.lstrip()[:6].upper()
        if verb in ('ATTACH', 'DETACH'):
            self.connection.attachments_changed()
        elif verb == 'PRAGMA' and '=' in sql:
            self.connection.altered = True
        return result


class ReaderConnection(sqlite3.Connection):
    """A reader engine's connection: never writes."""

    lock = None
    holding = False
    attached = False
    # A PRAGMA changed a setting after set_up (the "connect" listeners'
    # own, e.g. oslo.db's foreign keys, came before): not kept.
    altered = False

    def set_up(self, lock):
        self.execute('PRAGMA query_only = ON')
        self.altered = False

    def clean(self):
        """Fit to be kept for the next checkout."""
        return not (self.in_transaction or self.attached or self.altered)

    def begin(self, execute):
        execute('BEGIN')

    def try_begin(self):
        """Begin now if that needs no wait; True if it did."""
        try:
            super().execute('BEGIN')
        except sqlite3.Error:
            return False
        return True

    def attachments_changed(self):
        self.attached = any(row[1] not in ('main', 'temp') for row in
                            super().execute('PRAGMA database_list'))

    def cursor(self, factory=_Cursor):
        return super().cursor(factory)

    def execute(self, sql, parameters=()):
        return self.cursor().execute(sql, parameters)

    def _release(self):
        pass

    def close(self):
        try:
            super().close()
        finally:
            self._release()


class WriterConnection(ReaderConnection):
    """A writer engine's connection: its transactions take the file's
    write turn (see the module's docstring)."""

    def set_up(self, lock):
        self.lock = lock
        self.execute('PRAGMA synchronous = NORMAL')
        self.altered = False

    def begin(self, execute):
        deadline = time.monotonic() + LOCK_TIMEOUT
        self.lock.acquire(deadline)
        self.holding = True
        try:
            _retry_busy(lambda: execute(
                'BEGIN' if self.attached else 'BEGIN IMMEDIATE'), deadline)
        except BaseException:
            self._release()
            raise

    def try_begin(self):
        if not self.lock.try_acquire():
            return False
        self.holding = True
        try:
            sqlite3.Connection.execute(
                self, 'BEGIN' if self.attached else 'BEGIN IMMEDIATE')
        except sqlite3.Error:
            self._release()
            return False
        return True

    def _release(self):
        if self.holding:
            self.holding = False
            self.lock.release()

    def _ended(self):
        if not self.in_transaction:
            self._release()

    def commit(self):
        try:
            super().commit()
        finally:
            self._ended()

    def rollback(self):
        try:
            super().rollback()
        finally:
            self._ended()
