"""The real `openstack` CLI and openstacksdk against a real
nova-lite-all-in-one process, with the settings README.rst gives: key
pairs, images (the Glance-like /image and the compute API's proxy),
networks and security groups (the Neutron-like /networking) and a
server's interfaces and security groups.

One all-in-one for the whole module: starting it and each CLI call take
seconds.
"""
import os

from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives import serialization
import pytest

from tests import clients
from tests.functional.conftest import wait_for

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-state'))
    with clients.all_in_one(state_dir) as (endpoint, _proc):
        yield endpoint, state_dir


def test_keypair_create_import_list_show_delete(cloud):
    endpoint, state_dir = cloud
    env = clients.openstack_env(endpoint)
    # The CLI generates the key itself, imports the public half and
    # prints the private one.
    created = clients.openstack(env, 'keypair', 'create', 'cli-gen').stdout
    assert 'PRIVATE KEY-----' in created
    public = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode()
    path = os.path.join(state_dir, 'key.pub')
    with open(path, 'w') as f:
        f.write(public + '\n')
    imported = clients.openstack_json(env, 'keypair', 'create',
                                      '--public-key', path, 'cli-imported')
    assert imported['name'] == 'cli-imported'
    assert len(imported['fingerprint'].split(':')) == 16
    listed = clients.openstack_json(env, 'keypair', 'list')
    assert sorted(k['Name'] for k in listed) == ['cli-gen', 'cli-imported']
    shown = clients.openstack_json(env, 'keypair', 'show', 'cli-imported')
    assert shown['fingerprint'] == imported['fingerprint']
    assert shown['user_id'] == 'admin'
    clients.openstack(env, 'keypair', 'delete', 'cli-gen', 'cli-imported')
    assert clients.openstack_json(env, 'keypair', 'list') == []
    missing = clients.openstack(env, 'keypair', 'show', 'cli-gen',
                                check=False)
    assert missing.returncode != 0


def test_openstacksdk_keypairs_and_image_proxy(cloud):
    import openstack
    endpoint, _state_dir = cloud
    conn = openstack.connect(
        auth_type='admin_token',
        auth={'token': 'admin:admin', 'endpoint': endpoint + '/v2.1'},
        image_endpoint_override=endpoint + '/image',
        network_endpoint_override=endpoint + '/networking')
    keypair = conn.compute.create_keypair(name='sdk-key')
    assert keypair.private_key and keypair.fingerprint
    assert [k.name for k in conn.compute.keypairs()] == ['sdk-key']
    assert conn.compute.get_keypair('sdk-key').fingerprint == \
        keypair.fingerprint
    conn.compute.delete_keypair('sdk-key')
    assert list(conn.compute.keypairs()) == []
    # The compute API's image proxy (below 2.36).
    images = {i.id: i for i in conn.compute.images()}
    assert CIRROS in images
    cirros = conn.compute.get_image(CIRROS)
    assert (cirros.name, cirros.status) == ('cirros-0.6.2-x86_64-disk',
                                            'ACTIVE')
    # The Glance-like and Neutron-like services.
    assert conn.image.find_image('cirros-0.6.2-x86_64-disk').id == CIRROS
    assert conn.network.find_network('private').is_shared is True


def test_image_and_network_commands(cloud):
    endpoint, _state_dir = cloud
    env = clients.openstack_env(endpoint)
    images = clients.openstack_json(env, 'image', 'list')
    assert {'ID': CIRROS, 'Name': 'cirros-0.6.2-x86_64-disk',
            'Status': 'active'} in images
    shown = clients.openstack_json(env, 'image', 'show',
                                   'cirros-0.6.2-x86_64-disk')
    assert (shown['id'], shown['visibility']) == (CIRROS, 'public')
    networks = clients.openstack_json(env, 'network', 'list')
    # The shared network, and the external one (the floating IP pool).
    assert [n['Name'] for n in networks] == ['private', 'public']
    network = clients.openstack_json(env, 'network', 'show', 'private')
    assert network['shared'] is True
    subnets = clients.openstack_json(env, 'subnet', 'list')
    assert sorted(s['Subnet'] for s in subnets) == ['10.0.0.0/24',
                                                    '172.24.4.0/24']
    assert clients.openstack_json(env, 'port', 'list') == []


