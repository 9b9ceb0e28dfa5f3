"""Quotas through the REST API on a running plane (two cells, Nova's
default quotas enforced): /limits, os-quota-sets, os-quota-class-sets,
and every enforcement point -- create (instances, cores, ram; min_count
and max_count cut to what fits), metadata, key pairs, personality,
resize and revert -- in both counting modes, and concurrent boots of a
project that together exceed its quota."""
import threading

import pytest

from nova_lite.conf import CONF
from tests.functional.api.plane_fixtures import Running
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

PLACEMENT_MODES = [False, True]


@pytest.fixture(scope='module')
def running(tmp_path_factory):
    plane = start_plane(tmp_path_factory.mktemp('plane') / 'state',
                        quotas=True)
    try:
        run = Running(plane)
        assert run.api('POST', '/flavors', {'flavor': {
            'name': 'medium', 'id': 'medium', 'ram': 1024, 'vcpus': 2,
            'disk': 1}}, token=ADMIN).status_code == 200
        yield run
    finally:
        stop_plane(plane)


@pytest.fixture(params=PLACEMENT_MODES, ids=['cells', 'placement'])
def mode(request):
    CONF.set_override('count_usage_from_placement', request.param,
                      group='quota')
    yield request.param
    CONF.clear_override('count_usage_from_placement', group='quota')


_n = [0]


def project():
    """A fresh project (and its member's token)."""
    _n[0] += 1
    name = 'quota-p%d' % _n[0]
    return name, 'user-%d:%s' % (_n[0], name)


def set_quota(api, project_id, version='2.1', **values):
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': values}, token=ADMIN, version=version)
    assert resp.status_code == 200, resp.text
    return resp.json()['quota_set']


def boot(api, token, flavor='small', status=202, **extra):
    resp = api('POST', '/servers', _server(flavorRef=flavor, **extra),
               token=token, version='2.37')
    assert resp.status_code == status, resp.text
    return resp


def forbidden(resp):
    assert resp.status_code == 403, resp.text
    return resp.json()['forbidden']['message']


def servers(api, token):
    return api('GET', '/servers/detail', token=token).json()['servers']


def active(api, token, uuid):
    _wait_status(api, uuid, 'ACTIVE', token=token)


# --- /limits -----------------------------------------------------------

def test_limits_show_nova_defaults_and_the_microversion_removals(running):
    api = running.api
    _, token = project()
    body = api('GET', '/limits', token=token).json()['limits']
    assert body['rate'] == []
    assert body['absolute'] == {
        'maxImageMeta': 128, 'maxPersonality': 5,
        'maxPersonalitySize': 10240, 'maxSecurityGroupRules': 20,
        'maxSecurityGroups': 10, 'maxServerMeta': 128,
        'maxTotalCores': 20, 'maxTotalFloatingIps': 10,
        'maxTotalInstances': 10, 'maxTotalKeypairs': 100,
        'maxTotalRAMSize': 51200, 'maxServerGroups': 10,
        'maxServerGroupMembers': 10, 'totalCoresUsed': 0,
        'totalInstancesUsed': 0, 'totalRAMUsed': 0,
        'totalSecurityGroupsUsed': 0, 'totalFloatingIpsUsed': 0,
        'totalServerGroupsUsed': 0}
    v236 = api('GET', '/limits', token=token, version='2.36').json()
    assert 'maxSecurityGroups' not in v236['limits']['absolute']
    assert 'totalFloatingIpsUsed' not in v236['limits']['absolute']
    assert 'maxImageMeta' in v236['limits']['absolute']
    v239 = api('GET', '/limits', token=token, version='2.39').json()
    assert 'maxImageMeta' not in v239['limits']['absolute']
    assert 'maxPersonality' in v239['limits']['absolute']
    v257 = api('GET', '/limits', token=token, version='2.57').json()
    assert sorted(v257['limits']['absolute']) == sorted([
        'maxServerMeta', 'maxTotalCores', 'maxTotalInstances',
        'maxTotalKeypairs', 'maxTotalRAMSize', 'maxServerGroups',
        'maxServerGroupMembers', 'totalCoresUsed', 'totalInstancesUsed',
        'totalRAMUsed', 'totalServerGroupsUsed'])


