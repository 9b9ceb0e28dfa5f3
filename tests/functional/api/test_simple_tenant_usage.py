"""os-simple-tenant-usage over servers written into both cells: the
window, deleted servers, every project or one, paging (2.40) and the
statements a report costs (independent of the number of servers)."""
import datetime

from nova_lite.api.openstack.compute import simple_tenant_usage
from nova_lite.conf import CONF
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf
from tests.functional.api.test_listing_page_reads import _counter

T0 = sf.T0
HOUR = datetime.timedelta(hours=1)
WINDOW = 'start=2026-01-01T00:00:00&end=2026-01-01T10:00:00'
URL = '/v2.1/os-simple-tenant-usage'


def _servers(env, flavor):
    """project-a: one running all along (cell1), one deleted after 4
    hours (cell2), one gone before the window, one launched after it;
    project-b: one launched 5 hours in (cell2)."""
    return {
        'running': sf.add_server(env, 'cell1', flavor, created_at=T0 - HOUR,
                                 launched_at=T0 - HOUR),
        'deleted': sf.add_server(env, 'cell2', flavor, created_at=T0,
                                 launched_at=T0, vm_state='deleted',
                                 terminated_at=T0 + 4 * HOUR, deleted=1),
        'before': sf.add_server(env, 'cell1', flavor, created_at=T0 - HOUR,
                                launched_at=T0 - 2 * HOUR,
                                terminated_at=T0 - HOUR, deleted=1),
        'after': sf.add_server(env, 'cell1', flavor,
                               launched_at=T0 + 11 * HOUR),
        'other': sf.add_server(env, 'cell2', flavor, project_id='project-b',
                               launched_at=T0 + 5 * HOUR),
    }


def test_usage_of_every_project_and_of_one(app, seeded):
    env = seeded.env
    flavor = sf.flavor(env.ctxt, 'small', memory_mb=512, vcpus=2,
                       root_gb=3, ephemeral_gb=1)
    servers = _servers(env, flavor)
    body = app.get('%s?%s' % (URL, WINDOW), headers=ADMIN).json
    a, b = body['tenant_usages']
    assert a == {'tenant_id': 'project-a', 'total_hours': 14.0,
                 'total_vcpus_usage': 28.0, 'total_memory_mb_usage': 7168.0,
                 'total_local_gb_usage': 56.0,
                 'start': '2026-01-01T00:00:00.000000',
                 'stop': '2026-01-01T10:00:00.000000'}
    assert (b['tenant_id'], b['total_hours']) == ('project-b', 5.0)
    assert 'tenant_usages_links' not in body

    shown = app.get('%s/project-a?%s' % (URL, WINDOW),
                    headers=MEMBER).json['tenant_usage']
    usages = {u['instance_id']: u for u in shown['server_usages']}
    assert set(usages) == {servers['running'], servers['deleted']}
    deleted = usages[servers['deleted']]
    assert deleted == {
        'instance_id': servers['deleted'], 'tenant_id': 'project-a',
        'name': 'server-' + servers['deleted'][:8], 'flavor': 'm1.small',
        'hours': 4.0, 'memory_mb': 512, 'local_gb': 4, 'vcpus': 2,
        'started_at': '2026-01-01T00:00:00.000000',
        'ended_at': '2026-01-01T04:00:00.000000', 'state': 'terminated',
        'uptime': 4 * 3600}
    assert usages[servers['running']]['state'] == 'active'
    assert usages[servers['running']]['ended_at'] is None
    # Nothing used: an empty usage.
    assert app.get('%s/project-c?%s' % (URL, WINDOW),
                   headers=ADMIN).json == {'tenant_usage': {}}
    # detailed=1 lists the servers in every project's usage.
    detailed = app.get('%s?%s&detailed=1' % (URL, WINDOW),
                       headers=ADMIN).json['tenant_usages']
    assert [len(t['server_usages']) for t in detailed] == [2, 1]


