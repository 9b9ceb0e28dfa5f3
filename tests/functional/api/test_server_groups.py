"""Server groups through the REST API on a running plane (two cells of
two computes): os-server-groups at 2.1, 2.13, 2.15, 2.64 and 2.75; the
'group' scheduler hint (unknown or another project's group: 400;
multi-create joins every server); affinity, anti-affinity and
max_server_per_host kept on boot and on cold migration and resize (a
move that cannot keep it fails: no valid host); same_host and
different_host; server_groups in GET /servers/{id} at 2.71; members
leave their group when deleted."""
import concurrent.futures

import pytest

from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for
from tests.functional import notification_fixtures

OTHER = 'carol:project-b'
HOST = 'OS-EXT-SRV-ATTR:host'
MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'


@pytest.fixture(scope='module')
def api(running):  # noqa: F811
    body = {'flavor': {'name': 'medium', 'id': 'medium', 'ram': 1024,
                       'vcpus': 2, 'disk': 2}}
    assert running.api('POST', '/flavors', body,
                       token=ADMIN).status_code == 200
    return running.api


def _group(api, policy='anti-affinity', version='2.64', token=MEMBER,
           name='g', **rules):
    if version >= '2.64':
        body = {'name': name, 'policy': policy}
        if rules:
            body['rules'] = rules
    else:
        body = {'name': name, 'policies': [policy]}
    resp = api('POST', '/os-server-groups', {'server_group': body},
               version=version, token=token)
    assert resp.status_code == 200, resp.text
    return resp.json()['server_group']


def _boot(api, group=None, token=MEMBER, count=1, hints=None, **extra):
    body = _server(**extra)
    if count > 1:
        body['server'].update(min_count=count, max_count=count)
    hints = dict(hints or {})
    if group:
        hints['group'] = group
    if hints:
        body['os:scheduler_hints'] = hints
    return api('POST', '/servers', body, version='2.37', token=token)


def _settled(api, uuid, statuses=('ACTIVE', 'ERROR')):
    def done():
        server = api('GET', '/servers/%s' % uuid, version='2.71',
                     token=ADMIN).json()['server']
        return server if (server['status'] in statuses
                          and server['OS-EXT-STS:task_state'] is None) \
            else None
    return wait_for(done, timeout=30, message='%s settled' % uuid)


def _members(api, group_id):
    return api('GET', '/os-server-groups/%s' % group_id, version='2.64',
               token=ADMIN).json()['server_group']['members']


def _delete_all(api, uuids):
    for uuid in uuids:
        api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    for uuid in uuids:
        wait_for(lambda: api('GET', '/servers/%s' % uuid,
                             token=ADMIN).status_code == 404,
                 timeout=30, message='%s gone' % uuid)


def _computes(api):
    return sorted(s['host'] for s in api(
        'GET', '/os-services?binary=nova-compute',
        token=ADMIN).json()['services'])


def _set_enabled(api, hosts, enabled):
    for host in hosts:
        path = '/os-services/%s' % ('enable' if enabled else 'disable')
        assert api('PUT', path, {'host': host, 'binary': 'nova-compute'},
                   token=ADMIN).status_code == 200


# --- the API ----------------------------------------------------------------