def test_limits_count_usage_and_admins_name_a_project(running, mode):
    api = running.api
    project_id, token = project()
    active(api, token, boot(api, token, 'medium').json()['server']['id'])
    absolute = api('GET', '/limits', token=token).json()['limits'][
        'absolute']
    assert (absolute['totalInstancesUsed'], absolute['totalCoresUsed'],
            absolute['totalRAMUsed']) == (1, 2, 1024)
    other = api('GET', '/limits?tenant_id=%s' % project_id,
                token=ADMIN).json()['limits']['absolute']
    assert other['totalCoresUsed'] == 2
    # A member may not look at another project's limits.
    _, stranger = project()
    resp = api('GET', '/limits?tenant_id=%s' % project_id, token=stranger)
    assert resp.status_code == 403, resp.text
    resp = api('GET', '/limits?bogus=1', token=token, version='2.75')
    assert resp.status_code == 400


# --- os-quota-sets -----------------------------------------------------

def test_quota_set_show_update_detail_defaults_and_delete(running):
    api = running.api
    project_id, token = project()
    shown = api('GET', '/os-quota-sets/%s' % project_id,
                token=token).json()['quota_set']
    assert shown == {
        'id': project_id, 'instances': 10, 'cores': 20, 'ram': 51200,
        'metadata_items': 128, 'key_pairs': 100, 'server_groups': 10,
        'server_group_members': 10, 'injected_files': 5,
        'injected_file_content_bytes': 10240,
        'injected_file_path_bytes': 255, 'floating_ips': 10,
        'fixed_ips': -1, 'security_groups': 10,
        'security_group_rules': 20}
    updated = set_quota(api, project_id, instances=4, cores='8')
    assert 'id' not in updated and updated['instances'] == 4
    assert updated['cores'] == 8
    v257 = api('GET', '/os-quota-sets/%s' % project_id, token=token,
               version='2.57').json()['quota_set']
    assert 'injected_files' not in v257 and 'floating_ips' not in v257
    assert v257['instances'] == 4
    detail = api('GET', '/os-quota-sets/%s/detail' % project_id,
                 token=token).json()['quota_set']
    assert detail['instances'] == {'in_use': 0, 'limit': 4,
                                   'reserved': 0}
    defaults = api('GET', '/os-quota-sets/%s/defaults' % project_id,
                   token=token).json()['quota_set']
    assert defaults['instances'] == 10 and defaults['id'] == project_id
    # A member may not set its own quotas.
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': {'instances': 50}}, token=token)
    assert resp.status_code == 403
    # Nor see another project's.
    _, stranger = project()
    assert api('GET', '/os-quota-sets/%s' % project_id,
               token=stranger).status_code == 403
    # A user's own limit within the project.
    resp = api('PUT', '/os-quota-sets/%s?user_id=u1' % project_id,
               {'quota_set': {'instances': 2}}, token=ADMIN)
    assert resp.status_code == 200, resp.text
    assert api('GET', '/os-quota-sets/%s?user_id=u1' % project_id,
               token=ADMIN).json()['quota_set']['instances'] == 2
    resp = api('DELETE', '/os-quota-sets/%s' % project_id, token=ADMIN)
    assert resp.status_code == 202
    assert api('GET', '/os-quota-sets/%s' % project_id,
               token=token).json()['quota_set']['instances'] == 10


@pytest.mark.parametrize('version,body,field', [
    ('2.1', {'instances': -2}, 'instances'),
    ('2.1', {'instances': 'many'}, 'instances'),
    ('2.1', {'bogus': 1}, 'bogus'),
    ('2.1', {'cores': 2 ** 31}, 'cores'),
    ('2.36', {'floating_ips': 1}, 'floating_ips'),
    ('2.57', {'injected_files': 1}, 'injected_files'),
])
def test_quota_set_bad_input_is_400_naming_the_key(running, version, body,
                                                   field):
    project_id, _ = project()
    resp = running.api('PUT', '/os-quota-sets/%s' % project_id,
                       {'quota_set': body}, token=ADMIN, version=version)
    assert resp.status_code == 400, resp.text
    assert field in resp.json()['badRequest']['message']


def test_limit_below_usage_is_400_unless_forced(running, mode):
    api = running.api
    project_id, token = project()
    for _ in range(2):
        active(api, token, boot(api, token).json()['server']['id'])
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': {'instances': 1}}, token=ADMIN)
    assert resp.status_code == 400, resp.text
    assert resp.json()['badRequest']['message'] == (
        'Quota limit 1 for instances must be greater than or equal to '
        'already used and reserved 2.')
    assert set_quota(api, project_id, instances=1,
                     force=True)['instances'] == 1


