"""The unified-limits quota driver against OpenStack Keystone itself
(tools/keystone.py): legacy limits set through the Compute API under the
database driver are copied into Keystone by ``nova-lite-manage limits
migrate_to_unified_limits`` (dry run, run, rerun); the all-in-one,
restarted with ``[quota] driver = nova_lite.quota.UnifiedLimitsDriver``
and ``[oslo_limit]`` finding its endpoint by service type and region,
enforces the registered limits and a project's own limit through
oslo.limit (403 with oslo.limit's text) and /limits shows them."""
import os
import subprocess

import pytest

from tests import clients
from tests.functional.conftest import wait_for
from tests.real import keystone_cloud

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = 'ul.tiny'

UNIFIED = """
[quota]
driver = nova_lite.quota.UnifiedLimitsDriver
instances = 2

[oslo_limit]
auth_type = password
auth_url = {auth_url}
username = admin
password = {password}
user_domain_name = Default
system_scope = all
endpoint_service_type = compute
endpoint_region_name = RegionOne
"""


def _conf(path, ks, extra):
    return keystone_cloud.write_nova_conf(path, ks, extra=extra.format(
        auth_url=ks.auth_url, password=ks.PASSWORD))


def _manage(state_dir, conf, *args):
    return subprocess.run(
        [os.path.join(clients.BINDIR, 'nova-lite-manage'), '--config-file',
         os.path.join(state_dir, 'nova_lite.conf'), '--config-file', conf,
         'limits', 'migrate_to_unified_limits'] + list(args),
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))


def _system_token(ks):
    tool = keystone_cloud.keystone_tool()
    _status, headers, _body = tool._http(
        'POST', ks.auth_url + '/auth/tokens', {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': 'admin', 'domain': {'id': 'default'},
                'password': ks.PASSWORD}}},
            'scope': {'system': {'all': True}}}})
    return headers['X-Subject-Token']


def _boot(endpoint, token, name):
    return keystone_cloud.call(endpoint, token, 'POST', '/servers', {
        'server': {'name': name, 'flavorRef': FLAVOR, 'imageRef': IMAGE,
                   'networks': 'none'}}, version='2.37')


def _active(endpoint, token, server_id):
    wait_for(lambda: keystone_cloud.call(
        endpoint, token, 'GET', '/servers/%s' % server_id)[1]['server'][
            'status'] == 'ACTIVE', 60, message='%s ACTIVE' % server_id)


def _absolute(endpoint, token):
    status, body = keystone_cloud.call(endpoint, token, 'GET', '/limits')
    assert status == 200, body
    return body['limits']['absolute']


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('keystone-unified')
    port = clients.free_port()
    endpoint = 'http://127.0.0.1:%d' % port
    state_dir = str(workdir / 'nova')
    os.makedirs(state_dir)
    with keystone_cloud.running_keystone(str(workdir / 'keystone'),
                                         endpoint) as ks:
        ks.PASSWORD = keystone_cloud.keystone_tool().PASSWORD
        legacy = keystone_cloud.write_nova_conf(
            str(workdir / 'legacy.conf'), ks)
        unified = _conf(str(workdir / 'unified.conf'), ks, UNIFIED)
        demo = ks.project_id('demo')
        admin = ks.token()
        # Legacy limits, set under the database driver.
        with keystone_cloud.all_in_one_with_keystone(state_dir, port,
                                                     legacy):
            for path, body in (
                    ('/flavors', {'flavor': {'name': FLAVOR, 'id': FLAVOR,
                                             'ram': 256, 'vcpus': 1,
                                             'disk': 1}}),
                    ('/os-quota-class-sets/default',
                     {'quota_class_set': {'cores': 3}}),
                    ('/os-quota-sets/%s' % demo,
                     {'quota_set': {'instances': 3}})):
                status, got = keystone_cloud.call(
                    endpoint, admin, 'PUT' if 'quota' in path else 'POST',
                    path, body)
                assert status == 200, got
        with keystone_cloud.all_in_one_with_keystone(state_dir, port,
                                                     unified):
            yield ks, endpoint, state_dir, unified, demo


def test_migrate_then_enforce_and_show(cloud):
    ks, endpoint, state_dir, conf, demo = cloud
    system = _system_token(ks)

    dry = _manage(state_dir, conf, '--dry-run', '--project-id', demo)
    assert dry.returncode == 0, dry.stderr
    assert 'Would create registered limit servers = 2.' in dry.stdout
    assert 'Would create registered limit class:VCPU = 3.' in dry.stdout
    assert ('Would create limit of project %s servers = 3.' % demo
            in dry.stdout)
    assert ks.api('GET', '/registered_limits', token=system)[
        'registered_limits'] == []

    run = _manage(state_dir, conf, '--project-id', demo)
    assert run.returncode == 0, run.stderr
    registered = {r['resource_name']: r['default_limit'] for r in ks.api(
        'GET', '/registered_limits', token=system)['registered_limits']}
    assert registered['servers'] == 2
    assert registered['class:VCPU'] == 3
    assert registered['class:MEMORY_MB'] == 51200
    assert registered['server_key_pairs'] == 100
    assert registered['server_metadata_items'] == 128
    assert registered['server_groups'] == 10
    assert registered['server_group_members'] == 10
    own = ks.api('GET', '/limits?project_id=%s' % demo, token=system)[
        'limits']
    assert [(lim['resource_name'], lim['resource_limit'])
            for lim in own] == [('servers', 3)]

    again = _manage(state_dir, conf, '--project-id', demo)
    assert again.returncode == 0, again.stderr
    assert 'Created 0 limits.' in again.stdout

    # The registered limit: 2 servers for project alt.
    alt = ks.token('alt', 'alt')
    alt_id = ks.project_id('alt')
    for name in ('a1', 'a2'):
        status, body = _boot(endpoint, alt, name)
        assert status == 202, body
        _active(endpoint, alt, body['server']['id'])
    status, body = _boot(endpoint, alt, 'a3')
    assert status == 403, body
    # oslo.limit's text, as Nova gives it (class:DISK_GB, with no
    # registered limit and not in unified_limits_resource_list, is not
    # enforced but still named when something else is over).
    message = body['forbidden']['message']
    assert message.startswith('Project %s is over a limit for [' % alt_id)
    assert ('Resource servers is over limit of 2 due to current usage 2 '
            'and delta 1' in message), message
    absolute = _absolute(endpoint, alt)
    assert absolute['maxTotalInstances'] == 2
    assert absolute['totalInstancesUsed'] == 2
    assert absolute['maxTotalCores'] == 3
    assert absolute['totalCoresUsed'] == 2

    # demo's own limit (3, migrated), then lowered in Keystone: seen at
    # once, by /limits and by the next boot.
    demo_token = ks.token('demo', 'demo')
    assert _absolute(endpoint, demo_token)['maxTotalInstances'] == 3
    status, body = _boot(endpoint, demo_token, 'd1')
    assert status == 202, body
    ks.api('PATCH', '/limits/%s' % own[0]['id'],
           {'limit': {'resource_limit': 1}}, token=system)
    assert _absolute(endpoint, demo_token)['maxTotalInstances'] == 1
    status, body = _boot(endpoint, demo_token, 'd2')
    assert status == 403, body
    assert 'Resource servers is over limit of 1' in body['forbidden'][
        'message']
    # Setting quotas through the Compute API changes nothing.
    status, body = keystone_cloud.call(
        endpoint, ks.token(), 'PUT', '/os-quota-sets/%s' % demo,
        {'quota_set': {'instances': 10}})
    assert status == 200, body
    assert body['quota_set']['instances'] == 1
