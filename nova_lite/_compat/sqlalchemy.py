"""SQLAlchemy internals: a pool that keeps connections, built from the
pool it replaces.

- ``Pool._do_get`` and ``Pool._do_return_conn``: the two methods a pool
  class implements (SQLAlchemy's own pools override them; its docs
  describe no public way to write a pool). KeepingNullPool overrides
  them to keep up to ``idle_max`` clean connections of a ``NullPool``.
- ``Pool._creator``, ``Pool._recycle``, ``Pool._orig_logging_name``,
  ``Pool._reset_on_return``, ``Pool._dialect`` and the ``_dispatch``
  constructor argument: read from the replaced pool, as SQLAlchemy's own
  ``Pool.recreate`` builds a successor (its listeners included), because
  ``recreate`` can only make a pool of the same class.

oslo.db gives a SQLite file a ``NullPool`` and no option to choose
another: every transaction opened a connection that every "connect"
listener set up again (about 3% of a server action's CPU). Gone when
oslo.db lets a SQLite engine's pool class be chosen
(``[database] sqlite_pool_class``, or a ``poolclass`` argument to
enginefacade), or SQLAlchemy's ``Pool.recreate`` takes a class.

tests/unit/compat/test_sqlalchemy.py is the canary.
"""
import logging

import sqlalchemy as sa

INTERNALS = (
    'sqlalchemy.pool.Pool._do_get',
    'sqlalchemy.pool.Pool._do_return_conn',
    'sqlalchemy.pool.Pool._creator',
    'sqlalchemy.pool.Pool._recycle',
    'sqlalchemy.pool.Pool._orig_logging_name',
    'sqlalchemy.pool.Pool._reset_on_return',
    'sqlalchemy.pool.Pool._dialect',
    'sqlalchemy.pool.Pool(_dispatch=...)',
)


class KeepingNullPool(sa.pool.NullPool):
    """A NullPool, except that up to idle_max connections for which
    keep(dbapi_connection) answers true when they are returned stay
    open for the next checkout, which then runs no "connect" listener.
    No pre-ping. Made with replacing(pool, keep, idle_max)."""

    keep = None
    idle_max = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **dict(kwargs, pre_ping=False))
        self._kept = []
        # SQLAlchemy names a pool's logger after its class: this one's
        # goes under "sqlalchemy" with the others, where oslo.log's
        # default levels (sqlalchemy=WARN) expect it.
        self.logger = logging.getLogger('sqlalchemy.pool.impl.'
                                        + type(self).__name__)

    @classmethod
    def replacing(cls, pool, keep, idle_max):
        """A pool in pool's place, as SQLAlchemy builds a pool's
        successor (Pool.recreate): its creator, events and dialect."""
        new = cls(pool._creator, recycle=pool._recycle, echo=pool.echo,
                  logging_name=pool._orig_logging_name,
                  reset_on_return=pool._reset_on_return,
                  _dispatch=pool.dispatch, dialect=pool._dialect)
        new.keep = keep
        new.idle_max = idle_max
        return new

    def recreate(self):
        # dispose() builds the pool anew: keep what this one keeps.
        new = super().recreate()
        new.keep = self.keep
        new.idle_max = self.idle_max
        return new

    def _do_get(self):
        if self._kept:
            return self._kept.pop()
        return super()._do_get()

    def _do_return_conn(self, record):
        conn = record.dbapi_connection
        if (conn is not None and self.keep is not None and self.keep(conn)
                and len(self._kept) < self.idle_max):
            self._kept.append(record)
            return
        super()._do_return_conn(record)

    def dispose(self):
        while self._kept:
            self._kept.pop().close()
