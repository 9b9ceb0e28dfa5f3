"""os-assisted-volume-snapshots through the REST API, as Nova 34
answers it (administrators; Tempest's VolumesAssistedSnapshotsTest):
the server's hypervisor records the volume's overlay, the delete drops
it, and a volume no server has, a malformed delete_info and a member
are refused."""
import json
import os
import urllib.parse

from nova_lite.virt import fake
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_volumes import MISSING
from tests.functional.api.test_volumes import Volumes
from tests.functional.conftest import wait_for

PATH = '/os-assisted-volume-snapshots'


def _create(running, volume_id, snapshot_id, token=ADMIN, **info):  # noqa
    info = dict({'snapshot_id': snapshot_id, 'type': 'qcow2',
                 'new_file': 'snap-%s' % snapshot_id}, **info)
    return running.api('POST', PATH, {'snapshot': {
        'volume_id': volume_id, 'create_info': info}}, token=token)


def _delete(running, snapshot_id, volume_id, token=ADMIN):  # noqa: F811
    query = urllib.parse.urlencode(
        {'delete_info': json.dumps({'volume_id': volume_id})})
    return running.api('DELETE', '%s/%s?%s' % (PATH, snapshot_id, query),
                       token=token)


def _overlays(running, uuid):  # noqa: F811
    guest = fake.load_guests(os.path.join(
        running.plane.state_dir, 'fake-hypervisor'),
        running.host(uuid))[uuid]
    return guest.get('volume_snapshots', {})


def test_snapshot_created_and_deleted_on_the_hypervisor(
        running):  # noqa: F811
    volumes = Volumes(running.plane.endpoint)
    free = volumes.create(size=1, name='free')['id']
    created = running.api('POST', '/servers', _server(), version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(running.api, uuid, 'ACTIVE')
    volume = volumes.create(size=1, name='attached')['id']
    assert running.api('POST', '/servers/%s/os-volume_attachments' % uuid,
                       {'volumeAttachment': {'volumeId': volume}}
                       ).status_code == 200
    volumes.wait(volume, 'in-use')
    # Refusals: a member (403), a volume no server has or no volume at
    # all (400, as Nova), a type other than qcow2 (400), a delete_info
    # that is missing or names no volume (400).
    assert _create(running, volume, 'snap-1', token=MEMBER
                   ).status_code == 403
    for other in (free, MISSING):
        refused = _create(running, other, 'snap-1')
        assert refused.status_code == 400, refused.text
        assert 'No volume Block Device Mapping' in refused.text
    assert _create(running, volume, 'snap-1', type='raw').status_code == 400
    assert running.api('DELETE', PATH + '/snap-1', token=ADMIN
                       ).status_code == 400
    assert running.api('DELETE', PATH + '/snap-1?delete_info={}',
                       token=ADMIN).status_code == 400
    assert _delete(running, 'snap-1', volume, token=MEMBER
                   ).status_code == 403
    # Created: the answer names create_info's id; the hypervisor has the
    # overlay on the volume's device.
    made = _create(running, volume, 'snap-1', id='snap-1')
    assert made.status_code == 200, made.text
    assert made.json() == {'snapshot': {'id': 'snap-1',
                                        'volumeId': volume}}
    wait_for(lambda: _overlays(running, uuid) == {
        '/dev/vdb': {'snap-1': 'snap-snap-1'}}, timeout=30,
        message='overlay recorded')
    # Without an id (Tempest sends none): null, as Nova answers.
    assert _create(running, volume, 'snap-2').json()['snapshot'][
        'id'] is None
    wait_for(lambda: 'snap-2' in _overlays(running, uuid).get(
        '/dev/vdb', {}), timeout=30, message='second overlay')
    deleted = _delete(running, 'snap-1', volume)
    assert deleted.status_code == 204, deleted.text
    wait_for(lambda: _overlays(running, uuid) == {
        '/dev/vdb': {'snap-2': 'snap-snap-2'}}, timeout=30,
        message='overlay deleted')
    running.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    running.gone(uuid)
