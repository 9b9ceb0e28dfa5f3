"""oslo.db internals: the marker of its SQLite "begin" listener.

- ``conn.info['in_transaction']``: oslo.db's SQLite "begin" engine
  listener (``engines._init_events``) sends ``BEGIN`` through the whole
  statement machinery unless the connection's ``info`` carries this
  marker, and its "commit"/"rollback" listeners take it off. A listener
  that runs before it (registered first: SQLAlchemy ignores
  ``insert=True`` for engine events) and begins the transaction on the
  driver's connection itself sets the marker with mark_begun. For speed
  only. Gone when oslo.db lets a caller take over BEGIN (e.g. a
  ``sqlite_begin`` hook), or stops emitting BEGIN itself on SQLite once
  the driver's ``autocommit`` attribute (Python 3.12) does it.

tests/unit/compat/test_oslo_db.py is the canary.
"""

INTERNALS = (
    "oslo_db.sqlalchemy.engines: conn.info['in_transaction']",
)

_MARKER = 'in_transaction'


def begun(conn):
    """Whether oslo.db counts conn's transaction as begun."""
    return _MARKER in conn.info


def mark_begun(conn):
    """Tell oslo.db's "begin" listener that conn's transaction was begun
    (on the driver's connection): it sends no BEGIN of its own."""
    conn.info[_MARKER] = True
