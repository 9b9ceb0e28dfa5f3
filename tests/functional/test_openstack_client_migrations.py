"""`openstack server migration list` and openstacksdk's migrations()
against a real nova-lite-all-in-one process with two cells, on
migration records written into both cells' databases (the resize flow's
own records are its tests' business)."""
import datetime

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import allinone
from nova_lite.db.main import models
from tests import clients

T0 = datetime.datetime(2026, 1, 1)


def _seed(state_dir, cell, minutes, **values):
    """A migration row in the all-in-one's cell database; its uuid."""
    created = T0 + datetime.timedelta(minutes=minutes)
    row = dict(uuid=uuidutils.generate_uuid(),
               instance_uuid=uuidutils.generate_uuid(),
               source_compute='%s-compute1' % cell,
               dest_compute='%s-compute2' % cell, status='finished',
               migration_type='resize', old_instance_type_id=1,
               new_instance_type_id=2, hidden=False, cross_cell_move=False,
               user_id='admin', project_id='admin', created_at=created,
               updated_at=created, deleted=0)
    row.update(values)
    engine = sa.create_engine(allinone.sqlite_url(state_dir, cell))
    try:
        with engine.begin() as conn:
            conn.execute(models.Migration.__table__.insert().values(**row))
    finally:
        engine.dispose()
    return row['uuid']


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-migrations'))
    with clients.all_in_one(state_dir, '--cells', '2') as (endpoint, _proc):
        newest_first = [
            _seed(state_dir, 'cell2', 3, status='confirmed',
                  migration_type='migration'),
            _seed(state_dir, 'cell1', 2),
            _seed(state_dir, 'cell2', 1, status='error')]
        _seed(state_dir, 'cell1', 4, hidden=True)
        yield endpoint, clients.openstack_env(endpoint), newest_first


def test_openstack_server_migration_list(cloud):
    _endpoint, env, newest_first = cloud
    listed = clients.openstack_json(
        env, '--os-compute-api-version', '2.80', 'server', 'migration',
        'list')
    assert [m['UUID'] for m in listed] == newest_first
    assert [m['Type'] for m in listed] == ['migration', 'resize', 'resize']
    assert listed[1]['Source Compute'] == 'cell1-compute1'
    # The client's default microversion: no uuid, the filter still.
    finished = clients.openstack_json(env, 'server', 'migration', 'list',
                                      '--status', 'finished')
    assert [m['Source Compute'] for m in finished] == ['cell1-compute1']


def test_sdk_pages_through_every_cell(cloud):
    endpoint, _env, newest_first = cloud
    conn = clients.sdk_admin(endpoint, '2.80')
    # A page of one at a time, following migrations_links.
    assert [m.uuid for m in conn.compute.migrations(limit=1)] == \
        newest_first