def test_server_on_a_named_network_gets_a_port_freed_on_delete(cloud):
    """`--network private` is looked up in /networking; the compute binds
    a port there; deleting the server frees it."""
    endpoint, _state_dir = cloud
    env = clients.openstack_env(endpoint)
    clients.openstack(env, 'flavor', 'create', '--ram', '256', '--disk',
                      '1', '--vcpus', '1', 'net-tiny')
    server = clients.openstack_json(
        env, 'server', 'create', '--flavor', 'net-tiny', '--image',
        'cirros-0.6.2-x86_64-disk', '--network', 'private', '--wait',
        'cli-private-net')
    assert server['status'] == 'ACTIVE'
    ports = clients.openstack_json(env, 'port', 'list', '--server',
                                   'cli-private-net', '--long')
    assert len(ports) == 1
    address = ports[0]['Fixed IP Addresses'][0]['ip_address']
    assert server['addresses'] == {'private': [address]}
    clients.openstack(env, 'server', 'delete', '--wait', 'cli-private-net')
    assert clients.openstack_json(env, 'port', 'list') == []


def test_security_group_commands_and_a_server_in_them(cloud):
    """`security group create|rule create|list|delete` against
    /networking; a server booted into a group, given and relieved of
    groups with `server add|remove security group`."""
    endpoint, _state_dir = cloud
    env = clients.openstack_env(endpoint)
    group = clients.openstack_json(env, 'security', 'group', 'create',
                                   '--description', 'http', 'cli-web')
    assert group['name'] == 'cli-web'
    rule = clients.openstack_json(
        env, 'security', 'group', 'rule', 'create', '--protocol', 'tcp',
        '--dst-port', '80', 'cli-web')
    assert (rule['port_range_min'], rule['port_range_max']) == (80, 80)
    names = {g['Name'] for g in clients.openstack_json(
        env, 'security', 'group', 'list')}
    assert names == {'default', 'cli-web'}
    rules = clients.openstack_json(env, 'security', 'group', 'rule',
                                   'list', 'cli-web')
    assert len(rules) == 3   # two egress, the one made here
    clients.openstack(env, 'flavor', 'create', '--ram', '256', '--disk',
                      '1', '--vcpus', '1', 'sg-tiny')
    server = clients.openstack_json(
        env, 'server', 'create', '--flavor', 'sg-tiny', '--image',
        'cirros-0.6.2-x86_64-disk', '--network', 'private',
        '--security-group', 'cli-web', '--wait', 'cli-sg')
    assert server['security_groups'] == [{'name': 'cli-web'}]
    clients.openstack(env, 'server', 'add', 'security', 'group', 'cli-sg',
                      'default')
    clients.openstack(env, 'server', 'remove', 'security', 'group',
                      'cli-sg', 'cli-web')
    shown = clients.openstack_json(env, 'server', 'show', 'cli-sg')
    assert shown['security_groups'] == [{'name': 'default'}]
    clients.openstack(env, 'server', 'delete', '--wait', 'cli-sg')
    clients.openstack(env, 'security', 'group', 'delete', 'cli-web')
    assert [g['Name'] for g in clients.openstack_json(
        env, 'security', 'group', 'list')] == ['default']


def test_server_add_network_and_remove_port_and_network(cloud):
    """`server add network` attaches a new port (os-interface); `server
    remove port` and `server remove network` detach them."""
    endpoint, _state_dir = cloud
    env = clients.openstack_env(endpoint)
    clients.openstack(env, 'flavor', 'create', '--ram', '256', '--disk',
                      '1', '--vcpus', '1', 'if-tiny')
    clients.openstack(env, 'server', 'create', '--flavor', 'if-tiny',
                      '--image', 'cirros-0.6.2-x86_64-disk', '--network',
                      'private', '--wait', 'cli-if')

    def ports():
        return clients.openstack_json(env, 'port', 'list', '--server',
                                      'cli-if')

    assert len(ports()) == 1
    clients.openstack(env, 'server', 'add', 'network', 'cli-if', 'private')
    assert len(ports()) == 2
    first = ports()[0]['ID']
    clients.openstack(env, 'server', 'remove', 'port', 'cli-if', first)
    wait_for(lambda: [p['ID'] for p in ports()] != [] and first not in [
        p['ID'] for p in ports()], timeout=60, message='port detached')
    clients.openstack(env, 'server', 'remove', 'network', 'cli-if',
                      'private')
    wait_for(lambda: ports() == [], timeout=60, message='network removed')
    clients.openstack(env, 'server', 'delete', '--wait', 'cli-if')
