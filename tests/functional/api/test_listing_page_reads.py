"""Listings read what their page needs, not every row of every cell
(tools/bench/scale.py measured both at 10 cells x 1,000 nodes):
os-hypervisors with a limit or marker reads only the cells and nodes of
its page, and a server listing's host_status reads only the compute
services of the page's hosts."""
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api import server_fixtures as sf
from tests.functional.db import inventory_helpers as h

ALL_HOSTS = ['c1-host1', 'c1-host2', 'c1-host3', 'c2-host1', 'c2-host2']


def _counter(env):
    engines = {'api': api_db.get_engines()}
    for name in ('cell1', 'cell2'):
        with nova_context.target_cell(env.ctxt, env.cells[name]) as cctxt:
            engines[name] = main_db.get_engines(cctxt)
    return h.StatementCounter(**engines)


def _names(body):
    return [hyp['hypervisor_hostname'].split('.')[0]
            for hyp in body['hypervisors']]


def test_a_hypervisor_page_reads_its_cells_and_nodes_only(app, seeded):
    env = seeded.env
    path = '/v2.1/os-hypervisors/detail?limit=2'
    app.get(path, headers=headers('2.53'))           # warm caches
    counter = _counter(env)
    with counter.counting():
        body = app.get(path, headers=headers('2.53')).json
    assert _names(body) == ['c1-host1', 'c1-host2']
    # cell1 fills the page: cell2 is not asked at all.
    assert counter.counts['cell2'] == 0, counter.statements['cell2']
    nodes, services = counter.statements['cell1']
    assert 'LIMIT' in nodes.upper()
    assert 'services.host IN' in services, services


def test_hypervisor_pages_walk_every_cell_in_order(app, seeded):
    for v, key in (('2.33', 'id'), ('2.53', 'id')):
        found, query = [], '?limit=2'
        while True:
            body = app.get('/v2.1/os-hypervisors/detail' + query,
                           headers=headers(v)).json
            found.extend(_names(body))
            if len(body['hypervisors']) < 2:
                break
            query = '?limit=2&marker=%s' % body['hypervisors'][-1][key]
            if v == '2.33' and found[-1].startswith('c2'):
                break      # integer ids repeat across cells before 2.53
        expected = ALL_HOSTS if v == '2.53' else ALL_HOSTS[:4]
        assert found[:len(expected)] == expected, (v, found)
    full = app.get('/v2.1/os-hypervisors/detail',
                   headers=headers('2.53')).json
    marker = full['hypervisors'][2]['id']
    rest = app.get('/v2.1/os-hypervisors/detail?marker=%s' % marker,
                   headers=headers('2.53')).json
    assert _names(rest) == ALL_HOSTS[3:]


def test_host_status_reads_the_services_of_the_page_only(app, seeded):
    env = seeded.env
    small = sf.flavor(env.ctxt, 'small')
    uuid = sf.add_server(env, 'cell1', small, host='c1-host2',
                         node='c1-host2.example.org')
    path = '/v2.1/servers/detail?all_tenants=1&limit=1'
    app.get(path, headers=headers('2.16', ADMIN))
    counter = _counter(env)
    with counter.counting():
        body = app.get(path, headers=headers('2.16', ADMIN)).json
    [server] = body['servers']
    assert server['id'] == uuid and server['host_status'] == 'UP'
    reads = [s for s in counter.statements['cell1'] if 'services' in s]
    assert len(reads) == 1 and 'services.host IN' in reads[0], reads


def test_pages_in_the_default_order_keep_ties_in_uuid_order(app, seeded):
    """The cells' pages are read in created_at order from the index and
    the rows sharing the page's last created_at completed and ordered by
    uuid: servers created in the same second, in both cells, page in
    (created_at, uuid) order with none lost or repeated."""
    env = seeded.env
    small = sf.flavor(env.ctxt, 'small')
    same, later = sf.T0, sf.T0.replace(minute=sf.T0.minute + 1)
    uuids = [sf.add_server(env, 'cell1' if i % 3 else 'cell2', small,
                           created_at=same) for i in range(7)]
    newest = sf.add_server(env, 'cell1', small, created_at=later)
    expected = [newest] + sorted(uuids, reverse=True)
    for limit in (1, 2, 3, 5):
        found, query = [], '?all_tenants=1&limit=%d' % limit
        while True:
            body = app.get('/v2.1/servers/detail' + query,
                           headers=headers('2.47')).json
            found.extend(s['id'] for s in body['servers'])
            if len(body['servers']) < limit:
                break
            query = '?all_tenants=1&limit=%d&marker=%s' % (limit,
                                                       found[-1])
        assert found == expected, limit
    ascending = app.get('/v2.1/servers?all_tenants=1&sort_dir=asc&limit=4',
                        headers=headers('2.47')).json
    assert [s['id'] for s in ascending['servers']] == expected[::-1][:4]


def test_pinned_zones_of_a_page_are_read_in_one_query(app, seeded):
    """2.96: a detail page reads its servers' request specs (their
    pinned zones) in one API DB statement, however many servers."""
    env = seeded.env
    small = sf.flavor(env.ctxt, 'small')
    uuids = {sf.add_server(env, 'cell1' if i % 2 else 'cell2', small)
             for i in range(6)}
    path = '/v2.1/servers/detail?all_tenants=1'
    app.get(path, headers=headers('2.96', ADMIN))
    counter = _counter(env)
    with counter.counting():
        body = app.get(path, headers=headers('2.96', ADMIN)).json
    assert {s['id'] for s in body['servers']} == uuids
    # Written straight into the cells, they have no request spec: unpinned.
    assert {s['pinned_availability_zone'] for s in body['servers']} == {
        None}
    reads = [s for s in counter.statements['api'] if 'request_specs' in s]
    assert len(reads) == 1 and 'IN' in reads[0], reads
    before = app.get(path, headers=headers('2.95', ADMIN)).json['servers']
    assert all('pinned_availability_zone' not in s for s in before)
