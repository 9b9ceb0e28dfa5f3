"""Steps 2 and 4 of moving a batch of legacy flavors (see flavor_copy):
the cell-side soft-delete that locks the batch, held open in cell DB
transactions until the API DB copy has committed, then committed specs
and projects first, flavors last.

commit() and _commit_flavors() are the points a crash may hit between the
two databases; tests stop a run there.
"""
import contextlib
import functools

from nova_lite.db import driver_sql
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors


class Changed(Exception):
    """Legacy rows changed since the batch was read."""


def expect(count, wanted, what):
    if count != wanted:
        raise Changed('%s matched %d rows for %d flavors' % (
            what, count, wanted))


class LegacyWrite(object):
    """Steps 2 and 4: the soft-delete of a batch's legacy rows, in cell DB
    transactions left open until the copy has committed.

    On MariaDB and PostgreSQL the flavors, the specs and the projects each
    have a connection, so that the specs' and projects' UPDATEs run at
    once (with the copy); SQLite has one writer per file, so one
    connection does all three, next to the copy.
    Its transaction must not spill to the file before it commits (that
    would lock out the copy reading that file): cache_spill is off.
    """

    def __init__(self, lctx):
        self.engine = main_db.get_engine(lctx)
        self.sqlite = self.engine.dialect.name == 'sqlite'
        # PyMySQL is Python on eventlet's green sockets; the drivers in C
        # (sqlite3, psycopg2) block the thread they run in, so their
        # statements overlap only in threads of the OS.
        self.blocking_driver = self.engine.dialect.driver != 'pymysql'
        self.sql = driver_sql.Sql(self.engine.dialect)
        self.now = legacy_flavors.now_for(self.engine.dialect)

    def __enter__(self):
        self._stack = contextlib.ExitStack()
        try:
            self.conns = [self._open(related=i > 0) for i in
                          range(1 if self.sqlite else 3)]
        except BaseException:
            self._stack.close()
            raise
        return self

    def _open(self, related):
        conn = self._stack.enter_context(self.engine.connect())
        if not self.sqlite:
            conn = driver_sql.read_committed(conn)
        if related and self.engine.dialect.name == 'mysql':
            # InnoDB checks the foreign key of every spec and project row
            # whose `deleted` changes (the key's index holds it), taking
            # a shared lock on the flavor row that our flavors'
            # connection holds: it would wait for us forever. The
            # UPDATEs change no key.
            conn.exec_driver_sql('SET SESSION foreign_key_checks = 0')
            conn.commit()
            self._stack.callback(conn.exec_driver_sql,
                                 'SET SESSION foreign_key_checks = 1')
        if self.sqlite:
            raw = conn.connection.dbapi_connection
            spill = raw.execute('PRAGMA cache_spill').fetchone()[0]
            raw.execute('PRAGMA cache_spill = OFF')
            self._stack.callback(raw.execute,
                                 'PRAGMA cache_spill = %d' % spill)
        conn.begin()  # closing the connection rolls back what is left
        return conn

    def __exit__(self, *exc):
        try:
            if exc[0] is not None:
                for conn in self.conns:
                    conn.rollback()
        finally:
            self._stack.close()

    def lock(self, ids):
        """Step 2: soft-delete the flavors (Changed unless all are live)."""
        expect(legacy_flavors.soft_delete_rows(
            self.conns[0], self.sql, legacy_flavors.FLAVORS, 'id', ids,
            self.now), len(ids), 'soft-delete of legacy flavors')

    def related_jobs(self, ids):
        """Functions soft-deleting the flavors' specs and projects."""
        tables = (legacy_flavors.EXTRA_SPECS, legacy_flavors.PROJECTS)
        if self.sqlite:
            return [lambda: [self._soft_delete(self.conns[0], table, ids)
                             for table in tables]]
        return [functools.partial(self._soft_delete, conn, table, ids)
                for conn, table in zip(self.conns[1:], tables)]

    def _soft_delete(self, conn, table, ids):
        legacy_flavors.soft_delete_rows(conn, self.sql, table, 'flavor_id',
                                        ids, self.now)

    def commit(self):
        """Step 4: specs and projects first, then the flavors."""
        self._commit_related()
        self._commit_flavors()

    def _commit_related(self):
        for conn in self.conns[1:]:
            conn.commit()

    def _commit_flavors(self):
        self.conns[0].commit()