# --- os-quota-class-sets -------------------------------------------------

def test_quota_class_default_sets_the_defaults(running):
    api = running.api
    shown = api('GET', '/os-quota-class-sets/gold', token=ADMIN).json()
    assert shown['quota_class_set']['id'] == 'gold'
    assert 'server_groups' not in shown['quota_class_set']
    assert 'floating_ips' in shown['quota_class_set']
    v250 = api('GET', '/os-quota-class-sets/gold', token=ADMIN,
               version='2.50').json()['quota_class_set']
    assert 'server_groups' in v250 and 'floating_ips' not in v250
    resp = api('PUT', '/os-quota-class-sets/default',
               {'quota_class_set': {'key_pairs': 99}}, token=ADMIN)
    assert resp.status_code == 200, resp.text
    assert 'id' not in resp.json()['quota_class_set']
    try:
        project_id, token = project()
        assert api('GET', '/os-quota-sets/%s' % project_id,
                   token=token).json()['quota_set']['key_pairs'] == 99
        # Other classes are stored and shown, and change no defaults.
        resp = api('PUT', '/os-quota-class-sets/gold',
                   {'quota_class_set': {'instances': 77}}, token=ADMIN)
        assert resp.json()['quota_class_set']['instances'] == 77
        assert api('GET', '/os-quota-sets/%s' % project_id,
                   token=token).json()['quota_set']['instances'] == 10
        _, member = project()
        assert api('GET', '/os-quota-class-sets/default',
                   token=member).status_code == 403
        resp = api('PUT', '/os-quota-class-sets/default',
                   {'quota_class_set': {'server_groups': 1}}, token=ADMIN)
        assert resp.status_code == 400   # not before 2.50
    finally:
        api('PUT', '/os-quota-class-sets/default',
            {'quota_class_set': {'key_pairs': 100}}, token=ADMIN)


# --- enforcement ---------------------------------------------------------

def test_create_over_cores_is_nova_403(running, mode):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, cores=3)
    active(api, token, boot(api, token, 'medium').json()['server']['id'])
    message = forbidden(boot(api, token, 'medium', status=403))
    assert message == ('Quota exceeded for cores: Requested 2, but '
                       'already used 2 of 3 cores')
    # One core still fits.
    active(api, token, boot(api, token).json()['server']['id'])


def test_create_over_ram_and_instances(running, mode):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, ram=1536, instances=2)
    active(api, token, boot(api, token, 'medium').json()['server']['id'])
    assert forbidden(boot(api, token, 'medium', status=403)) == (
        'Quota exceeded for ram: Requested 1024, but already used 1024 of '
        '1536 ram')
    active(api, token, boot(api, token).json()['server']['id'])
    # Both are used up: Nova names them all (sorted), with each one's
    # figures in that order.
    assert forbidden(boot(api, token, status=403)) == (
        'Quota exceeded for instances, ram: Requested 1, 512, but already '
        'used 2, 1536 of 2, 1536 instances, ram')


def test_min_max_count_is_cut_to_what_fits(running, mode):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, instances=3)
    boot(api, token, min_count=1, max_count=5)
    wait_for(lambda: len(servers(api, token)) == 3, timeout=30)
    for server in servers(api, token):
        active(api, token, server['id'])
    assert len(servers(api, token)) == 3
    message = forbidden(boot(api, token, min_count=1, max_count=2,
                             status=403))
    assert message == ('Quota exceeded for instances: Requested 2, but '
                       'already used 3 of 3 instances')


def test_min_count_that_does_not_fit_is_403(running):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, instances=3)
    assert forbidden(boot(api, token, min_count=4, max_count=4,
                          status=403)) == (
        'Quota exceeded for instances: Requested 4, but already used 0 of '
        '3 instances')
    assert servers(api, token) == []


