"""Guests that answer SSH ([fake_driver] guest_ssh): a server booted with
a key pair on a private network in 127.0.0.0/8 is reached with paramiko
as Tempest's RemoteClient reaches it (the key pair's private key, then
the admin password), answers the commands Tempest sends, keeps what is
written on its root disk until a rebuild, and stops answering when it
is stopped or deleted.

Each run takes a /24 of its own inside 127/8 (runs in parallel, xdist
workers and other planes never share one)."""
import io
import random
import socket
import time

import paramiko
import pytest

from nova_lite.conf import CONF
from nova_lite.network import api as network_api
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

PROLOGUE = 'set -eu -o pipefail; PATH=$PATH:/sbin:/usr/sbin; '
PRIVATE = network_api.DEFAULT_NETWORK['id']


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    cidr = '127.%d.%d.0/24' % (random.randint(1, 254),
                               random.randint(0, 255))
    CONF.set_override('guest_ssh', True, group='fake_driver')
    CONF.set_override('private_network_cidr', cidr, group='local_services')
    plane = start_plane(tmp_path_factory.mktemp('plane') / 'state')
    try:
        api = Client(plane.endpoint)
        assert api('POST', '/flavors', {'flavor': {
            'name': 'two', 'id': 'two', 'ram': 128, 'vcpus': 2, 'disk': 1,
            'OS-FLV-EXT-DATA:ephemeral': 1}},
            token=ADMIN).status_code == 200
        yield plane, api
    finally:
        stop_plane(plane)
        CONF.clear_override('guest_ssh', group='fake_driver')
        CONF.clear_override('private_network_cidr', group='local_services')


def _keypair(api, name):
    resp = api('POST', '/os-keypairs', {'keypair': {'name': name}})
    assert resp.status_code == 200, resp.text
    return paramiko.RSAKey.from_private_key(
        io.StringIO(resp.json()['keypair']['private_key']))


def _boot(api, name, key_name, password):
    resp = api('POST', '/servers', {'server': {
        'name': name, 'flavorRef': 'two', 'imageRef': IMAGE,
        'key_name': key_name, 'adminPass': password,
        'networks': [{'uuid': PRIVATE}]}}, version='2.37')
    assert resp.status_code == 202, resp.text
    server = _wait_status(api, resp.json()['server']['id'], 'ACTIVE',
                          '2.37')['server']
    return server['id'], server['addresses']['private'][0]['addr']


def _ssh(address, pkey=None, password=None):
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(address, username='cirros', pkey=pkey, password=password,
                   look_for_keys=False, allow_agent=False, timeout=10,
                   auth_timeout=10, banner_timeout=10)
    return client


def _run(client, command):
    """(status, stdout, stderr) of command, with Tempest's prologue."""
    _in, out, err = client.exec_command(PROLOGUE + command, timeout=10)
    status = out.channel.recv_exit_status()
    return status, out.read().decode(), err.read().decode()


def _refused(address):
    with socket.socket() as sock:
        sock.settimeout(5)
        try:
            sock.connect((address, 22))
        except ConnectionRefusedError:
            return True
        return False


def _driver(plane, uuid):
    for service in plane.services:
        for endpoint in service.endpoints:
            driver = getattr(endpoint, 'driver', None)
            if driver is not None and uuid in driver.list_guests():
                return driver
    return None


def _act(api, uuid, body):
    resp = api('POST', '/servers/%s/action' % uuid, body, token=MEMBER)
    assert resp.status_code == 202, resp.text


