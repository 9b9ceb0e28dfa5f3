"""Listing servers across two cells and the build requests: one sorted
merge with a global marker, filters, down cells, and a statement count
that does not grow with the page, on rows written with chosen times
(see `spread`). The ip and column filters, the 2.47 flavor and deleted
servers on booted servers: test_servers_list_booted.py."""
import datetime
import time

import pytest

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as cell_rows
from nova_lite import objects
from tests.conftest import set_override
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf
from tests.functional.db.flavor_helpers import QueryCounter

T0 = sf.T0


def at(minutes):
    return T0 + datetime.timedelta(minutes=minutes)


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def small(env):
    return sf.flavor(env.ctxt, 'small')


@pytest.fixture
def spread(env, small):
    """Nine servers of project-a, alternating cell1/cell2 by creation
    time, a build request (newest), one hidden copy and one server of
    another project. Returns the visible uuids, newest first.

    seeded: the order, marker and changes-since checks need creation
    and update times minutes apart (boots land within the same seconds),
    a build request that stays one, and a hidden row no API writes."""
    uuids = []
    for i in range(9):
        uuids.append(sf.add_server(env, 'cell1' if i % 2 else 'cell2',
                                   small, created_at=at(i),
                                   updated_at=at(i),
                                   display_name='s%d' % i))
    uuids.append(sf.add_build_request(env, small, created_at=at(20)))
    sf.add_server(env, 'cell1', small, created_at=at(30), hidden=True)
    sf.add_server(env, 'cell2', small, project_id='project-b',
                  created_at=at(31))
    return uuids[::-1]


def ids(response):
    return [s['id'] for s in response.json['servers']]


def list_all(app, path, token=MEMBER, v=None, limit=3):
    """Follow next links from path; returns the ids in order."""
    found, url = [], '%s?limit=%d' % (path, limit)
    while url:
        response = app.get(url, headers=headers(v, token))
        found.extend(ids(response))
        links = response.json.get('servers_links')
        url = links[0]['href'].split('http://localhost', 1)[-1] \
            if links else None
    return found


def test_pages_merge_cells_and_build_requests_in_order(app, spread):
    assert ids(app.get('/v2.1/servers', headers=MEMBER)) == spread
    assert list_all(app, '/v2.1/servers') == spread
    assert list_all(app, '/v2.1/servers/detail', limit=4) == spread
    page = app.get('/v2.1/servers?limit=3&marker=%s' % spread[4],
                   headers=MEMBER)
    assert ids(page) == spread[5:8]
    # A build request as the marker.
    page = app.get('/v2.1/servers?limit=2&marker=%s' % spread[0],
                   headers=MEMBER)
    assert ids(page) == spread[1:3]


def test_sort_keys_and_directions(app, spread):
    asc = ids(app.get('/v2.1/servers?sort_key=created_at&sort_dir=asc',
                      headers=MEMBER))
    assert asc == spread[::-1]
    names = app.get('/v2.1/servers/detail?sort_key=display_name'
                    '&sort_dir=asc&limit=4', headers=MEMBER).json['servers']
    assert [s['name'] for s in names] == ['building', 's0', 's1', 's2']
    # Members may not sort by host; ignored keys are dropped.
    app.get('/v2.1/servers?sort_key=host', headers=MEMBER, status=403)
    assert ids(app.get('/v2.1/servers?sort_key=vcpus',
                       headers=MEMBER)) == spread


def test_unknown_marker_is_400(app, spread):
    error = app.get('/v2.1/servers?marker=nope', headers=MEMBER,
                    status=400).json
    assert 'nope' in error['badRequest']['message']


def test_filters(app, env, spread, small):
    assert ids(app.get('/v2.1/servers?name=^s[12]$', headers=MEMBER)) == [
        spread[7], spread[8]]
    named = ids(app.get('/v2.1/servers?name=s1', headers=MEMBER))
    assert named == [spread[8]]
    assert ids(app.get('/v2.1/servers?status=BUILD', headers=MEMBER)) == [
        spread[0]]
    assert ids(app.get('/v2.1/servers?status=bogus', headers=MEMBER)) == []
    app.get('/v2.1/servers?status=bogus', headers=headers('2.38', MEMBER),
            status=400)
    assert ids(app.get('/v2.1/servers?flavor=nosuch', headers=MEMBER)) == []
    assert len(ids(app.get('/v2.1/servers?flavor=small',
                           headers=MEMBER))) == 10
    since = ids(app.get('/v2.1/servers?changes-since=2026-01-01T00:07:00Z',
                        headers=MEMBER))
    # s7, s8 and the build request changed at or after 00:07.
    assert since == spread[:3]
    app.get('/v2.1/servers?changes-since=yesterday', headers=MEMBER,
            status=400)


def test_admin_filters_ignored_for_members(app, spread):
    # host is an administrator's filter: ignored for a member.
    assert ids(app.get('/v2.1/servers?host=nowhere', headers=MEMBER)) == \
        spread
    assert ids(app.get('/v2.1/servers?host=nowhere', headers=ADMIN)) == []
    app.get('/v2.1/servers?all_tenants=1', headers=MEMBER, status=403)
    everyone = ids(app.get('/v2.1/servers?all_tenants=1', headers=ADMIN))
    assert len(everyone) == 11 and set(spread) < set(everyone)
    project_b = ids(app.get('/v2.1/servers?all_tenants=1'
                            '&project_id=project-b', headers=ADMIN))
    assert len(project_b) == 1


def test_unknown_filters_ignored_until_275(app, spread):
    assert ids(app.get('/v2.1/servers?foo=bar',
                       headers=headers('2.74', MEMBER))) == spread
    error = app.get('/v2.1/servers?foo=bar', headers=headers('2.75', MEMBER),
                    status=400).json
    assert 'foo' in error['badRequest']['message']