def test_user_quota_within_a_project(running):
    api = running.api
    project_id, token = project()
    user = token.split(':')[0]
    resp = api('PUT', '/os-quota-sets/%s?user_id=%s' % (project_id, user),
               {'quota_set': {'instances': 1}}, token=ADMIN)
    assert resp.status_code == 200, resp.text
    active(api, token, boot(api, token).json()['server']['id'])
    forbidden(boot(api, token, status=403))
    # Another user of the project still has the project's room.
    other = 'someone-else:%s' % project_id
    active(api, other, boot(api, other).json()['server']['id'])

    # Usage as counted in the cells: the project's, and each user's.
    def detail(query=''):
        resp = api('GET', '/os-quota-sets/%s/detail%s' % (project_id, query),
                   token=ADMIN)
        assert resp.status_code == 200, resp.text
        return {name: resp.json()['quota_set'][name]['in_use']
                for name in ('instances', 'cores', 'ram')}

    project_use = detail()
    mine = detail('?user_id=%s' % user)
    assert project_use['instances'] == 2 and mine['instances'] == 1
    assert mine['cores'] * 2 == project_use['cores'] > 0
    assert mine['ram'] * 2 == project_use['ram'] > 0
    assert detail('?user_id=someone-else') == mine
    assert detail('?user_id=nobody') == {'instances': 0, 'cores': 0,
                                         'ram': 0}
    # A user's limit below that user's usage is refused unless forced.
    resp = api('PUT', '/os-quota-sets/%s?user_id=%s' % (project_id, user),
               {'quota_set': {'instances': 0}}, token=ADMIN)
    assert resp.status_code == 400, resp.text


@pytest.mark.parametrize('placement', PLACEMENT_MODES,
                         ids=['cells', 'placement'])
def test_concurrent_boots_never_pass_the_quota_together(running,
                                                        placement):
    CONF.set_override('count_usage_from_placement', placement,
                      group='quota')
    try:
        api = running.api
        project_id, token = project()
        set_quota(api, project_id, instances=3)
        results = []
        barrier = threading.Barrier(8)

        def one(i):
            barrier.wait()
            results.append(api('POST', '/servers',
                               _server(name='race-%d' % i), token=token,
                               version='2.37'))

        threads = [threading.Thread(target=one, args=(i,))
                   for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(r.status_code for r in results)
        assert codes == [202] * 3 + [403] * 5, [r.text for r in results]
        for r in results:
            if r.status_code == 202:
                active(api, token, r.json()['server']['id'])
        listed = servers(api, token)
        assert len(listed) == 3
        assert all(s['status'] == 'ACTIVE' for s in listed)
    finally:
        CONF.clear_override('count_usage_from_placement', group='quota')


def test_metadata_items_on_create_set_and_update(running):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, metadata_items=2)
    three = {'a': '1', 'b': '2', 'c': '3'}
    message = forbidden(boot(api, token, metadata=three, status=403))
    assert 'metadata' in message
    uuid = boot(api, token, metadata={'a': '1'}).json()['server']['id']
    active(api, token, uuid)
    resp = api('POST', '/servers/%s/metadata' % uuid,
               {'metadata': {'b': '2', 'c': '3'}}, token=token)
    forbidden(resp)
    resp = api('PUT', '/servers/%s/metadata' % uuid,
               {'metadata': three}, token=token)
    forbidden(resp)
    resp = api('PUT', '/servers/%s/metadata/b' % uuid,
               {'meta': {'b': '2'}}, token=token)
    assert resp.status_code == 200, resp.text


def test_key_pairs_per_user(running):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, key_pairs=1)
    resp = api('POST', '/os-keypairs', {'keypair': {'name': 'k1'}},
               token=token)
    assert resp.status_code == 200, resp.text
    resp = api('POST', '/os-keypairs', {'keypair': {'name': 'k2'}},
               token=token)
    assert forbidden(resp) == 'Quota exceeded, too many key pairs.'


def test_personality_while_the_microversion_accepts_it(running):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, injected_files=1,
              injected_file_path_bytes=10,
              injected_file_content_bytes=8)
    files = [{'path': '/a', 'contents': 'YQ=='},
             {'path': '/b', 'contents': 'Yg=='}]
    assert forbidden(boot(api, token, personality=files, status=403)) == (
        'Personality file limit exceeded')
    assert 'path' in forbidden(boot(api, token, personality=[
        {'path': '/a/very/long/path', 'contents': 'YQ=='}], status=403))
    assert 'content' in forbidden(boot(api, token, personality=[
        {'path': '/a', 'contents': 'YWFhYWFhYWFh'}], status=403))


