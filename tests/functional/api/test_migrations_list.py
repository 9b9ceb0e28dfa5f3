"""GET /os-migrations and GET /servers/{id}/migrations[/{id}] through the
REST API, on migration records written into both cells (the records the
resize flow writes are its own tests' business): every filter, the
microversions that change them (2.23, 2.59, 2.66, 2.80), paging across
cells, hidden records, a cell that does not answer, statements per
request."""
from urllib import parse

import pytest

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import policy
from tests.conftest import set_override
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import migration_fixtures as mf
from tests.functional.api import server_fixtures as sf
from tests.functional.db.flavor_helpers import QueryCounter

OTHER = {'X-Auth-Token': 'eve:project-b'}
MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'
V20_FIELDS = {'id', 'instance_uuid', 'status', 'old_instance_type_id',
              'new_instance_type_id', 'source_compute', 'source_node',
              'dest_compute', 'dest_node', 'dest_host', 'created_at',
              'updated_at'}
HOST_FIELDS = ('source_compute', 'source_node', 'dest_compute', 'dest_node',
               'dest_host')


def get(app, path, version='2.1', token=ADMIN, status=200):
    return app.get('/v2.1' + path, headers=headers(version, token),
                   status=status)


def listed(app, query='', version='2.80'):
    return get(app, '/os-migrations' + query, version).json['migrations']


def ids(body):
    return [m['uuid'] for m in body]


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def server(env):
    return sf.add_server(env, 'cell1', sf.flavor(env.ctxt, 'small'),
                         host='c1-host1')


@pytest.fixture
def records(env, server):
    """Migrations of both cells, newest first as the API lists them (the
    hidden and the deleted ones left out)."""
    add = mf.add_migration
    add(env, 'cell1', 9, hidden=True, migration_type='migration')
    add(env, 'cell2', 8, deleted=1)
    live = add(env, 'cell1', 7, instance_uuid=server,
               migration_type='live-migration', status='running',
               source_compute='c1-host1', dest_compute='c1-host3')
    evacuation = add(env, 'cell2', 6, migration_type='evacuation',
                     status='done', source_compute='c2-host2',
                     dest_compute='c2-host1', user_id='eve',
                     project_id='project-b')
    # Same created_at in both cells: the cell's id, then the uuid decide.
    moved = add(env, 'cell1', 5, migration_type='migration',
                status='confirmed', source_compute='c1-host2',
                dest_compute='c1-host3')
    resized = add(env, 'cell2', 5, source_compute='c2-host1',
                  dest_compute='c2-host2', status='error')
    done_live = add(env, 'cell2', 3, migration_type='live-migration',
                    status='completed', source_compute='c2-host1',
                    dest_compute='c2-host2')
    of_server = add(env, 'cell1', 1, instance_uuid=server)
    same = sorted([moved, resized], key=lambda r: (r['id'], r['uuid']),
                  reverse=True)
    return [live, evacuation, *same, done_live, of_server]


def test_list_at_21_has_the_v20_fields_newest_first(app, records):
    body = get(app, '/os-migrations').json
    assert set(body) == {'migrations'}
    assert [set(m) for m in body['migrations']] == [V20_FIELDS] * 6
    assert [m['id'] for m in body['migrations']] == [
        r['id'] for r in records]
    first = body['migrations'][0]
    assert first['created_at'] == '2026-01-01T00:07:00.000000'
    assert (first['source_compute'], first['dest_compute']) == (
        'c1-host1', 'c1-host3')


def test_migration_type_and_live_links_from_223(app, records, server):
    assert 'migration_type' not in get(app, '/os-migrations', '2.22').json[
        'migrations'][0]
    body = get(app, '/os-migrations', '2.23').json['migrations']
    assert [m['migration_type'] for m in body] == [
        r['migration_type'] for r in records]
    # Links only for the in-progress live migration.
    assert ['links' in m for m in body] == [True] + [False] * 5
    path = 'servers/%s/migrations/%d' % (server, records[0]['id'])
    assert body[0]['links'] == [
        {'rel': 'self', 'href': 'http://localhost/v2.1/' + path},
        {'rel': 'bookmark', 'href': 'http://localhost/' + path}]
    assert 'uuid' not in body[0]


