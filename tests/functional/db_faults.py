"""Fault injection for functional tests: a database error at a chosen
write, through SQLAlchemy's public event API (no patching of our code).

``fail_once(pattern)`` makes the next statement of any engine in this
process whose SQL matches ``pattern`` (a regular expression, searched
case-insensitively) fail as MariaDB fails a value too long for its
column (a DB-API DataError, which oslo.db raises as DBDataError); later
statements run as usual. It is a context manager; on exit the trap is
removed, and ``trap.fired`` holds the statement it failed (None if none
matched).
"""
import contextlib
import re
import sqlite3
import threading

import sqlalchemy as sa


class _Trap(object):
    def __init__(self, pattern):
        self.pattern = re.compile(pattern, re.IGNORECASE)
        self.fired = None
        self._lock = threading.Lock()

    def __call__(self, conn, cursor, statement, parameters, context,
                 executemany):
        if self.fired is not None or not self.pattern.search(statement):
            return
        with self._lock:
            if self.fired is not None:
                return
            self.fired = statement
        raise sqlite3.DataError('injected failure: data too long for '
                                'this write (%s)' % statement[:60])


@contextlib.contextmanager
def fail_once(pattern):
    trap = _Trap(pattern)
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', trap)
    try:
        yield trap
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', trap)
