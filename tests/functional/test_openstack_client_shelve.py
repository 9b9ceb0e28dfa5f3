"""Shelve, unshelve, rescue, unrescue, backups, passwords and soft
delete with the real clients against a real nova-lite-all-in-one process
(`[DEFAULT] reclaim_instance_interval` > 0): `openstack server
shelve/unshelve/rescue/unrescue`, `openstack server backup create`,
`openstack server set --password/--root-password/--no-password`,
`openstack server delete` (soft) and `openstack server restore`,
`openstack server delete --force`, and openstacksdk's equivalents."""
import os
import subprocess
import time

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-shelve'))
    # Soft delete on: DELETE keeps the server SOFT_DELETED for an hour
    # (longer than the module), restore brings it back.
    conf = os.path.join(state_dir, 'soft-delete.conf')
    with open(conf, 'w') as f:
        f.write('[DEFAULT]\nreclaim_instance_interval = 3600\n')
    with clients.cloud_with_flavor(state_dir, 'shelve.tiny', 256, 1,
                                   '--config-file', conf) as cloud:
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
    # The image is active before the server's task clears (as in Nova).
    _status(env, server, 'ACTIVE')
    clients.openstack(env, 'server', 'set', '--password', 'n3w-s3cret',
                      server)
    clients.openstack(env, 'server', 'set', '--no-password', server)
    _status(env, server, 'ACTIVE')
    actions = [e['Action'] for e in _json(env, 'server', 'event', 'list',
                                          server)]
    assert actions == ['changePassword', 'createBackup', 'unrescue',
                       'rescue', 'unshelve', 'shelve', 'create']
    # forceDelete: gone at once, soft delete or not.
    clients.openstack(env, 'server', 'delete', '--force', '--wait', server)
    _gone(env, server)


def _gone(env, server):
    result = clients.openstack(env, 'server', 'show', server, check=False)
    assert result.returncode != 0 and 'No Server found' in result.stderr, (
        result.stdout, result.stderr)


def _root_password(env, server, password):
    """`openstack server set --root-password`: the client prompts twice
    (getpass); with no terminal (a new session) it reads stdin."""
    result = subprocess.run(
        [os.path.join(clients.BINDIR, 'openstack'), 'server', 'set',
         '--root-password', server], env=env, input='%s\n%s\n' % (
             password, password), capture_output=True, text=True,
        timeout=120, start_new_session=True)
    assert result.returncode == 0, (result.stdout, result.stderr[-3000:])


def test_openstack_server_soft_delete_restore_root_password(cloud):
    _endpoint, env = cloud
    server = _json(env, 'server', 'create', '--flavor', 'shelve.tiny',
                   '--image', IMAGE, '--nic', 'none', '--wait',
                   'cli-restore')['id']
    _root_password(env, server, 'r00t-s3cret')
    clients.openstack(env, 'server', 'delete', server)
    shown = _status(env, server, 'SOFT_DELETED')
    assert shown['OS-EXT-STS:power_state'] == 4
    listed = _json(env, 'server', 'list', '--deleted', '--name',
                   'cli-restore')
    assert [s['Status'] for s in listed] == ['SOFT_DELETED']
    clients.openstack(env, 'server', 'restore', server)
    shown = _status(env, server, 'ACTIVE')
    assert shown['OS-EXT-STS:power_state'] == 1
    actions = [e['Action'] for e in _json(env, 'server', 'event', 'list',
                                          server)]
    assert actions == ['restore', 'delete', 'changePassword', 'create']
    # A soft-deleted server is deleted for good by forceDelete.
    clients.openstack(env, 'server', 'delete', server)
    _status(env, server, 'SOFT_DELETED')
    clients.openstack(env, 'server', 'delete', '--force', '--wait', server)
    _gone(env, server)


def test_openstacksdk_shelve_rescue_backup_password_restore(cloud):
    endpoint, _env = cloud
    conn = clients.sdk_admin(endpoint, '2.45', image_path='/image')
    compute = conn.compute
    server = compute.create_server(name='sdk-shelve',
                                   flavor_id='shelve.tiny', image_id=IMAGE,
                                   networks='none')
    server = compute.wait_for_server(server, status='ACTIVE', wait=60)
    compute.shelve_server(server)
    server = compute.wait_for_server(server, status='SHELVED_OFFLOADED',
                                     wait=60)
    assert server.compute_host is None
    compute.unshelve_server(server)
    compute.wait_for_server(server, status='ACTIVE', wait=60)
    compute.rescue_server(server, admin_pass='sdk-s3cret')
    compute.wait_for_server(server, status='RESCUE', wait=60)
    compute.unrescue_server(server)
    compute.wait_for_server(server, status='ACTIVE', wait=60)
    backup = compute.backup_server(server, 'sdk-weekly', 'weekly', 1,
                                   wait=True, timeout=60)
    assert (backup.name, backup.status) == ('sdk-weekly', 'active')
    # The image is active before the compute clears the server's task
    # (as in Nova): the next action waits for that.
    deadline = time.monotonic() + 60
    while compute.get_server(server).task_state is not None:
        assert time.monotonic() < deadline, 'the backup task stayed'
        time.sleep(0.2)
    compute.change_server_password(server, 'sdk-n3w')
    compute.clear_server_password(server)
    assert not compute.get_server_password(server)
    compute.delete_server(server)
    compute.wait_for_server(server, status='SOFT_DELETED', wait=60)
    compute.restore_server(server)
    compute.wait_for_server(server, status='ACTIVE', wait=60)
    actions = [a.action for a in compute.server_actions(server)]
    assert actions == ['restore', 'delete', 'changePassword',
                       'createBackup', 'unrescue', 'rescue', 'unshelve',
                       'shelve', 'create']
    compute.delete_server(server, force=True)
    compute.wait_for_delete(server, wait=60)