def test_paging_uuid_and_strict_query_from_259(app, records):
    at_258 = get(app, '/os-migrations?limit=1&bogus=1', '2.58').json
    assert len(at_258['migrations']) == 6
    assert 'migrations_links' not in at_258
    body = get(app, '/os-migrations?limit=2', '2.59').json
    assert ids(body['migrations']) == [r['uuid'] for r in records[:2]]
    link = parse.urlsplit(body['migrations_links'][0]['href'])
    assert link.path == '/v2.1/os-migrations'
    assert parse.parse_qs(link.query) == {
        'limit': ['2'], 'marker': [records[1]['uuid']]}
    fault = get(app, '/os-migrations?bogus=1', '2.59', status=400).json
    assert 'bogus' in fault['badRequest']['message']
    fault = get(app, '/os-migrations?limit=-1', '2.59', status=400).json
    assert 'limit' in fault['badRequest']['message']
    assert get(app, '/os-migrations?limit=0', '2.59').json == {
        'migrations': []}
    fault = get(app, '/os-migrations?marker=nope', '2.59', status=400).json
    assert fault['badRequest']['message'] == \
        'Marker nope could not be found.'


def test_limit_one_walks_every_record_once_in_order(app, records):
    seen, path = [], '/os-migrations?limit=1'
    while True:
        body = get(app, path, '2.59').json
        seen.extend(ids(body['migrations']))
        if 'migrations_links' not in body:
            break
        href = body['migrations_links'][0]['href']
        path = href[href.index('/os-migrations'):]
    assert seen == [r['uuid'] for r in records]


def test_changes_since_from_259_and_before_from_266(app, records):
    since = '?changes-since=2026-01-01T00:05:00Z'
    assert len(listed(app, since, '2.58')) == 6   # ignored before 2.59
    assert ids(listed(app, since, '2.59')) == [
        r['uuid'] for r in records[:4]]
    before = '?changes-before=2026-01-01T00:05:00'
    get(app, '/os-migrations' + before, '2.65', status=400)
    assert ids(listed(app, before, '2.66')) == [
        r['uuid'] for r in records[2:]]
    both = since + '&' + before[1:]
    assert ids(listed(app, both, '2.66')) == [
        r['uuid'] for r in records[2:4]]
    fault = get(app, '/os-migrations?changes-since=2026-01-02T00:00:00&'
                'changes-before=2026-01-01T00:00:00', '2.66',
                status=400).json
    assert 'changes-since' in fault['badRequest']['message']
    fault = get(app, '/os-migrations?changes-since=yesterday', '2.59',
                status=400).json
    assert 'changes-since' in fault['badRequest']['message']


def test_user_and_project_from_280(app, records):
    get(app, '/os-migrations?project_id=project-b', '2.79', status=400)
    # Before 2.59 Nova's query takes them (every parameter goes through).
    assert [m['id'] for m in get(app, '/os-migrations?project_id=project-b',
                                 '2.58').json['migrations']] == [
        records[1]['id']]
    assert 'user_id' not in listed(app, '', '2.79')[0]
    body = listed(app, '?project_id=project-b', '2.80')
    assert ids(body) == [records[1]['uuid']]
    assert (body[0]['user_id'], body[0]['project_id']) == (
        'eve', 'project-b')
    assert ids(listed(app, '?user_id=bob')) == [
        r['uuid'] for r in records if r['user_id'] == 'bob']


def test_filters(app, records, server):
    cases = [
        ('?status=error', lambda r: r['status'] == 'error'),
        ('?migration_type=live-migration',
         lambda r: r['migration_type'] == 'live-migration'),
        ('?source_compute=c1-host2',
         lambda r: r['source_compute'] == 'c1-host2'),
        # host: source or destination; source_compute is then ignored.
        ('?host=c2-host1&source_compute=c1-host2',
         lambda r: 'c2-host1' in (r['source_compute'], r['dest_compute'])),
        ('?instance_uuid=' + server, lambda r: r['instance_uuid'] == server),
        ('?hidden=1', lambda r: True),
    ]
    for query, expected in cases:
        assert ids(listed(app, query)) == [
            r['uuid'] for r in records if expected(r)], query
    assert [m['id'] for m in get(app, '/os-migrations?status=error&'
                                 'host=c2-host1', '2.1').json[
        'migrations']] == [r['id'] for r in records
                           if r['status'] == 'error']