def test_policy_and_bad_input(app, seeded):
    resp = app.get('%s?%s' % (URL, WINDOW), headers=MEMBER, status=403)
    assert resp.json['forbidden']['code'] == 403
    app.get('%s/project-b?%s' % (URL, WINDOW), headers=MEMBER, status=403)
    for query in ('start=yesterday', 'start=2026-01-02T00:00:00&end='
                  '2026-01-01T00:00:00', 'start=2026-01-01T00:00:00Z'):
        resp = app.get('%s?%s' % (URL, query), headers=ADMIN, status=400)
        assert resp.json['badRequest']['code'] == 400
    for bad in ('limit=-1', 'limit=x', 'marker=nope'):
        app.get('%s?%s&%s' % (URL, WINDOW, bad), headers=headers('2.40'),
                status=400)
    # Below 2.40 limit and marker are ignored, as unknown parameters.
    body = app.get('%s?%s&limit=x&foo=1' % (URL, WINDOW),
                   headers=headers('2.39')).json
    assert body == {'tenant_usages': []}


def test_empty_tenant_id_is_not_found(app, seeded):
    # Tempest's TenantUsagesNegativeTestJSON: the show URL with an empty
    # project id (a trailing slash) is a 404 in Nova 34, not the list.
    for url in ('%s/?%s' % (URL, WINDOW), '%s/' % URL):
        resp = app.get(url, headers=ADMIN, status=404)
        assert resp.json['itemNotFound']['code'] == 404
    app.get('%s?%s' % (URL, WINDOW), headers=ADMIN, status=200)


def test_pages_walk_both_cells_in_project_and_uuid_order(app, seeded):
    env = seeded.env
    flavor = sf.flavor(env.ctxt, 'small')
    uuids = sorted(
        ('project-a' if i % 2 else 'project-b', sf.add_server(
            env, 'cell1' if i % 3 else 'cell2', flavor,
            project_id='project-a' if i % 2 else 'project-b'))
        for i in range(7))
    found, query = [], WINDOW + '&detailed=1&limit=3'
    while True:
        body = app.get('%s?%s' % (URL, query), headers=headers('2.40')).json
        page = [(t['tenant_id'], u['instance_id'])
                for t in body['tenant_usages'] for u in t['server_usages']]
        found.extend(page)
        links = body.get('tenant_usages_links')
        if not links:
            assert len(page) < 3
            break
        href = links[0]['href']
        assert href.startswith('http://localhost/v2.1/%s?'
                               % simple_tenant_usage.COLLECTION)
        query = href.split('?', 1)[1]
    assert found == uuids
    own = app.get('%s/project-a?%s&limit=2' % (URL, WINDOW),
                  headers=headers('2.40')).json
    assert len(own['tenant_usage']['server_usages']) == 2
    assert '/os-simple-tenant-usage/project-a?' in own[
        'tenant_usage_links'][0]['href']


def test_below_240_nova_stops_at_max_limit_without_links(app, seeded):
    """No paging below 2.40, but as in Nova at most [api] max_limit
    servers, and no links."""
    env = seeded.env
    flavor = sf.flavor(env.ctxt, 'small')
    for i in range(3):
        sf.add_server(env, 'cell1' if i % 2 else 'cell2', flavor)
    CONF.set_override('max_limit', 2, group='api')
    try:
        body = app.get('%s?%s&detailed=1' % (URL, WINDOW),
                       headers=headers('2.39')).json
        own = app.get('%s/project-a?%s' % (URL, WINDOW),
                      headers=headers('2.1')).json
    finally:
        CONF.clear_override('max_limit', group='api')
    assert sum(len(t['server_usages']) for t in body['tenant_usages']) == 2
    assert 'tenant_usages_links' not in body
    assert len(own['tenant_usage']['server_usages']) == 2
    assert 'tenant_usage_links' not in own


def test_statements_do_not_depend_on_the_number_of_servers(app, seeded):
    env = seeded.env
    flavor = sf.flavor(env.ctxt, 'small')
    counts = []
    for n in (2, 12):
        for i in range(n - (counts and 2 or 0)):
            sf.add_server(env, 'cell1' if i % 2 else 'cell2', flavor)
        counter = _counter(env)
        with counter.counting():
            body = app.get('%s?%s&detailed=1' % (URL, WINDOW),
                           headers=ADMIN).json
        assert sum(len(t['server_usages'])
                   for t in body['tenant_usages']) == n
        counts.append(dict(counter.counts))
    assert counts[0] == counts[1]
    # The cells (API DB); one page per cell.
    assert counts[0] == {'api': 1, 'cell1': 1, 'cell2': 1}
