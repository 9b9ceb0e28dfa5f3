"""API DB transactions for placement writes, and their retries.

writing(ctx): an enginefacade writer transaction that, on SQLite, takes
the write lock with its first statement (BEGIN IMMEDIATE), so that a
transaction reading before it writes waits for a concurrent writer
instead of failing at once with "database is locked".

retrying(fn, retries): runs fn() in fresh transactions while a generation
it checked moved (GenerationChanged), with jittered backoff; each attempt
goes through transient_retry (oslo_db.api.wrap_db_retry: deadlocks, lost
connections, SQLite's "database is locked" after its busy timeout).
Neither may run inside an open API DB transaction: they retry whole
transactions.
"""
import contextlib
import random
import threading
import time
import weakref

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite import utils

RETRY_SLEEP_MAX = 0.05    # seconds, between generation-conflict retries
ROWS_PER_INSERT = 200     # rows per multi-row INSERT (bound-parameter limits)
DB_RETRIES = 20           # transient database failures, per attempt

chunks = utils.chunks

_immediate = threading.local()     # green-local under eventlet
_immediate_engines = weakref.WeakSet()


class GenerationChanged(Exception):
    """Someone changed what this transaction checked: start it again."""


def _sqlite_locked(exc):
    return (isinstance(exc, (db_exc.DBError, sa.exc.OperationalError))
            and 'database is locked' in str(exc))


transient_retry = oslo_db_api.wrap_db_retry(
    max_retries=DB_RETRIES, retry_interval=0.01, inc_retry_interval=True,
    max_retry_interval=0.5, retry_on_deadlock=True, retry_on_disconnect=True,
    exception_checker=_sqlite_locked, jitter=True)


def _begin_immediate(conn):
    # Runs before oslo.db's own "begin" listener, which then sees
    # in_transaction and does not emit its deferred BEGIN.
    if (getattr(_immediate, 'wanted', False)
            and 'in_transaction' not in conn.info):
        conn.execute(sa.text('BEGIN IMMEDIATE'))
        conn.info['in_transaction'] = True


def _listen_first(engine, name, fn):
    # listen(insert=True) is ignored for engine events (SQLAlchemy 2.x):
    # take the others off and put them back after fn.
    others = list(getattr(engine.dispatch, name))
    for other in others:
        sa.event.remove(engine, name, other)
    sa.event.listen(engine, name, fn)
    for other in others:
        sa.event.listen(engine, name, other)


@contextlib.contextmanager
def writing(ctx):
    """An API DB writer transaction holding, on SQLite, the write lock
    from its first statement. Yields the session."""
    api_db.configure()
    with api_db.context_manager.writer.using(ctx) as session:
        engine = session.get_bind()
        if engine.dialect.name == 'sqlite':
            if engine not in _immediate_engines:
                _listen_first(engine, 'begin', _begin_immediate)
                _immediate_engines.add(engine)
            # Take the connection now (joined, if an outer transaction
            # already has one): its BEGIN is then ours.
            _immediate.wanted = True
            try:
                session.connection()
            finally:
                _immediate.wanted = False
        yield session


@contextlib.contextmanager
def reading(ctx):
    api_db.configure()
    with api_db.context_manager.reader.using(ctx) as session:
        yield session


def retrying(fn, retries, on_conflict=None):
    """fn() until no generation it checked moved; after `retries` retries,
    raise on_conflict() (or GenerationChanged). Transient database
    failures are retried inside each attempt (transient_retry)."""
    attempt = transient_retry(fn)
    for count in range(retries + 1):
        try:
            return attempt()
        except GenerationChanged as exc:
            if count == retries:
                if on_conflict is not None:
                    raise on_conflict() from exc
                raise
        time.sleep(random.uniform(0, min(RETRY_SLEEP_MAX,
                                         0.001 * 2 ** count)))


def duplicates_retry(fn):
    """fn, with a unique-key clash (a concurrent creator got there first)
    turned into GenerationChanged so that retrying() re-reads and goes on."""
    def wrapped():
        try:
            return fn()
        except db_exc.DBDuplicateEntry as exc:
            raise GenerationChanged() from exc
    return wrapped


def insert_rows(session, table, rows):
    """Multi-row INSERTs: one statement per ROWS_PER_INSERT rows."""
    for part in chunks(rows, ROWS_PER_INSERT):
        session.execute(table.insert().values(part))
