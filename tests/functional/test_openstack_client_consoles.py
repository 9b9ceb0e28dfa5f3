"""Consoles and usage with the real clients against a real
nova-lite-all-in-one process: `openstack console log show`, `openstack
console url show --novnc`, `openstack usage list/show`, and
openstacksdk's equivalents."""
import datetime
from urllib import parse
import urllib.request

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
WINDOW = ('--start', '2020-01-01', '--end', '2099-01-01')


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-consoles'))
    with clients.cloud_with_flavor(state_dir, 'con.tiny', 256, 1) as cloud:
        yield cloud


def test_openstack_console_and_usage(cloud):
    endpoint, env = cloud
    server = clients.openstack_json(
        env, 'server', 'create', '--flavor', 'con.tiny', '--image', IMAGE,
        '--nic', 'none', '--wait', 'cli-con')['id']
    log = clients.openstack(env, 'console', 'log', 'show', server).stdout
    assert 'Booting cli-con' in log
    tail = clients.openstack(env, 'console', 'log', 'show', '--lines', '1',
                             server).stdout
    assert tail.strip().endswith('login:') and 'Booting' not in tail
    url = clients.openstack_json(env, 'console', 'url', 'show', '--novnc',
                                 server)
    assert url['type'] == 'novnc'
    # The all-in-one's console proxy, on a port of its own, answers.
    parts = parse.urlsplit(url['url'])
    assert (parts.hostname, parts.path) == ('127.0.0.1', '/vnc_auto.html')
    assert parts.port != parse.urlsplit(endpoint).port
    with urllib.request.urlopen(url['url'], timeout=30) as resp:
        assert 'noVNC' in resp.read().decode()
    usages = clients.openstack_json(env, 'usage', 'list', *WINDOW)
    # The client asks detailed=True, which Nova (and so nova_lite) does
    # not take for detailed=1: no server count in the list.
    [mine] = [u for u in usages if u['Project'] == 'admin']
    assert 'CPU Hours' in mine
    # Under noauth2 the token has no project the client can read: name it.
    shown = clients.openstack_json(env, 'usage', 'show', '--project',
                                   'admin', *WINDOW)
    [usage] = shown['Servers']   # -f json: the server usages themselves
    assert (usage['name'], usage['flavor']) == ('cli-con', 'con.tiny')
    clients.openstack(env, 'server', 'delete', '--wait', server)

    conn = clients.sdk_admin(endpoint, '2.40')
    server = conn.compute.create_server(name='sdk-con', flavor_id='con.tiny',
                                        image_id=IMAGE, networks='none')
    server = conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    output = conn.compute.get_server_console_output(server, length=1)
    assert output['output'].endswith('login: ')
    console = conn.compute.create_server_remote_console(
        server, protocol='vnc', type='novnc')
    assert 'token' in console.url
    usage = conn.compute.get_usage('admin',
                                   start=datetime.datetime(2020, 1, 1),
                                   end=datetime.datetime(2099, 1, 1))
    assert {s['name'] for s in usage.server_usages} == {'cli-con',
                                                        'sdk-con'}
    conn.compute.delete_server(server)
