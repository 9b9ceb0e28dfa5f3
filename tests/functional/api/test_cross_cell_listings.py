"""Listings during a cross-cell resize: the server and its migration
exist in both cells (same uuids), one copy hidden until the move swaps
which; for a moment both may be visible. GET /os-migrations (2.1, 2.23,
2.59 paging with a marker, 2.80 filters), /servers/{id}/migrations,
GET /servers and /servers/detail show each once.

The copies are written straight into the two cells of a running plane
(the resize flow that writes them is the conductor's tests' business)."""
import pytest
import sqlalchemy as sa
import webtest

from nova_lite.api import app as api_app
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as cell_instances
from nova_lite.db.main import models
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api import migration_fixtures as mf
from tests.functional.api import server_fixtures as sf

MEMBER = {'X-Auth-Token': 'carol:project-x'}
MIGRATIONS = models.Migration.__table__
INSTANCES = models.Instance.__table__


@pytest.fixture(scope='module')
def app(running):
    return webtest.TestApp(api_app.load_app())


@api_db.writer
def _map_to(context, uuid, cell_uuid):
    cell_id = context.session.execute(sa.select(
        api_models.CellMapping.id).where(
            api_models.CellMapping.uuid == cell_uuid)).scalar()
    context.session.execute(api_models.InstanceMapping.__table__.update()
                            .where(api_models.InstanceMapping.instance_uuid
                                   == uuid).values(cell_id=cell_id))


@main_db.writer
def _set_hidden(context, table, uuid, hidden):
    context.session.execute(table.update().where(
        table.c.uuid == uuid).values(hidden=hidden))


def hide(running, table, uuid, cell, hidden=True):
    with nova_context.target_cell(running.ctxt,
                                  running.cells[cell]) as cctxt:
        _set_hidden(cctxt, table, uuid, hidden)


class Move(object):
    """A server of project-x moving from cell1 to cell2: its instance
    and a resize migration and an in-progress live migration record (so
    that /servers/{id}/migrations lists one) in both cells; the target
    (cell2) copies hidden; the target's resize record is newer than
    the record listed between them (7), so the two copies list in
    different slots."""

    def __init__(self, running):
        self.running = running
        flavor = running.flavor()
        self.server = sf.add_server(running, 'cell1', flavor,
                                    project_id='project-x',
                                    user_id='carol', host='cell1-compute1')
        with nova_context.target_cell(running.ctxt,
                                      running.cells['cell2']) as cctxt:
            cell_instances.create(cctxt, dict(
                uuid=self.server, project_id='project-x', user_id='carol',
                display_name='copy', vm_state='active', power_state=1,
                host='cell2-compute1', node='cell2-compute1',
                image_ref='image-1', instance_type_id=flavor.id,
                launch_index=0, created_at=sf.T0, locked=False,
                progress=0, hostname='server', hidden=True),
                flavor=sf.snapshot(flavor))
        common = dict(instance_uuid=self.server, user_id='carol',
                      project_id='project-x', cross_cell_move=True,
                      source_compute='cell1-compute1',
                      dest_compute='cell2-compute1')
        add = mf.add_migration
        self.other = [add(running, 'cell2', 9), add(running, 'cell1', 7),
                      add(running, 'cell2', 3), add(running, 'cell1', 1)]
        self.src = add(running, 'cell1', 5, status='post-migrating',
                       **common)
        self.dst = add(running, 'cell2', 8, uuid=self.src['uuid'],
                       hidden=True, status='post-migrating', **common)
        live = dict(common, migration_type='live-migration',
                    status='running')
        self.live_src = add(running, 'cell1', 2, **live)
        self.live_dst = add(running, 'cell2', 2, uuid=self.live_src['uuid'],
                            hidden=True, **live)
        self.uuid = self.src['uuid']

    def set_visible(self, cell1, cell2):
        for cell, visible in (('cell1', cell1), ('cell2', cell2)):
            for table, uuid in ((MIGRATIONS, self.uuid),
                                (MIGRATIONS, self.live_src['uuid']),
                                (INSTANCES, self.server)):
                hide(self.running, table, uuid, cell, not visible)
        # The instance mapping swaps once the target copy is listed
        # (before the source copy is hidden).
        home = 'cell1' if not cell2 else 'cell2'
        _map_to(self.running.ctxt, self.server,
                self.running.cells[home].uuid)

    def order(self, listed):
        """uuids newest first as the list must show them, listed: the
        copy of the resize record that is listed."""
        a, b, c, d = (m['uuid'] for m in self.other)
        if listed is self.dst:
            return [a, self.uuid, b, c, self.live_src['uuid'], d]
        return [a, b, self.uuid, c, self.live_src['uuid'], d]


