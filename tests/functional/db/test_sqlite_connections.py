"""db/sqlite.py's kept connections: SQLAlchemy and oslo.db set a kept
connection up again each time it is handed out; what is already so is
not redone (it would expire every prepared statement), what changed is."""
import sqlite3

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import pytest
import sqlalchemy as sa

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


def test_a_kept_connection_is_not_set_up_again(engine, monkeypatch):
    with engine.connect() as conn:
        kept = _driver_connection(conn)
    assert {name for name, _narg, _fn in kept.functions} >= {'regexp'}
    registered = []
    real = sqlite.ReaderConnection._register

    def register(self, name, *args, **kwargs):
        registered.append(name)
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(sqlite.ReaderConnection, '_register', register)
    with engine.connect() as conn:
        assert _driver_connection(conn) is kept
        assert registered == []
        # oslo.db's REGEXP is still the one in force; foreign keys still on.
        assert conn.scalar(sa.text("SELECT 'abc' REGEXP 'b'")) == 1
        assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1


def test_foreign_keys_switched_off_are_switched_on_again(engine):
    with engine.connect() as conn:
        kept = _driver_connection(conn)
    # As a caller might leave it: foreign keys off, back among the kept.
    sqlite3.Connection.execute(kept, 'PRAGMA foreign_keys = OFF')
    with engine.connect() as conn:
        assert _driver_connection(conn) is kept
        assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1
        with pytest.raises(db_exc.DBReferenceError):
            conn.exec_driver_sql(
                'INSERT INTO child (id, parent_id) VALUES (1, 42)')