def test_create_show_list_delete_across_microversions(api):
    old = _group(api, 'affinity', version='2.1', name='old')
    assert old == {'id': old['id'], 'name': 'old', 'policies': ['affinity'],
                   'members': [], 'metadata': {}}
    soft = _group(api, 'soft-anti-affinity', version='2.15')
    assert soft['policies'] == ['soft-anti-affinity']
    new = _group(api, 'anti-affinity', max_server_per_host=2)
    assert new == {'id': new['id'], 'name': 'g', 'policy': 'anti-affinity',
                   'rules': {'max_server_per_host': 2}, 'members': [],
                   'project_id': 'project-a', 'user_id': 'bob'}
    shown = api('GET', '/os-server-groups/%s' % old['id'],
                version='2.13').json()['server_group']
    assert shown['project_id'] == 'project-a' and \
        shown['policies'] == ['affinity']
    # Another project sees none of them (404), nor lists them.
    assert api('GET', '/os-server-groups/%s' % old['id'],
               token=OTHER).status_code == 404
    assert api('DELETE', '/os-server-groups/%s' % old['id'],
               token=OTHER).status_code == 404
    ids = {g['id'] for g in api('GET', '/os-server-groups',
                                token=OTHER).json()['server_groups']}
    assert not ids & {old['id'], new['id']}
    mine = [g['id'] for g in api('GET', '/os-server-groups').json()[
        'server_groups']]
    assert {old['id'], soft['id'], new['id']} <= set(mine)
    # all_projects: everyone's for administrators, one's own for others.
    theirs = _group(api, 'affinity', token=OTHER)
    everyone = [g['id'] for g in api(
        'GET', '/os-server-groups?all_projects=True',
        token=ADMIN).json()['server_groups']]
    assert {theirs['id'], old['id']} <= set(everyone)
    assert theirs['id'] not in [g['id'] for g in api(
        'GET', '/os-server-groups?all_projects=True').json()[
        'server_groups']]
    page = api('GET', '/os-server-groups?limit=1&offset=1').json()[
        'server_groups']
    assert [g['id'] for g in page] == mine[1:2]
    assert api('DELETE', '/os-server-groups/%s' % old['id'],
               token=MEMBER).status_code == 204
    assert api('GET', '/os-server-groups/%s' % old['id']).status_code == 404


@pytest.mark.parametrize('version,body,field', [
    ('2.1', {'name': 'x', 'policies': ['soft-affinity']}, 'policies'),
    ('2.1', {'name': 'x', 'policies': ['affinity', 'anti-affinity']},
     'policies'),
    ('2.1', {'name': 'x', 'policy': 'affinity'}, 'policies'),
    ('2.15', {'name': 'x', 'policies': []}, 'policies'),
    ('2.64', {'name': 'x', 'policies': ['affinity']}, 'policy'),
    ('2.64', {'name': 'x', 'policy': 'anti-affinity',
              'rules': {'max_server_per_host': 0}}, 'max_server_per_host'),
    ('2.64', {'name': 'x', 'policy': 'anti-affinity',
              'rules': {'other': 1}}, 'rules'),
    ('2.64', {'name': '', 'policy': 'affinity'}, 'name'),
])
def test_bad_bodies_are_400(api, version, body, field):
    resp = api('POST', '/os-server-groups', {'server_group': body},
               version=version)
    assert resp.status_code == 400, resp.text
    assert field in resp.json()['badRequest']['message']


def test_rules_belong_to_anti_affinity_and_reads_need_a_reader(api):
    resp = api('POST', '/os-server-groups', {'server_group': {
        'name': 'x', 'policy': 'affinity',
        'rules': {'max_server_per_host': 2}}}, version='2.64')
    assert resp.status_code == 400
    assert resp.json()['badRequest']['message'] == \
        'Only anti-affinity policy supports rules.'
    assert api('GET', '/os-server-groups?bogus=1',
               version='2.75').status_code == 400
    assert api('GET', '/os-server-groups?bogus=1',
               version='2.74').status_code == 200


def test_notifications_create_add_member_delete(api):
    collector = notification_fixtures.Collector().start()
    try:
        group = _group(api, 'anti-affinity')
        uuid = _boot(api, group=group['id']).json()['server']['id']
        created, = collector.wait_for(group['id'], 'server_group.create')
        added, = collector.wait_for(group['id'], 'server_group.add_member')
        _settled(api, uuid)
        _delete_all(api, [uuid])
        assert api('DELETE', '/os-server-groups/%s' % group['id'],
                   version='2.64').status_code == 204
        deleted, = collector.wait_for(group['id'], 'server_group.delete')
    finally:
        collector.stop()
    assert created['publisher_id'].startswith('nova-api:')
    payload = added['payload']
    assert payload['nova_object.name'] == 'ServerGroupPayload'
    assert payload['nova_object.namespace'] == 'nova'
    data = payload['nova_object.data']
    assert data['members'] == [uuid] and data['policy'] == 'anti-affinity'
    assert data['policies'] == ['anti-affinity']
    assert data['project_id'] == 'project-a' and data['user_id'] == 'bob'
    assert created['payload']['nova_object.data']['members'] == []