@pytest.fixture(scope='module')
def move(running):
    return Move(running)


def get(app, path, version='2.1', token=ADMIN):
    return app.get('/v2.1' + path, headers=headers(version, token)).json


def _pages(app, limit, version='2.59'):
    """Every page of /os-migrations at limit, following the markers."""
    seen, marker = [], None
    for _ in range(20):
        query = '?limit=%d' % limit + ('&marker=%s' % marker
                                        if marker else '')
        page = get(app, '/os-migrations' + query, version)['migrations']
        seen.extend(m['uuid'] for m in page)
        if len(page) < limit:
            return seen
        marker = page[-1]['uuid']
    raise AssertionError('paging does not end: %s' % seen)


STATES = {'source listed': (True, False),
          'both listed (the swap)': (True, True),
          'target listed': (False, True)}


@pytest.mark.parametrize('state', list(STATES))
def test_os_migrations_list_a_moving_record_once(app, move, state):
    move.set_visible(*STATES[state])
    listed_copy = move.dst if STATES[state][1] else move.src
    # 2.1 (no uuid): by id and instance; the record once, as its listed
    # copy (the newest when both are).
    body = get(app, '/os-migrations')['migrations']
    assert len(body) == 6
    ours = [m for m in body if m['instance_uuid'] == move.server
            and m['dest_compute'] == 'cell2-compute1'
            and m['status'] == 'post-migrating']
    assert [m['id'] for m in ours] == [listed_copy['id']]
    assert 'uuid' not in ours[0] and 'migration_type' not in ours[0]
    # 2.23 adds fields: still once.
    body = get(app, '/os-migrations', '2.23')['migrations']
    assert len(body) == 6
    assert [m['migration_type'] for m in body].count('live-migration') == 1
    # 2.59: uuids, paging (limit and marker) across the two copies.
    order = move.order(listed_copy)
    assert [m['uuid'] for m in get(app, '/os-migrations',
                                   '2.59')['migrations']] == order
    for limit in (1, 2, 3, 4):
        assert _pages(app, limit) == order, limit
    # The marker is the record's uuid, whichever copy was listed.
    after = get(app, '/os-migrations?marker=%s' % move.uuid,
                '2.59')['migrations']
    assert [m['uuid'] for m in after] == order[order.index(move.uuid) + 1:]
    # 2.80: the user and project filters.
    for query in ('?user_id=carol', '?project_id=project-x',
                  '?user_id=carol&project_id=project-x'):
        body = get(app, '/os-migrations' + query, '2.80')['migrations']
        assert [m['uuid'] for m in body] == [move.uuid,
                                             move.live_src['uuid']]
    assert _pages(app, 1, '2.80') == order
    # Filtered by the listed copy's status: still once.
    body = get(app, '/os-migrations?status=post-migrating',
               '2.80')['migrations']
    assert [m['uuid'] for m in body] == [move.uuid]


@pytest.mark.parametrize('state', list(STATES))
def test_server_migrations_list_once(app, move, state):
    move.set_visible(*STATES[state])
    for version in ('2.23', '2.59', '2.80'):
        body = get(app, '/servers/%s/migrations' % move.server, version,
                   ADMIN)['migrations']
        assert len(body) == 1, body
        if version != '2.23':
            assert body[0]['uuid'] == move.live_src['uuid']


@pytest.mark.parametrize('state', list(STATES))
def test_servers_list_a_moving_server_once(app, move, state):
    move.set_visible(*STATES[state])
    for path, token in (('/servers?all_tenants=1', ADMIN),
                        ('/servers/detail?all_tenants=1', ADMIN),
                        ('/servers', MEMBER), ('/servers/detail', MEMBER)):
        body = get(app, path, '2.80', token)['servers']
        assert [s['id'] for s in body].count(move.server) == 1, path
    # Paging across it.
    body = get(app, '/servers?all_tenants=1&limit=1', '2.80',
               ADMIN)['servers']
    assert [s['id'] for s in body] == [move.server]
    assert get(app, '/servers?all_tenants=1&marker=%s' % move.server,
               '2.80', ADMIN)['servers'] == []
