"""Volume swap through the REST API (PUT
/servers/{id}/os-volume_attachments/{volume_id} with another volumeId):
the service role's by Nova's default policy (an administrator is
allowed here by a policy file), refused as Nova refuses it, done by the
server's compute (the new volume in-use on the same device, the old one
available, action swap_volume) and rolled back when the hypervisor
fails (both volumes as they were)."""
import json
import os

import pytest

from nova_lite import policy
from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_volumes import MISSING
from tests.functional.api.test_volumes import Volumes
from tests.functional.conftest import wait_for
from tests.functional import notification_fixtures

SWAP_RULE = 'os_compute_api:os-volumes-attachments:swap'


@pytest.fixture
def admin_swaps(running, override):  # noqa: F811
    path = os.path.join(running.plane.state_dir, 'swap-policy.json')
    with open(path, 'w') as f:
        json.dump({SWAP_RULE: 'role:admin'}, f)
    override('policy_file', path, group='oslo_policy')
    policy.reset()
    yield
    os.remove(path)
    policy.reset()


def _setup(running):  # noqa: F811
    volumes = Volumes(running.plane.endpoint)
    created = running.api('POST', '/servers', _server(), version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(running.api, uuid, 'ACTIVE')
    old = volumes.create(size=2, name='old')['id']
    path = '/servers/%s/os-volume_attachments' % uuid
    assert running.api('POST', path, {'volumeAttachment': {
        'volumeId': old}}).status_code == 200
    volumes.wait(old, 'in-use')
    return volumes, uuid, old, path + '/' + old


def _swap(running, one, new_id, version='2.85', token=ADMIN):  # noqa
    return running.api('PUT', one, {'volumeAttachment': {
        'volumeId': new_id}}, version=version, token=token)


def _attached(running, uuid):  # noqa: F811
    return [(a['volumeId'], a['device']) for a in running.api(
        'GET', '/servers/%s/os-volume_attachments' % uuid).json()[
        'volumeAttachments']]


def test_swap_needs_the_service_role_by_default(running):  # noqa: F811
    volumes, uuid, old, one = _setup(running)
    new = volumes.create(size=2, name='new')['id']
    assert _swap(running, one, new).status_code == 403
    assert _swap(running, one, new, token=MEMBER).status_code == 403
    running.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    running.gone(uuid)


def test_swap_moves_the_attachment(running, admin_swaps):  # noqa: F811
    volumes, uuid, old, one = _setup(running)
    new = volumes.create(size=3, name='new')['id']
    small = volumes.create(size=1, name='small')['id']
    # Refusals, as Nova's: the same (attached) volume, a smaller one, a
    # missing one, a volume not attached to the server.
    same = _swap(running, one, old, version='2.84')
    assert same.status_code == 400 and 'must be detached' in same.text
    smaller = _swap(running, one, small)
    assert smaller.status_code == 400 and 'same size or larger' in \
        smaller.text
    assert _swap(running, one, MISSING).status_code == 404
    assert _swap(running, one.replace(old, small), new).status_code == 404
    assert _swap(running, one, new, token=MEMBER).status_code == 403
    assert volumes.status(old) == 'in-use'
    collector = notification_fixtures.Collector().start()
    try:
        swapped = _swap(running, one, new)
        assert swapped.status_code == 202, swapped.text
        volumes.wait(new, 'in-use')
        volumes.wait(old, 'available')
        end, = collector.wait_for(uuid, 'instance.volume_swap.end')
        start, = collector.about(uuid, 'instance.volume_swap.start')
    finally:
        collector.stop()
    for sent in (start, end):
        assert sent['payload']['nova_object.name'] == \
            'InstanceActionVolumeSwapPayload'
        data = sent['payload']['nova_object.data']
        assert (data['old_volume_id'], data['new_volume_id']) == (old, new)
    wait_for(lambda: _attached(running, uuid) == [(new, '/dev/vdb')],
             timeout=30, message='mapping moved')
    actions = running.api('GET', '/servers/%s/os-instance-actions' % uuid,
                          token=ADMIN).json()['instanceActions']
    swap = [a for a in actions if a['action'] == 'swap_volume'][0]
    events = running.api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, swap['request_id']), token=ADMIN,
        version='2.51').json()['instanceAction']['events']
    assert [(e['event'], e['result']) for e in events] == [
        ('compute_swap_volume', 'Success')]
    # Stopped: 409 (active, paused and resized servers only).
    running.act(uuid, {'os-stop': None}, token=ADMIN)
    running.settle(uuid, 'stopped')
    stopped = _swap(running, one.replace(old, new), old)
    assert stopped.status_code == 409, stopped.text
    running.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    running.gone(uuid)
    volumes.wait(new, 'available')


def test_failed_swap_rolls_back(running, admin_swaps,  # noqa: F811
                                override):  # noqa: F811
    volumes, uuid, old, one = _setup(running)
    new = volumes.create(size=2, name='new')['id']
    override('fail_methods', ['swap_volume'], group='fake_driver')
    assert _swap(running, one, new).status_code == 202
    wait_for(lambda: volumes.status(new) == 'available'
             and volumes.status(old) == 'in-use', timeout=30,
             message='rolled back')
    assert _attached(running, uuid) == [(old, '/dev/vdb')]
    shown = running.api('GET', '/servers/%s' % uuid).json()['server']
    assert (shown['status'], shown['OS-EXT-STS:task_state']) == (
        'ACTIVE', None)
    running.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    running.gone(uuid)
