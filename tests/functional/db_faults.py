"""Fault injection for functional tests: a database error at a chosen
write, through SQLAlchemy's public event API (no patching of our code).

``fail_once(pattern)`` makes the next statement of any engine in this
process whose SQL matches ``pattern`` (a regular expression, searched
case-insensitively) fail as MariaDB fails a value too long for its
column (a DB-API DataError, which oslo.db raises as DBDataError); later
statements run as usual. It is a context manager; on exit the trap is
removed, and ``trap.fired`` holds the statement it failed (None if none
matched).

``outage(pattern, times)`` makes the next ``times`` such statements fail
as MariaDB fails them while it restarts ("Server shutdown in
progress", 1053). ``trap.count`` is how many it failed. (A dropped
connection cannot be played on SQLite: oslo.db's SQLite hooks fail the
rollback of an invalidated connection.)
"""
import contextlib
import re
import sqlite3
import threading

import sqlalchemy as sa


def _data_too_long(statement):
    return sqlite3.DataError('injected failure: data too long for this '
                             'write (%s)' % statement[:60])


def _shutting_down(statement):
    return sqlite3.OperationalError('(1053, "Server shutdown in progress") '
                                    '(injected outage: %s)' % statement[:60])


class _Trap(object):
    def __init__(self, pattern, times=1, error=_data_too_long):
        self.pattern = re.compile(pattern, re.IGNORECASE)
        self.times = times
        self.error = error
        self.fired = None
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, conn, cursor, statement, parameters, context,
                 executemany):
        if self.count >= self.times or not self.pattern.search(statement):
            return
        with self._lock:
            if self.count >= self.times:
                return
            self.count += 1
            if self.fired is None:
                self.fired = statement
        raise self.error(statement)


@contextlib.contextmanager
def _trapped(trap):
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', trap)
    try:
        yield trap
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', trap)


def fail_once(pattern):
    return _trapped(_Trap(pattern))


def outage(pattern, times):
    return _trapped(_Trap(pattern, times, _shutting_down))
