"""Canary of nova_lite._compat.sqlalchemy: a NullPool is built, and
hands connections out and takes them back, as KeepingNullPool assumes."""
import inspect

import sqlalchemy as sa

from nova_lite._compat import sqlalchemy as sqlalchemy_compat


def test_pool_keeps_what_a_successor_is_built_from():
    engine = sa.create_engine('sqlite://', poolclass=sa.pool.NullPool)
    pool = engine.pool
    for name in ('_creator', '_recycle', '_orig_logging_name',
                 '_reset_on_return', '_dialect'):
        assert hasattr(pool, name), name
    assert '_dispatch' in inspect.signature(sa.pool.Pool.__init__).parameters
    for name in ('_do_get', '_do_return_conn'):
        assert name in sa.pool.NullPool.__dict__, name


def test_a_kept_connection_is_handed_out_again_with_the_listeners():
    engine = sa.create_engine('sqlite://', poolclass=sa.pool.NullPool)
    connects = []
    sa.event.listen(engine, 'connect',
                    lambda dbapi_conn, record: connects.append(dbapi_conn))
    keep = []
    engine.pool = sqlalchemy_compat.KeepingNullPool.replacing(
        engine.pool, lambda conn: not keep, 1)
    with engine.connect() as conn:
        first = conn.connection.dbapi_connection
        conn.exec_driver_sql('CREATE TEMP TABLE t (x)')
    with engine.connect() as conn:
        assert conn.connection.dbapi_connection is first
        # The same connection: its temporary table is still there.
        conn.exec_driver_sql('SELECT * FROM t')
    assert connects == [first]      # the listeners moved with the pool
    keep.append(False)
    with engine.connect() as conn:
        pass
    with engine.connect() as conn:
        assert conn.connection.dbapi_connection is not first
    # dispose() builds the successor with recreate(): same kind, same rule.
    engine.dispose()
    assert type(engine.pool) is sqlalchemy_compat.KeepingNullPool
    assert engine.pool.idle_max == 1 and engine.pool.keep is not None