# --- boot -------------------------------------------------------------------

def test_boot_in_an_unknown_or_foreign_group_is_400(api):
    resp = _boot(api, group=MISSING)
    assert resp.status_code == 400
    assert MISSING in resp.json()['badRequest']['message']
    theirs = _group(api, token=OTHER)
    assert _boot(api, group=theirs['id']).status_code == 400
    assert _boot(api, hints={'group': 'not-a-uuid'}).status_code == 400


def test_anti_affinity_multi_create_spreads_and_the_next_fails(api):
    group = _group(api, 'anti-affinity', version='2.1')
    resp = _boot(api, group=group['id'], count=4)
    assert resp.status_code == 202, resp.text
    members = _members(api, group['id'])
    assert len(members) == 4
    servers = [_settled(api, uuid) for uuid in members]
    assert [s['status'] for s in servers] == ['ACTIVE'] * 4
    assert len({s[HOST] for s in servers}) == 4
    assert all(s['server_groups'] == [group['id']] for s in servers)
    # Every host has a member: a fifth has nowhere to go.
    fifth = _boot(api, group=group['id']).json()['server']['id']
    failed = _settled(api, fifth)
    assert failed['status'] == 'ERROR'
    assert failed['fault']['message'].startswith('No valid host')
    # Deleted servers leave the group; the freed host takes the next.
    _delete_all(api, [fifth, members[0]])
    assert _members(api, group['id']) == members[1:]
    sixth = _boot(api, group=group['id']).json()['server']['id']
    assert _settled(api, sixth)[HOST] == servers[0][HOST]
    _delete_all(api, members[1:] + [sixth])
    assert _members(api, group['id']) == []


def test_affinity_packs_members_on_one_host(api):
    group = _group(api, 'affinity')
    assert _boot(api, group=group['id'], count=2).status_code == 202
    first = [_settled(api, u) for u in _members(api, group['id'])]
    third = _boot(api, group=group['id']).json()['server']['id']
    hosts = {s[HOST] for s in first} | {_settled(api, third)[HOST]}
    assert len(hosts) == 1
    _delete_all(api, _members(api, group['id']))


def test_max_server_per_host_allows_that_many(api):
    hosts = _computes(api)
    keep = hosts[0]
    _set_enabled(api, hosts[1:], False)
    try:
        group = _group(api, 'anti-affinity', max_server_per_host=2)
        assert _boot(api, group=group['id'], count=2).status_code == 202
        servers = [_settled(api, u) for u in _members(api, group['id'])]
        assert [s[HOST] for s in servers] == [keep, keep]
        third = _boot(api, group=group['id']).json()['server']['id']
        assert _settled(api, third)['status'] == 'ERROR'
    finally:
        _set_enabled(api, hosts[1:], True)
    _delete_all(api, _members(api, group['id']))


def test_soft_anti_affinity_prefers_but_never_refuses(api):
    hosts = _computes(api)
    _set_enabled(api, hosts[1:], False)
    try:
        group = _group(api, 'soft-anti-affinity', version='2.15')
        assert _boot(api, group=group['id'], count=2).status_code == 202
        servers = [_settled(api, u) for u in _members(api, group['id'])]
        assert [s['status'] for s in servers] == ['ACTIVE', 'ACTIVE']
    finally:
        _set_enabled(api, hosts[1:], True)
    third = _boot(api, group=group['id']).json()['server']['id']
    # Spread: not the host that has both others.
    assert _settled(api, third)[HOST] != hosts[0]
    _delete_all(api, _members(api, group['id']))


def test_soft_affinity_prefers_the_members_host(api, override):  # noqa: F811
    # The RAM weigher's 1.0 favours the emptier hosts as much as the
    # default soft-affinity weight favours the member's: a higher
    # multiplier makes the group's host win.
    override('soft_affinity_weight_multiplier', 2.0,
             group='filter_scheduler')
    group = _group(api, 'soft-affinity', version='2.15')
    first = _boot(api, group=group['id']).json()['server']['id']
    host = _settled(api, first)[HOST]
    second = _boot(api, group=group['id']).json()['server']['id']
    assert _settled(api, second)[HOST] == host
    _delete_all(api, [first, second])


