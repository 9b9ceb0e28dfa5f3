"""API DB write transactions that can be retried, for code that checks
state in Python and then writes it under optimistic concurrency (resource
providers).

writing(ctx): an enginefacade writer transaction. On SQLite it starts
with BEGIN IMMEDIATE: a deferred transaction that reads first and then
writes gets "database is locked" at once (without waiting for the busy
timeout) when another connection is writing; IMMEDIATE takes the write
lock up front, so it waits for it instead.

retrying(fn): runs fn() again on transient failures -- a generation that
moved (GenerationChanged), deadlocks, lock waits, "database is locked" --
with jittered exponential backoff.
"""
import contextlib
import random
import threading
import time
import weakref

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite import utils

RETRY_SLEEP_MAX = 0.05    # seconds
IN_CHUNK = utils.IN_CHUNK
ROWS_PER_INSERT = 200     # rows per multi-row INSERT (bound-parameter limits)

_immediate = threading.local()     # green-local under eventlet
_immediate_engines = weakref.WeakSet()


class GenerationChanged(Exception):
    """Someone changed what this transaction checked: start it again."""


chunks = utils.chunks


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


def transient(exc):
    """True for failures a fresh attempt can cure."""
    if isinstance(exc, (GenerationChanged, db_exc.DBDeadlock)):
        return True
    return (isinstance(exc, (db_exc.DBError, sa.exc.OperationalError))
            and 'database is locked' in str(exc))


def retrying(fn, retries, on_conflict=None):
    """fn() until it does not fail transiently; after `retries` retries,
    raise on_conflict() (or the last error)."""
    for attempt in range(retries + 1):
        try:
            return fn()
        except Exception as exc:
            if not transient(exc):
                raise
            if attempt == retries:
                if on_conflict is not None:
                    raise on_conflict() from exc
                raise
        time.sleep(random.uniform(0, min(RETRY_SLEEP_MAX,
                                         0.001 * 2 ** attempt)))


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