def test_guest_answers_ssh_and_a_rebuild_wipes_its_disk(cloud):
    plane, api = cloud
    key = _keypair(api, 'ssh-key')
    uuid, address = _boot(api, 'SSH Guest_1', 'ssh-key', 'firstPassw0rd')
    assert address.startswith('127.')
    driver = _driver(plane, uuid)
    assert driver.ssh_addresses(uuid) == [address]

    client = _ssh(address, pkey=key)
    try:
        assert _run(client, 'hostname') == (0, 'ssh-guest-1\n', '')
        assert _run(client, 'grep -c ^processor /proc/cpuinfo') == (
            0, '2\n', '')
        status, disks, _err = _run(client, 'lsblk -lb --nodeps')
        assert status == 0
        assert [line.split()[0] for line in disks.splitlines()] == [
            'NAME', 'vda', 'vdb']     # root and the ephemeral disk
        assert _run(client, 'touch test_file') == (0, '', '')
        assert _run(client, 'cat test_file') == (0, '', '')
        assert _run(client, 'no_such_command') == (
            127, '', 'sh: no_such_command: not found\n')
    finally:
        client.close()
    # The admin password of the create logs in too.
    client = _ssh(address, password='firstPassw0rd')
    try:
        assert _run(client, 'sync && cat test_file') == (0, '', '')
    finally:
        client.close()

    _act(api, uuid, {'rebuild': {'imageRef': IMAGE,
                                 'adminPass': 'rebuildPassw0rd'}})
    _wait_status(api, uuid, 'ACTIVE')     # from REBUILD
    with pytest.raises(paramiko.AuthenticationException):
        _ssh(address, password='firstPassw0rd').close()
    client = _ssh(address, password='rebuildPassw0rd')
    try:
        assert _run(client, 'cat test_file') == (
            1, '', "cat: can't open 'test_file': No such file or "
                   "directory\n")
    finally:
        client.close()
    client = _ssh(address, pkey=key)     # the key pair still logs in
    client.close()

    _act(api, uuid, {'os-stop': None})
    _wait_status(api, uuid, 'SHUTOFF')
    assert _refused(address)
    assert driver.ssh_addresses(uuid) == []
    _act(api, uuid, {'os-start': None})
    _wait_status(api, uuid, 'ACTIVE')
    wait_for(lambda: driver.ssh_addresses(uuid) == [address],
             message='listening again')
    client = _ssh(address, pkey=key)
    client.close()

    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid,
                         token=ADMIN).status_code == 404,
             timeout=30, message='deleted')
    assert _refused(address)
    assert driver.ssh_addresses(uuid) == []


def test_reboot_gives_a_later_boot_time_and_keeps_files(cloud):
    plane, api = cloud
    key = _keypair(api, 'reboot-key')
    uuid, address = _boot(api, 'rebooted', 'reboot-key', 'Passw0rd')
    driver = _driver(plane, uuid)
    client = _ssh(address, pkey=key)
    try:
        assert _run(client, 'echo kept > notes')[0] == 0
        booted = _boot_second(client)
    finally:
        client.close()
    before = driver.list_guests()[uuid]['booted_at']
    _act(api, uuid, {'reboot': {'type': 'HARD'}})
    wait_for(lambda: driver.list_guests()[uuid]['booted_at'] > before,
             message='rebooted')
    _wait_status(api, uuid, 'ACTIVE')
    client = _ssh(address, pkey=key)
    try:
        assert _run(client, 'cat notes') == (0, 'kept\n', '')
        status, uptime, _err = _run(client, 'cut -f1 -d. /proc/uptime')
        assert status == 0 and int(uptime) < 30
        # Rebooted within a second of its boot or not, it booted in a
        # later second (Tempest's reboot tests compare so).
        assert _boot_second(client) > booted
    finally:
        client.close()
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204


def _boot_second(client):
    """The guest's boot time as Tempest's get_boot_time derives it: this
    clock less the whole seconds of /proc/uptime, to the second."""
    status, uptime, _err = _run(client, 'cut -f1 -d. /proc/uptime')
    assert status == 0
    return int(time.time() - int(uptime))


def test_personality_files_reach_the_guest(cloud):
    """Files given on create (personality, up to 2.56) travel with the
    build (compute_task RPC 1.8, compute RPC 1.19) onto the guest's root
    disk, where `sudo cat` reads them as Tempest does."""
    import base64

    plane, api = cloud
    key = _keypair(api, 'files-key')
    resp = api('POST', '/servers', {'server': {
        'name': 'with-files', 'flavorRef': 'two', 'imageRef': IMAGE,
        'key_name': 'files-key', 'networks': [{'uuid': PRIVATE}],
        'personality': [
            {'path': '/test.txt',
             'contents': base64.b64encode(b'This is a test file.').decode()},
            {'path': '/etc/motd',
             'contents': base64.b64encode('h\u00e9llo\n'.encode()).decode()},
        ]}}, version='2.56')
    assert resp.status_code == 202, resp.text
    uuid = resp.json()['server']['id']
    server = _wait_status(api, uuid, 'ACTIVE', '2.56')['server']
    address = server['addresses']['private'][0]['addr']
    client = _ssh(address, pkey=key)
    try:
        assert _run(client, 'sudo cat /test.txt') == (
            0, 'This is a test file.', '')
        assert _run(client, 'cat /etc/motd') == (0, 'h\u00e9llo\n', '')
    finally:
        client.close()
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
