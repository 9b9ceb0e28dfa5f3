"""`openstack server ...` and `openstack keypair ...` (the real
python-openstackclient) and openstacksdk against a real
nova-lite-all-in-one process, as README.rst shows them."""
import json
import os
import subprocess
import urllib.request

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


# Options a user shapes the all-in-one with (--config-file, repeatable).
USER_CONFIG = """[fake_driver]
vcpus = 40
"""
MORE_CONFIG = """[scheduler]
weight_classes = ram,cpu
"""


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-servers'))
    confs = []
    for name, text in (('user.conf', USER_CONFIG),
                       ('more.conf', MORE_CONFIG)):
        confs += ['--config-file', os.path.join(state_dir, name)]
        with open(confs[-1], 'w') as f:
            f.write(text)
    with clients.all_in_one(state_dir, *confs) as (endpoint, _proc):
        env = clients.openstack_env(endpoint)
        clients.openstack(env, 'flavor', 'create', '--ram', '256',
                          '--disk', '1', '--vcpus', '1', '--id', 'cli.tiny',
                          'cli.tiny')
        yield endpoint, env


def _json(env, *args):
    return clients.openstack_json(env, *args)


def test_server_create_wait_show_list_delete(cloud):
    _endpoint, env = cloud
    created = _json(env, '--os-compute-api-version', '2.47', 'server',
                    'create', '--flavor', 'cli.tiny', '--image', IMAGE,
                    '--nic', 'none', '--wait', 'cli-one')
    assert created['status'] == 'ACTIVE'
    assert created['name'] == 'cli-one'
    shown = _json(env, '--os-compute-api-version', '2.47', 'server', 'show',
                  created['id'])
    # 2.47: the instance's own flavor copy; 2.46: the flavor's id.
    assert 'original_name' in json.dumps(shown['flavor'])
    assert 'cli.tiny' in json.dumps(shown['flavor'])
    old = _json(env, '--os-compute-api-version', '2.46', 'server', 'show',
                created['id'])
    assert 'cli.tiny' in json.dumps(old['flavor'])
    assert 'original_name' not in json.dumps(old['flavor'])
    listed = _json(env, 'server', 'list')
    assert [(s['Name'], s['Status']) for s in listed] == [('cli-one',
                                                          'ACTIVE')]
    long = _json(env, 'server', 'list', '--long')
    assert long[0]['Power State'] in (1, 'Running'), long[0]
    assert 'cli.tiny' in json.dumps(long[0]), long[0]
    clients.openstack(env, 'server', 'delete', '--wait', created['id'])
    assert _json(env, 'server', 'list') == []


def test_server_create_with_auto_network_gets_an_address(cloud):
    _endpoint, env = cloud
    created = _json(env, '--os-compute-api-version', '2.37', 'server',
                    'create', '--flavor', 'cli.tiny', '--image', IMAGE,
                    '--nic', 'auto', '--wait', 'cli-net')
    assert created['status'] == 'ACTIVE'
    addresses = json.dumps(created['addresses'])
    assert 'private' in addresses and '10.0.0.' in addresses
    clients.openstack(env, 'server', 'delete', '--wait', created['id'])


def test_keypair_create_then_boot_with_it(cloud):
    _endpoint, env = cloud
    kp = clients.openstack(env, 'keypair', 'create', 'cli-key')
    assert 'PRIVATE KEY' in kp.stdout
    created = _json(env, 'server', 'create', '--flavor', 'cli.tiny',
                    '--image', IMAGE, '--key-name', 'cli-key',
                    '--no-network', '--wait', 'cli-keyed')
    assert created['key_name'] == 'cli-key'
    clients.openstack(env, 'server', 'delete', '--wait', created['id'])
    clients.openstack(env, 'keypair', 'delete', 'cli-key')


def test_openstacksdk_boots_lists_and_deletes(cloud):
    endpoint, _env = cloud
    conn = clients.sdk_admin(endpoint, '2.47')
    server = conn.compute.create_server(name='sdk-one',
                                        flavor_id='cli.tiny',
                                        image_id=IMAGE, networks='none')
    server = conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    assert server.flavor['original_name'] == 'cli.tiny'
    assert [s.name for s in conn.compute.servers()] == ['sdk-one']
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=60)


def test_config_files_shape_the_all_in_one(cloud):
    endpoint, _env = cloud
    req = urllib.request.Request(
        endpoint + '/v2.1/os-hypervisors/detail',
        headers={'X-Auth-Token': 'admin:admin'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        hypervisors = json.loads(resp.read())['hypervisors']
    assert [h['vcpus'] for h in hypervisors] == [40]


def test_a_missing_config_file_is_refused(tmp_path):
    result = subprocess.run(
        [os.path.join(clients.BINDIR, 'nova-lite-all-in-one'),
         '--state-dir', str(tmp_path), '--port', str(clients.free_port()),
         '--config-file', str(tmp_path / 'nope.conf')],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert 'nope.conf not found' in result.stderr
