"""The one list of online data migrations, in run order.

A migration is fn(context, max_count) -> (found, done): it moves at most
max_count rows per call, is idempotent, safe to run concurrently with
itself and crash-safe; a row it cannot move is counted in found but not in
done, and logged with the reason. Register it with

    @registry.register(needs={constants.API_BINARY: 2}, batch=...,
                       pending=...)

needs: {binary: minimum service version} every cell must have reached
before it runs (service_version.unmet_needs answers); batch: rows per call
when the runner is given no count (None: DEFAULT_BATCH); pending(context)
-> int counts the rows still to move without moving any (nova-lite-status
reports it), reading with plain SQL so that it answers against a schema
older than the code.
"""
import collections

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db.main import api as main_db

# Rows per call for migrations that do not name their own batch size.
DEFAULT_BATCH = 50

Migration = collections.namedtuple('Migration', 'name fn needs batch pending')
_REGISTRY = collections.OrderedDict()


def register(name=None, needs=None, batch=None, pending=None):
    """Register fn under name (default: its __name__); registration order
    is run order."""
    def decorator(fn):
        key = name or fn.__name__
        _REGISTRY[key] = Migration(key, fn, dict(needs or {}), batch,
                                   pending)
        return fn
    return decorator


def migrations():
    return list(_REGISTRY.values())


def count_rows(context, *queries):
    """The count of the first of these plain-SQL queries that the cell
    database's schema can answer (for pending counters); None if none
    can."""
    for query in queries:
        with main_db.get_context_manager(context).reader.connection.using(
                context) as conn:
            try:
                return conn.execute(sa.text(query)).scalar()
            except db_exc.DBError:
                continue
    return None