def test_same_host_and_different_host_hints(api, override):  # noqa: F811
    override('enabled_filters', ['ComputeFilter', 'SameHostFilter',
                                 'DifferentHostFilter'],
             group='filter_scheduler')
    first = _boot(api).json()['server']['id']
    host = _settled(api, first)[HOST]
    near = _boot(api, hints={'same_host': [first]}).json()['server']['id']
    far = _boot(api, hints={'different_host': first}).json()['server']['id']
    assert _settled(api, near)[HOST] == host
    assert _settled(api, far)[HOST] != host
    _delete_all(api, [first, near, far])


# --- forced hosts ----------------------------------------------------------

def test_forced_host_skips_the_filters_but_not_the_claim(
        api, override):  # noqa: F811
    """availability_zone 'zone:host' and 'zone::node' (admins) force
    the host or node: the scheduler's filters are skipped (Nova's
    force_hosts / force_nodes), a 2.74 requested host is not; the
    claim is still made (no room: no valid host) and a disabled host is
    still refused (as Nova's COMPUTE_STATUS_DISABLED pre-filter)."""
    override('enabled_filters', ['ComputeFilter', 'DifferentHostFilter'],
             group='filter_scheduler')
    host = 'cell2-compute1'
    first = _boot(api, token=ADMIN, availability_zone='nova:' + host)
    first = first.json()['server']['id']
    assert _settled(api, first)[HOST] == host
    apart = {'different_host': [first]}
    # Requested at 2.74: DifferentHostFilter refuses the only host.
    body = _server('asked', host=host)
    body['os:scheduler_hints'] = apart
    asked = api('POST', '/servers', body, version='2.74', token=ADMIN)
    assert asked.status_code == 202, asked.text
    asked = _settled(api, asked.json()['server']['id'])
    assert asked['status'] == 'ERROR'
    assert 'No valid host' in asked['fault']['message']
    # Forced: the filters are skipped, the server lands there, claimed.
    placed = []
    for zone in ('nova:' + host, 'nova::' + host, 'nova:%s:%s' % (host,
                                                                  host)):
        resp = _boot(api, token=ADMIN, hints=apart, availability_zone=zone)
        assert resp.status_code == 202, resp.text
        server = _settled(api, resp.json()['server']['id'])
        assert (server['status'], server[HOST]) == ('ACTIVE', host), zone
        assert list(held(server['id'])) == [host]
        placed.append(server['id'])
    # The claim is still made: no room there, no valid host.
    assert api('POST', '/flavors', {'flavor': {
        'name': 'huge', 'id': 'huge', 'ram': 4194304, 'vcpus': 1,
        'disk': 1}}, token=ADMIN).status_code == 200
    resp = _boot(api, token=ADMIN, availability_zone='nova:' + host,
                 flavorRef='huge')
    huge = _settled(api, resp.json()['server']['id'])
    assert huge['status'] == 'ERROR' and huge[HOST] is None
    assert held(huge['id']) == {}
    # A disabled host is refused even when forced.
    _set_enabled(api, [host], False)
    try:
        resp = _boot(api, token=ADMIN, availability_zone='nova:' + host)
        disabled = _settled(api, resp.json()['server']['id'])
        assert disabled['status'] == 'ERROR'
    finally:
        _set_enabled(api, [host], True)
    api('DELETE', '/flavors/huge', token=ADMIN)
    _delete_all(api, [first, asked['id'], huge['id'], disabled['id']]
                + placed)


# --- moves ------------------------------------------------------------------

