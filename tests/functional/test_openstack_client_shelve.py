"""Shelve, unshelve, rescue, unrescue, backups and passwords with the
real clients against a real nova-lite-all-in-one process: `openstack
server shelve/unshelve/rescue/unrescue`, `openstack server backup
create`, `openstack server set --password/--no-password`."""
import time

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-shelve'))
    with clients.cloud_with_flavor(state_dir, 'shelve.tiny', 256,
                                   1) as cloud:
        yield cloud


def _json(env, *args):
    return clients.openstack_json(env, *args)


def _status(env, server, wanted, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        shown = _json(env, 'server', 'show', server)
        if shown['status'] == wanted and not shown.get(
                'OS-EXT-STS:task_state'):
            return shown
        assert time.monotonic() < deadline, (wanted, shown['status'])
        time.sleep(0.2)


def test_openstack_server_shelve_unshelve_rescue_unrescue(cloud):
    _endpoint, env = cloud
    server = _json(env, 'server', 'create', '--flavor', 'shelve.tiny',
                   '--image', IMAGE, '--nic', 'none', '--wait',
                   'cli-shelve')['id']
    clients.openstack(env, 'server', 'shelve', '--wait', server)
    shown = _status(env, server, 'SHELVED_OFFLOADED')
    assert shown['OS-EXT-SRV-ATTR:host'] is None
    images = [i['Name'] for i in _json(env, 'image', 'list')]
    assert 'cli-shelve-shelved' in images
    clients.openstack(env, '--os-compute-api-version', '2.77', 'server',
                      'unshelve', '--availability-zone', 'nova', '--wait',
                      server)
    _status(env, server, 'ACTIVE')
    clients.openstack(env, 'server', 'rescue', '--password', 's3cret',
                      server)
    _status(env, server, 'RESCUE')
    clients.openstack(env, 'server', 'unrescue', server)
    _status(env, server, 'ACTIVE')
    backup = _json(env, 'server', 'backup', 'create', '--name', 'cli-daily',
                   '--type', 'daily', '--rotate', '1', '--wait', server)
    assert backup['name'] == 'cli-daily'
    clients.openstack(env, 'server', 'set', '--password', 'n3w-s3cret',
                      server)
    clients.openstack(env, 'server', 'set', '--no-password', server)
    _status(env, server, 'ACTIVE')
    actions = [e['Action'] for e in _json(env, 'server', 'event', 'list',
                                          server)]
    assert actions == ['changePassword', 'createBackup', 'unrescue',
                       'rescue', 'unshelve', 'shelve', 'create']
    clients.openstack(env, 'server', 'delete', '--wait', server)
