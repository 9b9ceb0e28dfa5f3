"""flavor_copy's choice of copy path and its cross-dialect conversion (no
database: URLs and dialects only)."""
import datetime

import pytest
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import sqlite

from nova_lite.db import driver_sql
from nova_lite.db.main import legacy_flavors
from nova_lite.online_migrations import flavor_copy
from tests.conftest import set_override

SERVER = 'mysql+pymysql://nova:secret@db.example.org:3306'


def _urls(conf, api, cell):
    set_override('connection', api, group='api_database')
    set_override('connection', cell, group='database')


@pytest.mark.parametrize('api,cell,expected', [
    # One MariaDB server, same credentials: the API connection reads the
    # cell database by name.
    (SERVER + '/nova_api', SERVER + '/nova', ('schema', 'nova')),
    (SERVER + '/nova_api?charset=utf8', SERVER + '/nova?charset=utf8',
     ('schema', 'nova')),
    ('mysql+pymysql://nova:secret@db.example.org/nova_api',
     SERVER + '/nova', ('schema', 'nova')),  # 3306 is the default port
    # Anything that may not reach the same server with the same rights.
    (SERVER + '/nova_api', 'mysql+pymysql://nova:secret@db2/nova', None),
    (SERVER + '/nova_api', 'mysql+pymysql://cell:secret@db.example.org/nova',
     None),
    (SERVER + '/nova_api', 'mysql+pymysql://nova:other@db.example.org/nova',
     None),
    (SERVER + '/nova_api', 'mysql+pymysql://nova:secret@db.example.org:3307'
     '/nova', None),
    (SERVER + '/nova_api', SERVER + '/nova?charset=latin1', None),
    (SERVER + '/nova_api', 'postgresql+psycopg2://nova@db.example.org/nova',
     None),
    ('postgresql://nova@db/nova_api', 'postgresql://nova@db/nova', None),
    # Two SQLite files: ATTACH; memory or the same file: no.
    ('sqlite:////tmp/x/api.sqlite', 'sqlite:////tmp/x/cell.sqlite',
     ('attach', '/tmp/x/cell.sqlite')),
    ('sqlite:////tmp/x/api.sqlite', 'sqlite://', None),
    ('sqlite://', 'sqlite:////tmp/x/cell.sqlite', None),
    ('sqlite:////tmp/x/api.sqlite', 'sqlite:////tmp/x/api.sqlite', None),
])
def test_cross_database_source(conf, api, cell, expected):
    _urls(conf, api, cell)
    assert flavor_copy.cross_database_source() == expected


def test_cross_database_can_be_turned_off(conf, monkeypatch):
    _urls(conf, SERVER + '/nova_api', SERVER + '/nova')
    monkeypatch.setattr(flavor_copy, 'CROSS_DATABASE', False)
    assert flavor_copy.cross_database_source() is None


def test_no_cell_database_no_cross_database(conf):
    set_override('connection', SERVER + '/nova_api', group='api_database')
    assert flavor_copy.cross_database_source() is None


def test_rows_between_dialects_are_converted():
    """SQLite stores datetimes and booleans as text and integers; a
    MariaDB API DB gets datetimes and booleans from them."""
    t = legacy_flavors.GEN.flavors
    columns = [t.c.created_at, t.c.is_public, t.c.name, t.c.deleted_at]
    convert = flavor_copy._converter(columns, sqlite.dialect(),
                                     mysql.dialect())
    assert convert(('2020-01-02 03:04:05.000006', 1, 'm1', None)) == (
        datetime.datetime(2020, 1, 2, 3, 4, 5, 6), True, 'm1', None)
    back = flavor_copy._converter(columns, mysql.dialect(),
                                  sqlite.dialect())
    assert back((datetime.datetime(2020, 1, 2, 3, 4, 5, 6), 1, 'm1',
                 None)) == ('2020-01-02 03:04:05.000006', 1, 'm1', None)


def test_same_dialect_rows_are_passed_through():
    t = legacy_flavors.GEN.flavors
    assert flavor_copy._converter([t.c.created_at], sqlite.dialect(),
                                  sqlite.dialect()) is None


def test_sql_uses_the_drivers_placeholder_and_quotes():
    lite = driver_sql.Sql(sqlite.dialect())
    my = driver_sql.Sql(mysql.dialect())
    assert (lite.marks(2), my.marks(2)) == ('?, ?', '%s, %s')
    assert my.names(['key', 'value'], 'r') == 'r.`key`, r.value'
    assert my.table(legacy_flavors.GEN.flavors, 'nova') == \
        'nova.instance_types'


def test_ids_with_few_gaps_are_one_range_minus_the_gaps():
    ids = driver_sql.id_set([7, 3, 4, 6, 9])
    assert isinstance(ids, driver_sql.IdRange)
    assert (list(ids), ids.lo, ids.hi, ids.excluded) == (
        [3, 4, 6, 7, 9], 3, 9, [5, 8])
    my = driver_sql.Sql(mysql.dialect())
    assert my.id_conditions('r.flavor_id', ids) == [
        ('r.flavor_id BETWEEN %s AND %s AND r.flavor_id NOT IN (%s, %s)',
         [3, 9, 5, 8])]


def test_sparse_ids_are_in_lists_of_in_chunk():
    ids = driver_sql.id_set(range(0, 4 * driver_sql.IN_CHUNK, 2))
    assert not isinstance(ids, driver_sql.IdRange)
    conditions = driver_sql.Sql(sqlite.dialect()).id_conditions('id', ids)
    assert [len(params) for _, params in conditions] == [
        driver_sql.IN_CHUNK] * 2
    assert conditions[0][0].startswith('id IN (?, ?')


def test_run_together_native_runs_at_once_under_eventlet():
    """SQLite statements block the thread they run in: native=True runs
    them in threads of the OS even in a monkey-patched process (two
    waits on one barrier would never meet in a single thread)."""
    from eventlet import patcher
    from nova_lite import utils
    barrier = patcher.original('threading').Barrier(2, timeout=10)
    utils.run_together(barrier.wait, barrier.wait, native=True)


def test_run_together_raises_the_first_error_after_all_ran():
    from nova_lite import utils
    ran = []

    def fail():
        raise ValueError('first')

    with pytest.raises(ValueError):
        utils.run_together(fail, lambda: ran.append(1), native=True)
    assert ran == [1]
