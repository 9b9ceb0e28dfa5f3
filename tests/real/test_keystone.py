"""nova_lite behind OpenStack Keystone itself (tools/keystone.py).

One Keystone (SQLite, fernet tokens, served in its own process) and one
nova-lite-all-in-one with ``[api] auth_strategy = keystone`` are shared by
the module: keystonemiddleware's auth_token validates every token as the
``nova`` service user, and the roles Keystone puts in tokens (admin,
member, reader) meet the policy defaults. The openstack CLI authenticates
by password and finds the Compute API in Keystone's catalog.
"""
import os
import time

import pytest

from tests import clients
from tests.functional.conftest import wait_for
from tests.real import keystone_cloud

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = 'ks.tiny'
# Short, so that a revoked token is refused soon after it was cached.
TOKEN_CACHE_TIME = 2


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('keystone-cloud')
    port = clients.free_port()
    endpoint = 'http://127.0.0.1:%d' % port
    state_dir = str(workdir / 'nova')
    os.makedirs(state_dir)
    with keystone_cloud.running_keystone(str(workdir / 'keystone'),
                                         endpoint) as ks:
        conf = keystone_cloud.write_nova_conf(
            os.path.join(str(workdir), 'keystone-auth.conf'), ks,
            token_cache_time=TOKEN_CACHE_TIME)
        with keystone_cloud.all_in_one_with_keystone(state_dir, port, conf):
            ks.endpoint = endpoint
            status, body = keystone_cloud.call(
                endpoint, ks.token(), 'POST', '/flavors', {'flavor': {
                    'name': FLAVOR, 'id': FLAVOR, 'ram': 256, 'vcpus': 1,
                    'disk': 1}})
            assert status == 200, body
            yield ks


def cli(ks, user, *args):
    """`openstack args -f json` as user, password auth, no override."""
    return clients.openstack_json(ks.client_env(user), *args)


def boot(ks, token, name):
    status, body = keystone_cloud.call(
        ks.endpoint, token, 'POST', '/servers', {'server': {
            'name': name, 'flavorRef': FLAVOR, 'imageRef': IMAGE,
            'networks': 'none'}}, version='2.37')
    assert status == 202, body
    server_id = body['server']['id']
    wait_for(lambda: keystone_cloud.call(
        ks.endpoint, token, 'GET', '/servers/%s' % server_id)[1][
            'server']['status'] == 'ACTIVE', 60, message='%s ACTIVE' % name)
    return server_id


def delete(ks, token, server_id):
    assert keystone_cloud.call(ks.endpoint, token, 'DELETE',
                               '/servers/%s' % server_id)[0] == 204
    wait_for(lambda: keystone_cloud.call(
        ks.endpoint, token, 'GET', '/servers/%s' % server_id)[0] == 404,
        60, message='%s gone' % server_id)


def assert_unauthorized(status, body):
    assert status == 401, body
    assert list(body) == ['unauthorized'], body
    assert body['unauthorized']['code'] == 401
    assert body['unauthorized']['message']


def test_openstack_cli_by_password_through_the_catalog(cloud):
    """A member boots, lists, shows and deletes with the unmodified
    client: password auth, the Compute API (and the image service the
    client looks the image up in) found in Keystone's catalog."""
    created = cli(cloud, 'demo', 'server', 'create', '--flavor', FLAVOR,
                  '--image', IMAGE, '--nic', 'none', '--wait', 'ks-one')
    assert created['status'] == 'ACTIVE'
    assert created['project_id'] == cloud.project_id('demo')
    listed = cli(cloud, 'demo', 'server', 'list')
    assert [(s['Name'], s['Status']) for s in listed] == [('ks-one',
                                                          'ACTIVE')]
    shown = cli(cloud, 'demo', 'server', 'show', created['id'])
    assert (shown['name'], shown['status']) == ('ks-one', 'ACTIVE')
    assert FLAVOR in [f['Name'] for f in cli(cloud, 'demo', 'flavor',
                                             'list')]
    clients.openstack(cloud.client_env('demo'), 'server', 'delete',
                      '--wait', created['id'])
    assert cli(cloud, 'demo', 'server', 'list') == []


