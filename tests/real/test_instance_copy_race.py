"""Cross-cell copies of different instances written into one cell at
once on MariaDB and PostgreSQL (the super conductor's target DB setup of
concurrent cross-cell resizes, and their rollbacks): every copy and every
removal completes. On MariaDB the copy's clean-up deletes of rows that do
not exist take gap locks, so two copies deadlock; the transaction is
retried."""
import concurrent.futures
import datetime

from oslo_utils import uuidutils
import pytest

from nova_lite import context as nova_context
from nova_lite.db.main import instance_copy
from nova_lite.db.main import instances as cell_rows
from nova_lite.db import migration
from nova_lite import objects

COPIES = 24


def _cell(url):
    return objects.CellMapping(uuid=uuidutils.generate_uuid(), name='c',
                               database_connection=url,
                               transport_url='inproc:///race')


@pytest.fixture(params=['mysql', 'postgresql'])
def two_cells(request, conf, make_mysql_database, make_postgresql_database):
    make = (make_mysql_database if request.param == 'mysql'
            else make_postgresql_database)
    urls = [make(), make()]
    for url in urls:
        migration.db_sync('main', url)
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, _cell(urls[0])) as source, \
            nova_context.target_cell(admin, _cell(urls[1])) as target:
        yield source, target


def _instance(ctxt):
    uuid = uuidutils.generate_uuid()
    cell_rows.create(ctxt, dict(
        uuid=uuid, project_id='p', user_id='u', vm_state='active',
        task_state=None, launched_at=datetime.datetime(2026, 1, 1),
        locked=False), metadata={'k': 'v'}, tags=['a', 'b'])
    return uuid


def test_concurrent_copies_and_removals_all_complete(two_cells):
    source, target = two_cells
    uuids = [_instance(source) for _ in range(COPIES)]
    data = {u: instance_copy.read_instance(source, u) for u in uuids}

    def copy(uuid):
        instance_copy.write_instance(target, data[uuid], {'hidden': True})
        return uuid

    def remove(uuid):
        instance_copy.hard_delete(target, uuid)
        return uuid

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(copy, uuids)) == sorted(uuids)
        assert all(instance_copy.exists(target, u) for u in uuids)
        # Copies again over the earlier ones (a rerun after a crash),
        # then removed, all at once.
        assert sorted(pool.map(copy, uuids)) == sorted(uuids)
        assert sorted(pool.map(remove, uuids)) == sorted(uuids)
    assert not any(instance_copy.exists(target, u) for u in uuids)
    assert all(instance_copy.exists(source, u) for u in uuids)
