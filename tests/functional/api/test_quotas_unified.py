"""The unified-limits driver through the REST API on a running plane
(two cells): limits registered in Keystone, read and enforced by
oslo.limit's Enforcer, usage counted from placement. Keystone itself is
oslo.limit's LimitFixture here (its Keystone calls only: a library
boundary); tests/real/test_quotas_unified_keystone.py runs the same
driver against a real Keystone."""
import threading

from keystoneauth1 import exceptions as ksa_exceptions
from oslo_limit import fixture as limit_fixture
from oslo_limit import limit  # noqa: F401 (registers [oslo_limit])
import pytest

from nova_lite.conf import CONF
from tests.functional.api.plane_fixtures import Running
from tests.functional.api.test_quotas import active
from tests.functional.api.test_quotas import boot
from tests.functional.api.test_quotas import forbidden
from tests.functional.api.test_quotas import servers
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane

DRIVER = 'nova_lite.quota.UnifiedLimitsDriver'
REGISTERED = {'servers': 3, 'class:VCPU': 4, 'class:MEMORY_MB': 4096,
              'class:DISK_GB': 10, 'server_key_pairs': 1,
              'server_groups': 1, 'server_group_members': 2,
              'server_metadata_items': 2, 'server_injected_files': 1,
              'server_injected_file_content_bytes': 8,
              'server_injected_file_path_bytes': 10}


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


@pytest.fixture
def keystone():
    """oslo.limit's fake Keystone; project limits added per test."""
    projects = {}
    fake = limit_fixture.LimitFixture(dict(REGISTERED), projects)
    fake.setUp()
    CONF.set_override('driver', DRIVER, group='quota')
    CONF.set_override('endpoint_id', 'compute-endpoint', group='oslo_limit')
    try:
        yield fake
    finally:
        CONF.clear_override('endpoint_id', group='oslo_limit')
        CONF.clear_override('driver', group='quota')
        fake.cleanUp()


_n = [0]


def project():
    _n[0] += 1
    name = 'ul-p%d' % _n[0]
    return name, 'user-%d:%s' % (_n[0], name)


def test_limits_and_quota_sets_show_keystone_limits(running, keystone):
    api = running.api
    project_id, token = project()
    keystone.projlimits[project_id] = {'servers': 5}
    absolute = api('GET', '/limits', token=token).json()['limits'][
        'absolute']
    assert absolute['maxTotalInstances'] == 5
    assert absolute['maxTotalCores'] == 4
    assert absolute['maxTotalRAMSize'] == 4096
    assert absolute['maxServerMeta'] == 2
    assert absolute['maxTotalKeypairs'] == 1
    assert absolute['maxServerGroups'] == 1
    assert absolute['maxServerGroupMembers'] == 2
    assert absolute['maxPersonality'] == 1
    # Nova's network quotas do not exist in Keystone: unlimited.
    assert absolute['maxSecurityGroups'] == -1
    shown = api('GET', '/os-quota-sets/%s' % project_id,
                token=token).json()['quota_set']
    assert shown['instances'] == 5 and shown['cores'] == 4
    assert shown['injected_file_path_bytes'] == 10
    defaults = api('GET', '/os-quota-sets/%s/defaults' % project_id,
                   token=token).json()['quota_set']
    assert defaults['instances'] == 3
    klass = api('GET', '/os-quota-class-sets/anything',
                token=ADMIN).json()['quota_class_set']
    assert klass['instances'] == 3 and klass['key_pairs'] == 1


def test_setting_quotas_through_the_compute_api_changes_nothing(
        running, keystone):
    api = running.api
    project_id, token = project()
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': {'instances': 50}}, token=ADMIN)
    assert resp.status_code == 200, resp.text
    assert resp.json()['quota_set']['instances'] == 3
    # The body is still validated (400 naming the key).
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': {'bogus': 1}}, token=ADMIN)
    assert resp.status_code == 400 and 'bogus' in resp.text
    # Policy is unchanged: a member may not set its own.
    resp = api('PUT', '/os-quota-sets/%s' % project_id,
               {'quota_set': {'instances': 50}}, token=token)
    assert resp.status_code == 403
    resp = api('PUT', '/os-quota-class-sets/default',
               {'quota_class_set': {'instances': 50}}, token=ADMIN)
    assert resp.status_code == 200, resp.text
    assert resp.json()['quota_class_set']['instances'] == 3
    assert api('DELETE', '/os-quota-sets/%s' % project_id,
               token=ADMIN).status_code == 202
    assert api('GET', '/os-quota-sets/%s' % project_id, token=token
               ).json()['quota_set']['instances'] == 3


def test_boot_until_over_the_servers_limit(running, keystone):
    api = running.api
    project_id, token = project()
    keystone.projlimits[project_id] = {'servers': 2}
    for _ in range(2):
        active(api, token, boot(api, token).json()['server']['id'])
    message = forbidden(boot(api, token, status=403))
    assert message == (
        'Project %s is over a limit for [Resource servers is over limit '
        'of 2 due to current usage 2 and delta 1]' % project_id)
    absolute = api('GET', '/limits', token=token).json()['limits'][
        'absolute']
    assert (absolute['totalInstancesUsed'], absolute['totalCoresUsed'],
            absolute['totalRAMUsed']) == (2, 2, 1024)
    detail = api('GET', '/os-quota-sets/%s/detail' % project_id,
                 token=token).json()['quota_set']
    assert detail['instances'] == {'in_use': 2, 'limit': 2, 'reserved': 0}
    assert len(servers(api, token)) == 2