def test_admin_lists_compute_services_a_member_may_not(cloud):
    services = cli(cloud, 'admin', 'compute', 'service', 'list')
    assert {s['Binary'] for s in services} == {
        'nova-conductor', 'nova-scheduler', 'nova-compute'}
    refused = clients.openstack(cloud.client_env('demo'), 'compute',
                                'service', 'list', check=False)
    assert refused.returncode != 0
    assert '403' in refused.stderr and 'os-services:list' in refused.stderr


def test_no_token_and_a_bogus_token_are_401_in_the_fault_format(cloud):
    assert_unauthorized(*keystone_cloud.call(cloud.endpoint, '', 'GET',
                                             '/servers'))
    assert_unauthorized(*keystone_cloud.call(
        cloud.endpoint, 'gAAAAAbogus', 'GET', '/servers'))


def test_a_revoked_token_is_401(cloud):
    token = cloud.token('demo', 'demo')
    assert keystone_cloud.call(cloud.endpoint, token, 'GET',
                               '/servers')[0] == 200
    never_used = cloud.token('demo', 'demo')
    cloud.revoke(token)
    cloud.revoke(never_used)
    assert_unauthorized(*keystone_cloud.call(cloud.endpoint, never_used,
                                             'GET', '/servers'))
    # The validation auth_token cached lives token_cache_time seconds.
    time.sleep(TOKEN_CACHE_TIME + 0.5)
    assert_unauthorized(*keystone_cloud.call(cloud.endpoint, token, 'GET',
                                             '/servers'))


def test_an_expired_token_is_401(cloud):
    """A second Keystone on the same database and keys whose tokens live
    three seconds: accepted at first, refused once expired."""
    short = cloud.serve('short', expiration=3)
    try:
        token = cloud.token('demo', 'demo', url=short)
        started = time.monotonic()
        assert keystone_cloud.call(cloud.endpoint, token, 'GET',
                                   '/servers')[0] == 200
        assert time.monotonic() - started < 3
        time.sleep(max(0, 4 - (time.monotonic() - started)))
        assert_unauthorized(*keystone_cloud.call(cloud.endpoint, token,
                                                 'GET', '/servers'))
    finally:
        cloud.stop('short')


def test_roles_and_projects_drive_the_policies(cloud):
    """Another project's member sees 404 for a server; a reader of the
    owning project lists and shows it but may not create; an admin sees
    every project's servers."""
    demo = cloud.token('demo', 'demo')
    server_id = boot(cloud, demo, 'ks-owned')
    try:
        alt = cloud.token('alt', 'alt')
        for method, path in (('GET', '/servers/%s' % server_id),
                             ('DELETE', '/servers/%s' % server_id)):
            status, body = keystone_cloud.call(cloud.endpoint, alt, method,
                                               path)
            assert status == 404, body
            assert body['itemNotFound']['code'] == 404
        status, body = keystone_cloud.call(cloud.endpoint, alt, 'GET',
                                           '/servers')
        assert (status, body['servers']) == (200, [])
        alt_reader = cloud.token('alt-reader', 'alt')
        assert keystone_cloud.call(cloud.endpoint, alt_reader, 'GET',
                                   '/servers/%s' % server_id)[0] == 404

        reader = cloud.token('demo-reader', 'demo')
        status, body = keystone_cloud.call(cloud.endpoint, reader, 'GET',
                                           '/servers')
        assert status == 200
        assert [s['id'] for s in body['servers']] == [server_id]
        assert keystone_cloud.call(cloud.endpoint, reader, 'GET',
                                   '/servers/%s' % server_id)[0] == 200
        status, body = keystone_cloud.call(
            cloud.endpoint, reader, 'POST', '/servers', {'server': {
                'name': 'nope', 'flavorRef': FLAVOR, 'imageRef': IMAGE,
                'networks': 'none'}}, version='2.37')
        assert status == 403, body
        assert body['forbidden']['code'] == 403
        assert keystone_cloud.call(cloud.endpoint, reader, 'DELETE',
                                   '/servers/%s' % server_id)[0] == 403

        admin = cloud.token()
        status, body = keystone_cloud.call(cloud.endpoint, admin, 'GET',
                                           '/servers?all_tenants=1')
        assert server_id in [s['id'] for s in body['servers']]
    finally:
        delete(cloud, demo, server_id)
