"""API DB transactions for placement writes, and their retries.

writing(ctx)/reading(ctx): API DB enginefacade writer/reader
transactions on a Core connection (placement runs Core statements only,
so no ORM Session: less work per statement on the claim path; on a
SQLite file a writer holds the write lock from its first statement:
nova_lite.db.sqlite).

retrying(fn, retries): runs fn() in fresh transactions while a generation
it checked moved (GenerationChanged), with jittered backoff; each attempt
goes through transient_retry (oslo_db.api.wrap_db_retry: deadlocks, lost
connections, SQLite's "database is locked" after its busy timeout).
Neither may run inside an open API DB transaction: they retry whole
transactions.
"""
import contextlib
import random
import time

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite import utils

RETRY_SLEEP_MAX = 0.05    # seconds, between generation-conflict retries
DB_RETRIES = 20           # transient database failures, per attempt

chunks = utils.chunks


class GenerationChanged(Exception):
    """Someone changed what this transaction checked: start it again."""


def _sqlite_locked(exc):
    return (isinstance(exc, (db_exc.DBError, sa.exc.OperationalError))
            and 'database is locked' in str(exc))


transient_retry = oslo_db_api.wrap_db_retry(
    max_retries=DB_RETRIES, retry_interval=0.01, inc_retry_interval=True,
    max_retry_interval=0.5, retry_on_deadlock=True, retry_on_disconnect=True,
    exception_checker=_sqlite_locked, jitter=True)


@contextlib.contextmanager
def writing(ctx):
    """An API DB writer transaction; yields its connection."""
    with api_db.get_context_manager(ctx).writer.connection.using(
            ctx) as connection:
        yield connection


@contextlib.contextmanager
def reading(ctx):
    """An API DB reader transaction; yields its connection."""
    with api_db.get_context_manager(ctx).reader.connection.using(
            ctx) as connection:
        yield connection


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
    """INSERT rows (dicts with the same keys) as one executemany of the
    table's plain INSERT: compiled once and cached, and sent by the
    drivers as multi-row INSERTs (PyMySQL's executemany, psycopg2's
    insertmanyvalues). No bound-parameter limit applies: each row binds
    its own."""
    if rows:
        session.execute(table.insert(), rows)