def test_a_build_request_and_its_cell_copy_are_listed_once(app, env, small):
    # seeded: the moment a build request and its cell copy both exist
    # lasts milliseconds on a running plane.
    uuid = sf.add_build_request(env, small)
    # Scheduled: the cell copy exists before the build request is gone.
    with nova_context.target_cell(env.ctxt, env.cells['cell2']) as cctxt:
        cell_rows.create(cctxt, dict(uuid=uuid, project_id='project-a',
                                     user_id='bob', vm_state='building',
                                     task_state='spawning',
                                     display_name='building',
                                     created_at=T0),
                         flavor=sf.snapshot(small))
    body = app.get('/v2.1/servers/detail', headers=MEMBER).json['servers']
    assert [s['id'] for s in body] == [uuid]
    assert body[0]['OS-EXT-STS:task_state'] == 'spawning'


# --- down cells ------------------------------------------------------------

def test_down_cell_below_and_from_269(app, seeded, env, spread, small):
    in_cell2 = [u for i, u in enumerate(spread[1:]) if (8 - i) % 2 == 0]
    sf.add_request_spec(env, in_cell2[0], small)
    seeded.break_cell('cell2')
    below = ids(app.get('/v2.1/servers', headers=headers('2.68', MEMBER)))
    assert below == [u for u in spread if u not in in_cell2]
    listed = app.get('/v2.1/servers', headers=headers('2.69', MEMBER)).json
    down = [s for s in listed['servers'] if s.get('status') == 'UNKNOWN']
    assert sorted(s['id'] for s in down) == sorted(in_cell2)
    assert set(down[0]) == {'id', 'status', 'links'}
    detail = app.get('/v2.1/servers/detail',
                     headers=headers('2.69', MEMBER)).json['servers']
    minimal = [s for s in detail if s['status'] == 'UNKNOWN']
    assert set(minimal[0]) == {'id', 'status', 'tenant_id', 'created',
                               'links'}
    # Paging runs through the down cell's servers too.
    assert sorted(list_all(app, '/v2.1/servers/detail', v='2.69')) == \
        sorted(spread)
    # Show: 503 below 2.69, the minimal construct from 2.69.
    error = app.get('/v2.1/servers/%s' % in_cell2[0], headers=MEMBER,
                    status=503).json
    assert error['serviceUnavailable']['code'] == 503
    shown = app.get('/v2.1/servers/%s' % in_cell2[0],
                    headers=headers('2.71', MEMBER)).json['server']
    assert shown['status'] == 'UNKNOWN' and shown['server_groups'] == []
    assert shown['flavor']['original_name'] == 'm1.small'
    assert shown['image']['id'] == 'image-1'
    assert shown['OS-EXT-AZ:availability_zone'] == 'UNKNOWN'
    assert shown['user_id'] == 'bob'
    assert shown['OS-EXT-STS:power_state'] == 0


# --- statements ------------------------------------------------------------

def _statements(app, env, path):
    engines = api_db.get_engines()
    for name in ('cell0', 'cell1', 'cell2'):
        with nova_context.target_cell(env.ctxt, env.cells[name]) as cctxt:
            engines.extend(main_db.get_engines(cctxt))
    with QueryCounter(*engines) as counter:
        app.get(path, headers=headers('2.47', ADMIN))
    return counter.count


def test_statements_do_not_grow_with_the_page(app, env, small):
    def fill(n, start):
        for i in range(n):
            sf.add_server(env, 'cell1' if i % 2 else 'cell2', small,
                          created_at=at(start + i), metadata={'i': str(i)},
                          tags=['t'], network_info=sf.network_info(
                              '10.0.%d.%d' % (i // 250, i % 250 + 1)))
    fill(10, 0)
    path = '/v2.1/servers/detail?all_tenants=1&limit=200'
    small_page = _statements(app, env, path)
    fill(190, 100)
    big_page = _statements(app, env, path)
    assert len(app.get(path, headers=ADMIN).json['servers']) == 200
    # API DB: cells, build requests; per cell: the page, metadata,
    # system metadata, tags, compute services (host_status).
    assert big_page == small_page <= 20, (small_page, big_page)


def test_a_cell_that_does_not_answer_in_time_is_left_out(app, seeded, env,
                                                         spread):
    """cell2's database is unreachable (its packets go nowhere): the list
    answers once [api] list_cell_timeout has passed, without cell2's
    servers below 2.69 and with them as UNKNOWN from 2.69."""
    # The healthy cells' connections are made before the clock starts, and
    # the timeout leaves them room on a loaded machine: only cell2 (whose
    # changed URL replaces its cached connection) may miss it.
    assert len(ids(app.get('/v2.1/servers',
                           headers=headers('2.68', MEMBER)))) == len(spread)
    set_override('list_cell_timeout', 3, group='api')
    cell = objects.CellMapping.get_by_uuid(env.ctxt, env.cells['cell2'].uuid)
    cell.database_connection = (
        'mysql+pymysql://nova:nova@10.255.255.1:3306/nova'
        '?connect_timeout=30')
    cell.save()
    started = time.monotonic()
    below = ids(app.get('/v2.1/servers', headers=headers('2.68', MEMBER)))
    assert time.monotonic() - started < 10
    in_cell2 = [u for i, u in enumerate(spread[1:]) if (8 - i) % 2 == 0]
    assert below == [u for u in spread if u not in in_cell2]
    listed = app.get('/v2.1/servers', headers=headers('2.69', MEMBER))
    unknown = [s for s in listed.json['servers']
               if s.get('status') == 'UNKNOWN']
    assert sorted(s['id'] for s in unknown) == sorted(in_cell2)
    assert set(ids(listed)) == set(spread)