def test_cold_migrate_and_resize_keep_anti_affinity(api):
    group = _group(api, 'anti-affinity')
    assert _boot(api, group=group['id'], count=2).status_code == 202
    mover, other = _members(api, group['id'])
    source = _settled(api, mover)[HOST]
    blocked = _settled(api, other)[HOST]
    # A cold migration stays in the server's cell (two hosts each here):
    # the mover is the member whose cell has a free host, when one has.
    cell = source.split('-')[0]
    if blocked.split('-')[0] == cell:
        # Both members fill one cell: no move there keeps the policy.
        assert api('POST', '/servers/%s/action' % mover, {'migrate': None},
                   token=ADMIN).status_code == 202
        server = _settled(api, mover)
        assert server['status'] == 'ACTIVE' and server[HOST] == source
        _delete_all(api, [mover, other])
        return
    free = sorted((h for h in _computes(api) if h not in (source, blocked)),
                  key=lambda h: h.split('-')[0] != cell)
    # One free host left: the migration must take it.
    _set_enabled(api, free[1:], False)
    try:
        assert api('POST', '/servers/%s/action' % mover, {'migrate': None},
                   token=ADMIN).status_code == 202
        assert _settled(api, mover, ['VERIFY_RESIZE'])[HOST] == free[0]
        assert api('POST', '/servers/%s/action' % mover,
                   {'confirmResize': None}).status_code == 204
        _settled(api, mover, ['ACTIVE'])
        # Now only the other member's host is left besides the source:
        # a resize cannot keep the policy, so it fails (no valid host).
        _set_enabled(api, free[:1], False)
        _set_enabled(api, [source], False)
        before = migration_of(mover)['uuid']
        assert api('POST', '/servers/%s/action' % mover,
                   {'resize': {'flavorRef': 'medium'}}).status_code == 202
        wait_for(lambda: migration_of(mover)['uuid'] != before and
                 migration_of(mover)['status'] == 'error', timeout=30,
                 message='resize refused')
        server = _settled(api, mover)
        assert server['status'] == 'ACTIVE' and server[HOST] == free[0]
    finally:
        _set_enabled(api, _computes(api), True)
    _delete_all(api, [mover, other])


# --- the compute's late check -------------------------------------------

def test_late_check_reschedules_one_of_two_members_placed_together(
        api, override):  # noqa: F811
    """What two schedulers racing produce (each placed a member on one
    host, neither seeing the other): here the scheduler's group filters
    are off, so both members of a multi-create land on the one enabled
    host; the compute's late check lets one build and reschedules the
    other (no alternate left: ERROR), never both on the host."""
    override('enabled_filters', ['ComputeFilter'], group='filter_scheduler')
    hosts = _computes(api)
    _set_enabled(api, hosts[1:], False)
    try:
        group = _group(api, 'anti-affinity')
        assert _boot(api, group=group['id'], count=2).status_code == 202
        servers = [_settled(api, u) for u in _members(api, group['id'])]
        assert sorted(s['status'] for s in servers) == ['ACTIVE', 'ERROR']
        failed = [s for s in servers if s['status'] == 'ERROR'][0]
        assert 'Exhausted all hosts' in failed['fault']['message']
        events = api('GET', '/servers/%s/os-instance-actions' % failed['id'],
                     token=ADMIN).json()['instanceActions']
        detail = api('GET', '/servers/%s/os-instance-actions/%s' % (
            failed['id'], events[0]['request_id']), version='2.51',
            token=ADMIN).json()['instanceAction']['events']
        assert any('InstanceGroupPolicyViolated' in (e.get('traceback') or '')
                   for e in detail), detail
    finally:
        _set_enabled(api, hosts[1:], True)
    _delete_all(api, [s['id'] for s in servers])


def test_concurrent_boots_never_break_anti_affinity(api):
    """Boots of one anti-affinity group sent at once, each its own
    request (its own scheduling): whatever interleaves, no two members
    end ACTIVE on one host."""
    group = _group(api, 'anti-affinity')
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        sent = list(pool.map(lambda i: _boot(api, group=group['id'],
                                             name='race%d' % i), range(6)))
    assert all(r.status_code == 202 for r in sent)
    servers = [_settled(api, r.json()['server']['id']) for r in sent]
    active = [s[HOST] for s in servers if s['status'] == 'ACTIVE']
    assert 1 <= len(active) == len(set(active)) <= 4
    _delete_all(api, [s['id'] for s in servers])


# --- the late check on moves ----------------------------------------------
# As two schedulers racing would: the scheduler's group filters are off,
# so the scheduler picks the host of the other member; the destination
# compute's late check refuses the move and it ends cleanly.