def test_resize_and_revert_need_room(running, mode):
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, cores=2)
    uuid = boot(api, token).json()['server']['id']
    active(api, token, uuid)
    set_quota(api, project_id, cores=1)
    resp = api('POST', '/servers/%s/action' % uuid,
               {'resize': {'flavorRef': 'medium'}}, token=token)
    assert forbidden(resp) == ('Quota exceeded for cores: Requested 1, '
                               'but already used 1 of 1 cores')


# --- cost ------------------------------------------------------------------

def _create_transaction(running, token, driver):
    """The API DB statements of the transaction that writes a boot's
    build request, with the given quota driver."""
    from nova_lite.db.api import api as api_db
    from tests.functional.db import inventory_helpers as h
    CONF.set_override('driver', driver, group='quota')
    counter = h.StatementCounter(api=api_db.get_engines())
    try:
        with counter.counting():
            uuid = boot(running.api, token).json()['server']['id']
    finally:
        CONF.clear_override('driver', group='quota')
    active(running.api, token, uuid)
    [create] = [t for t in counter.transactions['api']
                if any(s.startswith('INSERT INTO build_requests')
                       for s in t)]
    return create


@pytest.mark.parametrize('placement', PLACEMENT_MODES,
                         ids=['cells', 'placement'])
def test_the_quota_check_adds_two_api_db_statements_per_boot(running,
                                                            placement):
    CONF.set_override('count_usage_from_placement', placement,
                      group='quota')
    try:
        _, token = project()
        without = _create_transaction(running, token,
                                      'nova_lite.quota.NoopQuotaDriver')
        with_quota = _create_transaction(running, token,
                                         'nova_lite.quota.DbQuotaDriver')
    finally:
        CONF.clear_override('count_usage_from_placement', group='quota')
    assert len(with_quota) == len(without) + 2, with_quota
    assert with_quota[0].startswith('INSERT INTO quota_locks')


def test_limits_reads_the_api_db_once_and_each_cell_once(running, mode):
    """GET /limits: one API DB statement (the limits, the builds not yet
    in a cell, the server groups -- and, from placement, the mappings
    and allocations), and counting from the cells one per cell; the same
    with more servers."""
    from nova_lite import context as nova_context
    from nova_lite.db.api import api as api_db
    from nova_lite.db.main import api as main_db
    from tests.functional.db import inventory_helpers as h
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, instances=20)
    engines = {'api': api_db.get_engines()}
    for name, cell in running.cells.items():
        with nova_context.target_cell(running.ctxt, cell) as cctxt:
            engines[name] = main_db.get_engines(cctxt)

    def counted():
        api('GET', '/limits', token=token)          # warm caches
        counter = h.StatementCounter(**engines)
        with counter.counting():
            absolute = api('GET', '/limits', token=token).json()[
                'limits']['absolute']
        return counter, absolute

    before, absolute = counted()
    assert absolute['totalInstancesUsed'] == 0
    for _ in range(3):
        active(api, token, boot(api, token).json()['server']['id'])
    after, absolute = counted()
    assert absolute['totalInstancesUsed'] == 3
    for counter in (before, after):
        assert counter.counts['api'] == 1, counter.statements['api']
        cells = sum(n for name, n in counter.counts.items()
                    if name != 'api')
        assert cells == (0 if mode else len(running.cells)), \
            counter.statements
    assert after.counts == before.counts


def test_revert_to_a_larger_flavor_needs_room(running):
    """Counting from the cells (the resized server counts its new,
    smaller flavor until reverted)."""
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, cores=3)
    uuid = boot(api, token, 'medium').json()['server']['id']
    active(api, token, uuid)
    resp = api('POST', '/servers/%s/action' % uuid,
               {'resize': {'flavorRef': 'small'}}, token=token)
    assert resp.status_code == 202, resp.text
    _wait_status(api, uuid, 'VERIFY_RESIZE', token=token)
    for _ in range(2):
        active(api, token, boot(api, token).json()['server']['id'])
    resp = api('POST', '/servers/%s/action' % uuid,
               {'revertResize': None}, token=token)
    assert forbidden(resp) == ('Quota exceeded for cores: Requested 1, '
                               'but already used 3 of 3 cores')
    _wait_status(api, uuid, 'VERIFY_RESIZE', token=token)
