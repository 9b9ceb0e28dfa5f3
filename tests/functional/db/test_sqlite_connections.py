"""db/sqlite.py's kept connections (KeepingNullPool): a connection that ends
clean is handed out again with no "connect" listener run (oslo.db's
settings still in force); one that ends dirty is closed, and the next
checkout gets a new one, set up afresh."""
import sqlite3

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import pytest
import sqlalchemy as sa

from nova_lite._compat import sqlalchemy as sqlalchemy_compat
from nova_lite.db import sqlite


@pytest.fixture
def engine(tmp_path):
    manager = enginefacade.transaction_context()
    sqlite.configure(manager, {
        'connection': 'sqlite:///%s' % (tmp_path / 'kept.sqlite'),
        'sqlite_fk': True})
    engine = manager.writer.get_engine()
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE parent (id INTEGER PRIMARY KEY)')
        conn.exec_driver_sql('CREATE TABLE child (id INTEGER PRIMARY KEY, '
                             'parent_id INTEGER REFERENCES parent(id))')
    yield engine
    manager.dispose_pool()


def _driver_connection(conn):
    return conn.connection.driver_connection


def _connects(engine):
    made = []
    sa.event.listen(engine, 'connect', lambda dbapi, rec: made.append(dbapi))
    return made


def test_a_kept_connection_is_not_set_up_again(engine):
    assert isinstance(engine.pool, sqlalchemy_compat.KeepingNullPool)
    with engine.connect() as conn:
        kept = _driver_connection(conn)
    made = _connects(engine)
    for _ in range(3):
        with engine.begin() as conn:
            assert _driver_connection(conn) is kept
            # oslo.db's REGEXP and foreign keys are still in force.
            assert conn.scalar(sa.text("SELECT 'abc' REGEXP 'b'")) == 1
            assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1
    assert made == []


def test_a_connection_whose_settings_changed_is_not_kept(engine):
    with engine.connect() as conn:
        first = _driver_connection(conn)
        # As a caller (a migration) might leave it: foreign keys off.
        conn.exec_driver_sql('PRAGMA foreign_keys = OFF')
    made = _connects(engine)
    with engine.connect() as conn:
        assert _driver_connection(conn) is not first
        assert len(made) == 1
        assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1
        with pytest.raises(db_exc.DBReferenceError):
            conn.exec_driver_sql(
                'INSERT INTO child (id, parent_id) VALUES (1, 42)')
    with pytest.raises(sqlite3.ProgrammingError):
        first.execute('SELECT 1')       # closed


def test_a_connection_with_a_file_attached_is_not_kept(engine, tmp_path):
    other = tmp_path / 'other.sqlite'
    with engine.connect() as conn:
        first = _driver_connection(conn)
        conn.exec_driver_sql("ATTACH DATABASE '%s' AS other" % other)
    with engine.connect() as conn:
        assert _driver_connection(conn) is not first
        names = [row[1] for row in
                 conn.exec_driver_sql('PRAGMA database_list')]
        assert 'other' not in names


def test_at_most_idle_max_connections_stay_open(engine):
    conns = [engine.connect() for _ in range(sqlite.IDLE_MAX + 2)]
    drivers = [_driver_connection(conn) for conn in conns]
    for conn in conns:
        conn.close()
    assert len(engine.pool._kept) == sqlite.IDLE_MAX
    kept = {id(record.dbapi_connection) for record in engine.pool._kept}
    assert kept <= {id(driver) for driver in drivers}


def test_a_write_turn_left_open_is_handed_on_at_checkin(engine):
    lock = sqlite._locks[sqlite.file_path(engine.url)]
    conn = engine.connect()
    conn.begin()
    conn.exec_driver_sql('INSERT INTO parent (id) VALUES (1)')
    assert lock.owner is not None
    conn.close()                        # rolled back by the pool's reset
    assert lock.owner is None
    with engine.connect() as conn:
        assert conn.exec_driver_sql(
            'SELECT count(*) FROM parent').scalar() == 0