def test_min_max_count_is_cut_to_what_the_cores_allow(running, keystone):
    api = running.api
    _, token = project()
    # class:VCPU 4: two 2-vcpu servers of the five asked fit.
    resp = boot(api, token, 'medium', min_count=1, max_count=5)
    assert len(servers(api, token)) == 2, resp.text
    message = forbidden(boot(api, token, 'medium', min_count=1,
                             status=403))
    assert 'Resource class:VCPU is over limit of 4' in message


def test_resources_without_a_registered_limit(running, keystone):
    api = running.api
    _, token = project()
    del keystone.reglimits['class:DISK_GB']
    # Not in [quota] unified_limits_resource_list: unlimited.
    active(api, token, boot(api, token).json()['server']['id'])
    CONF.set_override('unified_limits_resource_list',
                      ['servers', 'class:DISK_GB'], group='quota')
    try:
        message = forbidden(boot(api, token, status=403))
        assert 'Resource class:DISK_GB is over limit of 0' in message
        CONF.set_override('unified_limits_resource_strategy', 'ignore',
                          group='quota')
        active(api, token, boot(api, token).json()['server']['id'])
    finally:
        CONF.clear_override('unified_limits_resource_list', group='quota')
        CONF.clear_override('unified_limits_resource_strategy',
                            group='quota')


def test_local_limits(running, keystone):
    api = running.api
    _, token = project()
    # server_metadata_items 2
    message = forbidden(boot(api, token, status=403,
                             metadata={'a': '1', 'b': '2', 'c': '3'}))
    assert 'server_metadata_items' in message
    uuid = boot(api, token, metadata={'a': '1'}).json()['server']['id']
    active(api, token, uuid)
    resp = api('POST', '/servers/%s/metadata' % uuid,
               {'metadata': {'b': '2', 'c': '3'}}, token=token)
    assert 'server_metadata_items' in forbidden(resp)
    # server_key_pairs 1 (per user)
    resp = api('POST', '/os-keypairs', {'keypair': {'name': 'k1'}},
               token=token)
    assert resp.status_code == 200, resp.text
    resp = api('POST', '/os-keypairs', {'keypair': {'name': 'k2'}},
               token=token)
    assert 'server_key_pairs' in forbidden(resp)
    # server_groups 1
    body = {'server_group': {'name': 'g', 'policies': ['affinity']}}
    resp = api('POST', '/os-server-groups', body, token=token)
    assert resp.status_code == 200, resp.text
    resp = api('POST', '/os-server-groups', body, token=token)
    assert 'server_groups' in forbidden(resp)
    # personality (2.1 .. 2.56): server_injected_files 1
    files = [{'path': '/a', 'contents': 'YQ=='},
             {'path': '/b', 'contents': 'Yg=='}]
    assert 'server_injected_files' in forbidden(
        boot(api, token, personality=files, status=403))


def test_resize_needs_room_for_the_new_flavor(running, keystone):
    api = running.api
    project_id, token = project()
    uuid = boot(api, token).json()['server']['id']
    active(api, token, uuid)
    keystone.projlimits[project_id] = {'class:VCPU': 2}
    # Placement holds both flavors while the resize is unconfirmed:
    # 1 in use + 2 of the new flavor > 2.
    resp = api('POST', '/servers/%s/action' % uuid,
               {'resize': {'flavorRef': 'medium'}}, token=token)
    assert 'Resource class:VCPU is over limit of 2' in forbidden(resp)
    keystone.projlimits[project_id] = {'class:VCPU': 3}
    resp = api('POST', '/servers/%s/action' % uuid,
               {'resize': {'flavorRef': 'medium'}}, token=token)
    assert resp.status_code == 202, resp.text


def test_keystone_unreachable_is_503_and_nothing_is_made(running,
                                                         keystone):
    api = running.api
    _, token = project()
    down = ksa_exceptions.ConnectFailure('Keystone is down')
    keystone.mock_conn.limits.side_effect = down
    keystone.mock_conn.registered_limits.side_effect = down
    resp = boot(api, token, status=503)
    assert resp.json()['serviceUnavailable']['code'] == 503
    assert 'keystone' in resp.json()['serviceUnavailable']['message']
    assert servers(api, token) == []


def test_concurrent_boots_never_pass_the_limit_together(running, keystone):
    """Placement has no allocation for a server still being scheduled:
    the build requests count, under the project's quota lock."""
    api = running.api
    _, token = project()
    results = []
    barrier = threading.Barrier(8)

    def one(i):
        barrier.wait()
        results.append(api('POST', '/servers', _server(name='race-%d' % i),
                           token=token, version='2.37'))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in results) == [202] * 3 + [403] * 5, [
        r.text for r in results]
    for r in results:
        if r.status_code == 202:
            active(api, token, r.json()['server']['id'])
    listed = servers(api, token)
    assert len(listed) == 3
    assert all(s['status'] == 'ACTIVE' for s in listed)
