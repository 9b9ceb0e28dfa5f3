"""Canary of nova_lite._compat.oslo_db: oslo.db's SQLite "begin"
listener sends BEGIN unless the connection is marked begun."""
from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from nova_lite._compat import oslo_db as oslo_db_compat


def _engine(statements):
    engine = engines.create_engine('sqlite://')
    sa.event.listen(engine, 'before_cursor_execute',
                    lambda conn, cursor, sql, *args: statements.append(sql))
    return engine


def _listen_first(engine, fn):
    others = list(engine.dispatch.begin)
    for other in others:
        sa.event.remove(engine, 'begin', other)
    sa.event.listen(engine, 'begin', fn)
    for other in others:
        sa.event.listen(engine, 'begin', other)


def test_oslo_db_sends_begin_itself():
    statements = []
    engine = _engine(statements)
    with engine.begin() as conn:
        assert oslo_db_compat.begun(conn)
        conn.exec_driver_sql('SELECT 1')
    assert [s for s in statements if s != 'SELECT 1'] == ['BEGIN']
    with engine.connect() as conn:
        assert not oslo_db_compat.begun(conn)   # commit took it off


def test_a_connection_marked_begun_gets_no_begin_from_oslo_db():
    statements = []
    engine = _engine(statements)

    def begin(conn):
        conn.connection.driver_connection.execute('BEGIN')
        oslo_db_compat.mark_begun(conn)
    _listen_first(engine, begin)
    with engine.begin() as conn:
        conn.exec_driver_sql('SELECT 1')
        assert conn.connection.driver_connection.in_transaction
    assert statements == ['SELECT 1']