def test_only_administrators_list_and_show(app, records, server):
    """Members and other projects: 403, and 404 for another project's
    server (the project's managers are in the policy table)."""
    for token in (MEMBER, OTHER):
        fault = get(app, '/os-migrations', '2.80', token, 403).json
        assert fault['forbidden']['code'] == 403
    path = '/servers/%s/migrations' % server
    get(app, path, '2.23', MEMBER, 403)
    get(app, path, '2.23', OTHER, 404)
    get(app, '%s/%d' % (path, records[0]['id']), '2.23', MEMBER, 403)
    get(app, '/servers/%s/migrations' % MISSING, '2.23', status=404)


def test_hosts_are_null_without_the_host_rules(app, records, server,
                                              tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(
        '"os_compute_api:os-migrations:index:host": "!"\n'
        '"os_compute_api:servers:migrations:index:host": "!"\n')
    set_override('policy_file', str(policy_file), group='oslo_policy')
    policy.reset()
    path = '/servers/%s/migrations' % server
    for body in (listed(app), get(app, path, '2.80').json['migrations']):
        assert {body[0][f] for f in HOST_FIELDS} == {None}
    # Showing one is for administrators: always with its hosts.
    shown = get(app, '%s/%d' % (path, records[0]['id']), '2.80').json
    assert shown['migration']['source_compute'] == 'c1-host1'


def test_a_cell_that_does_not_answer_is_left_out(app, seeded, records):
    in_cell1 = [r['uuid'] for r in records if r['cell'] == 'cell1']
    seeded.break_cell('cell2')
    assert ids(listed(app)) == in_cell1


def test_statements_do_not_grow_with_records(app, env, records):
    engines = api_db.get_engines()
    for cell in ('cell1', 'cell2'):
        with nova_context.target_cell(env.ctxt, env.cells[cell]) as cctxt:
            engines.extend(main_db.get_engines(cctxt))

    def statements(query):
        with QueryCounter(*engines) as counter:
            get(app, '/os-migrations' + query, '2.80')
        return counter.count

    queries = ('', '?limit=3', '?limit=2&marker=' + records[1]['uuid'])
    few = [statements(q) for q in queries]
    # The cells (API DB), a page per cell, and a marker lookup per cell.
    assert few == [3, 3, 5]
    for minute in range(40):
        mf.add_migration(env, ('cell1', 'cell2')[minute % 2],
                         -minute - 10)
    assert [statements(q) for q in queries] == few
    assert len(listed(app)) == 46


# --- /servers/{id}/migrations ------------------------------------------------

def test_server_without_live_migration_lists_none_from_223(app, server):
    get(app, '/servers/%s/migrations' % server, '2.22', status=404)
    get(app, '/servers/%s/migrations/1' % server, '2.22', status=404)
    assert get(app, '/servers/%s/migrations' % server, '2.23').json == {
        'migrations': []}


def test_server_lists_and_shows_in_progress_live_only(app, records,
                                                      server):
    live = records[0]
    body = get(app, '/servers/%s/migrations' % server, '2.80').json
    assert [m['id'] for m in body['migrations']] == [live['id']]
    shown = get(app, '/servers/%s/migrations/%d' % (server, live['id']),
                '2.80').json['migration']
    assert shown == body['migrations'][0]
    assert shown['server_uuid'] == server
    assert shown['uuid'] == live['uuid']
    assert shown['memory_total_bytes'] is None
    assert (shown['source_compute'], shown['dest_compute']) == (
        'c1-host1', 'c1-host3')
    assert 'uuid' not in get(app, '/servers/%s/migrations' % server,
                             '2.58').json['migrations'][0]


def test_show_of_no_in_progress_live_migration_is_404(app, env, records,
                                                      server):
    """A resize of the server, another server's migration in its cell,
    a finished live migration of the server, ids that are none."""
    def fault(migration_id):
        return get(app, '/servers/%s/migrations/%s' % (server, migration_id),
                   '2.23', status=404).json['itemNotFound']['message']

    resize, other = [
        [r['id'] for r in records if r['cell'] == 'cell1' and
         r['migration_type'] != 'live-migration' and
         (r['instance_uuid'] == server) == of_server][0]
        for of_server in (True, False)]
    assert fault(resize) == (
        'Migration %s for server %s is not live-migration.' % (resize,
                                                              server))
    assert fault(other) == (
        'In-progress live migration %s is not found for server %s.' % (
            other, server))
    done = mf.add_migration(env, 'cell1', 2, instance_uuid=server,
                            migration_type='live-migration',
                            status='completed')
    assert fault(done['id']) == (
        'Live migration %s for server %s is not in progress.' % (
            done['id'], server))
    for bad in ('abc', '99999999999999999999'):
        assert 'is not found' in fault(bad)
