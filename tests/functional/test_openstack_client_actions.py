"""Server actions and events with the real clients against a real
nova-lite-all-in-one process: `openstack server stop/start/reboot/
pause/unpause/suspend/resume/lock/unlock`, `openstack server event
list/show`, and openstacksdk's equivalents."""
import time

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-actions'))
    with clients.cloud_with_flavor(state_dir, 'act.tiny', 256, 1) as cloud:
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


def test_openstack_server_actions_and_events(cloud):
    _endpoint, env = cloud
    server = _json(env, 'server', 'create', '--flavor', 'act.tiny',
                   '--image', IMAGE, '--nic', 'none', '--wait',
                   'cli-act')['id']
    for args, status in ((['stop'], 'SHUTOFF'), (['start'], 'ACTIVE'),
                         (['reboot'], 'ACTIVE'),
                         (['reboot', '--hard'], 'ACTIVE'),
                         (['pause'], 'PAUSED'), (['unpause'], 'ACTIVE'),
                         (['suspend'], 'SUSPENDED'),
                         (['resume'], 'ACTIVE')):
        clients.openstack(env, 'server', *args, server)
        _status(env, server, status)
    clients.openstack(env, '--os-compute-api-version', '2.73', 'server',
                      'lock', '--reason', 'maintenance', server)
    shown = _json(env, '--os-compute-api-version', '2.73', 'server', 'show',
                  server)
    assert shown['locked'] is True
    assert shown['locked_reason'] == 'maintenance'
    clients.openstack(env, 'server', 'unlock', server)
    events = _json(env, 'server', 'event', 'list', server)
    assert [e['Action'] for e in events] == [
        'unlock', 'lock', 'resume', 'suspend', 'unpause', 'pause', 'reboot',
        'reboot', 'start', 'stop', 'create']
    stop = events[-2]
    shown = _json(env, '--os-compute-api-version', '2.84', 'server',
                  'event', 'show', server, stop['Request ID'])
    assert shown['action'] == 'stop'
    [event] = shown['events']
    assert event['event'] == 'compute_stop_instance'
    assert event['result'] == 'Success'
    clients.openstack(env, 'server', 'delete', '--wait', server)


def test_openstacksdk_actions_and_server_actions(cloud):
    endpoint, _env = cloud
    conn = clients.sdk_admin(endpoint, '2.84')
    server = conn.compute.create_server(name='sdk-act',
                                        flavor_id='act.tiny',
                                        image_id=IMAGE, networks='none')
    server = conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    for call, status in ((conn.compute.stop_server, 'SHUTOFF'),
                         (conn.compute.start_server, 'ACTIVE'),
                         (conn.compute.pause_server, 'PAUSED'),
                         (conn.compute.unpause_server, 'ACTIVE'),
                         (conn.compute.suspend_server, 'SUSPENDED'),
                         (conn.compute.resume_server, 'ACTIVE')):
        call(server)
        conn.compute.wait_for_server(server, status=status, wait=60)
    conn.compute.reboot_server(server, 'HARD')
    conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    conn.compute.lock_server(server, locked_reason='sdk')
    assert conn.compute.get_server(server).is_locked
    conn.compute.unlock_server(server)
    actions = list(conn.compute.server_actions(server))
    assert actions[-1].action == 'create'
    assert {a.action for a in actions} >= {'stop', 'start', 'pause',
                                           'reboot', 'lock', 'unlock'}
    stop = next(a for a in actions if a.action == 'stop')
    detail = conn.compute.get_server_action(stop.request_id, server)
    assert detail.events[0]['event'] == 'compute_stop_instance'
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=60)