def _failed_with(api, uuid, error):
    """Whether an event of the server's newest action failed with
    error."""
    newest = api('GET', '/servers/%s/os-instance-actions' % uuid,
                 token=ADMIN).json()['instanceActions'][0]
    events = api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, newest['request_id']), version='2.51',
        token=ADMIN).json()['instanceAction']['events']
    return any(error in (e.get('traceback') or '') for e in events)


def _pair_in_cell1(api):
    """An anti-affinity group of the admin's project with one member on
    each compute of cell1: (group, [member on compute1, on compute2])."""
    group = _group(api, 'anti-affinity', token=ADMIN)
    members = []
    for host in ('cell1-compute1', 'cell1-compute2'):
        resp = _boot(api, group=group['id'], token=ADMIN,
                     availability_zone='nova:%s' % host)
        assert resp.status_code == 202, resp.text
        members.append(resp.json()['server']['id'])
    for uuid, host in zip(members, ('cell1-compute1', 'cell1-compute2')):
        assert _settled(api, uuid)[HOST] == host
    return group, members


@pytest.mark.parametrize('body', [{'migrate': None},
                                  {'resize': {'flavorRef': 'medium'}}],
                         ids=['migrate', 'resize'])
def test_late_check_refuses_a_cold_move_onto_a_member(
        api, override, body):  # noqa: F811
    _group_id, (mover, other) = _pair_in_cell1(api)
    override('enabled_filters', ['ComputeFilter'], group='filter_scheduler')
    before = held(mover)
    assert list(before) == ['cell1-compute1']
    resp = api('POST', '/servers/%s/action' % mover, body, token=ADMIN)
    assert resp.status_code == 202, resp.text
    migration = wait_for(
        lambda: (migration_of(mover) or {}).get('status') == 'error'
        and migration_of(mover), timeout=30, message='move refused')
    assert migration['dest_compute'] == 'cell1-compute2'
    server = _settled(api, mover)
    # As before the move: ACTIVE on its host with its flavor and claim.
    assert server['status'] == 'ACTIVE'
    assert server[HOST] == 'cell1-compute1'
    assert server['flavor']['original_name'] == 'small'
    assert held(mover) == before
    assert held(migration['uuid']) == {}
    assert list(held(other)) == ['cell1-compute2']
    _delete_all(api, [mover, other])


def test_late_check_refuses_an_unshelve_onto_a_member(
        api, override):  # noqa: F811
    _group_id, (mover, other) = _pair_in_cell1(api)
    assert api('POST', '/servers/%s/action' % mover, {'shelve': None},
               token=ADMIN).status_code == 202
    _settled(api, mover, ['SHELVED_OFFLOADED'])
    hosts = _computes(api)
    _set_enabled(api, [h for h in hosts if h != 'cell1-compute2'], False)
    try:
        # The scheduler keeps the policy: no valid host, still offloaded.
        assert api('POST', '/servers/%s/action' % mover, {'unshelve': None},
                   token=ADMIN).status_code == 202
        server = _settled(api, mover, ['SHELVED_OFFLOADED'])
        assert server[HOST] is None and held(mover) == {}
        # The scheduler does not (as a racing one): the compute's late
        # check sends it back, offloaded, its claim freed, with a fault.
        override('enabled_filters', ['ComputeFilter'],
                 group='filter_scheduler')
        assert api('POST', '/servers/%s/action' % mover, {'unshelve': None},
                   token=ADMIN).status_code == 202

        def refused():
            found = api('GET', '/servers/%s' % mover, version='2.71',
                        token=ADMIN).json()['server']
            return found if (found['status'] == 'SHELVED_OFFLOADED'
                             and found['OS-EXT-STS:task_state'] is None
                             and _failed_with(
                                 api, mover, 'InstanceGroupPolicyViolated')) \
                else None
        server = wait_for(refused, timeout=30, message='unshelve refused')
        assert server[HOST] is None
        assert held(mover) == {}
        assert list(held(other)) == ['cell1-compute2']
    finally:
        _set_enabled(api, hosts, True)
    _delete_all(api, [mover, other])
