"""One server's metadata merges and tag adds racing on MariaDB and
PostgreSQL: many processes, each with its own connections. No write may
be lost and the tag limit must hold (the instance row's write lock)."""
import datetime

from oslo_utils import uuidutils
import pytest

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as cell_rows
from nova_lite.db import migration
from tests.conftest import set_override
from tests import instance_race


@pytest.fixture(params=['mysql_url', 'postgresql_url'])
def cell_url(request, conf):
    url = request.getfixturevalue(request.param)
    migration.db_sync('main', url)
    set_override('connection', url, group='database')
    main_db.reset()
    yield url
    main_db.reset()


def _instance(tags):
    uuid = uuidutils.generate_uuid()
    cell_rows.create(nova_context.get_admin_context(), dict(
        uuid=uuid, project_id='p', user_id='u', vm_state='active',
        task_state=None, launched_at=datetime.datetime(2026, 1, 1),
        locked=False), metadata={'old': 'v'}, tags=tags)
    return uuid


def test_racing_merges_and_tag_adds_lose_nothing(cell_url):
    uuid = _instance(['old%02d' % i for i in range(40)])
    keys = ['k%02d' % i for i in range(30)]
    tags = ['new%02d' % i for i in range(20)]
    jobs = ([['meta', k] for k in keys] + [['tag', t] for t in tags])

    outcomes = instance_race.race(cell_url, uuid, jobs)

    assert [o for o in outcomes if o[0] == 'error'] == []
    assert sorted(o[1][1] for o in outcomes if o[1][0] == 'meta'
                  and o[0] == 'ok') == keys
    added = [o[1][1] for o in outcomes if o[1][0] == 'tag' and o[0] == 'ok']
    assert len(added) == 10
    rec = cell_rows.get_record(nova_context.get_admin_context(), uuid)
    assert sorted(rec['metadata']) == keys + ['old']
    assert len(rec['tags']) == 50
    assert sorted(t for t in rec['tags'] if t.startswith('new')) == \
        sorted(added)
