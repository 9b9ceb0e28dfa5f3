"""Volume-backed servers and images through the REST API: createImage of
a boot-from-volume server makes volume snapshots and an image of no data
naming them (block_device_mapping, bdm_v2, root_device_name; size 0), as
Nova does; a server booted from that image gets new volumes from the
snapshots. Rebuild of a volume-backed server: below 2.93 only with the
image of its volume (400), from 2.93 with any image, its root volume
reimaged by the volume service (the compute waits for volume-reimaged;
too late -> ERROR with a fault)."""
import json
import os

import requests

from nova_lite import context as nova_context
from nova_lite import policy
from nova_lite.volume import api as volume_api
from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_server_rebuild import DEBIAN
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for

ROOT = {'source_type': 'image', 'destination_type': 'volume',
        'uuid': IMAGE, 'boot_index': 0, 'volume_size': 2,
        'delete_on_termination': True}


def boot(plane, image='', bdms=(ROOT,)):
    body = {'server': {'name': 'bfv', 'flavorRef': 'small',
                       'imageRef': image, 'networks': 'none'}}
    if bdms:
        body['server']['block_device_mapping_v2'] = list(bdms)
    created = plane.api('POST', '/servers', body, version='2.79')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    _wait_status(plane.api, uuid, 'ACTIVE')
    return uuid


def attached(plane, uuid):
    body = plane.api('GET', '/servers/%s/os-volume_attachments' % uuid,
                     version='2.79').json()
    return body['volumeAttachments']


def glance(plane, image_id):
    resp = requests.get('%s/image/v2/images/%s' % (plane.plane.endpoint,
                                                   image_id),
                        headers={'X-Auth-Token': MEMBER}, timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()


def delete(plane, uuid):
    plane.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    plane.gone(uuid)


def test_snapshot_of_volume_backed_server_and_boot_from_it(
        running):  # noqa: F811
    uuid = boot(running)
    root_volume = attached(running, uuid)[0]['volumeId']
    made = running.api('POST', '/servers/%s/action' % uuid,
                       {'createImage': {'name': 'bfv-snap',
                                        'metadata': {'k': 'v'}}},
                       version='2.45')
    assert made.status_code == 202, made.text
    image_id = made.json()['image_id']
    image = glance(running, image_id)
    assert (image['status'], image['size'], image['name']) == (
        'active', 0, 'bfv-snap')
    assert image['k'] == 'v' and image['bdm_v2'] == 'True'
    assert image['root_device_name'] == '/dev/vda'
    assert image['image_type'] == 'snapshot'
    mapping = json.loads(image['block_device_mapping'])
    assert len(mapping) == 1
    root = mapping[0]
    assert (root['source_type'], root['destination_type'],
            root['boot_index'], root['volume_size'],
            root['delete_on_termination'], root['volume_id']) == (
        'snapshot', 'volume', 0, 2, True, None)
    snapshot = volume_api.API().get_snapshot(
        nova_context.get_admin_context(), root['snapshot_id'])
    assert (snapshot['volume_id'], snapshot['status'], snapshot['size'],
            snapshot['name']) == (root_volume, 'available', 2,
                                  'snapshot for bfv-snap')
    # Recorded as Nova records it: createImage, its API-side event.
    actions = running.api('GET', '/servers/%s/os-instance-actions' % uuid,
                          token=ADMIN).json()['instanceActions']
    snap_action = [a for a in actions if a['action'] == 'createImage'][0]
    events = running.api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, snap_action['request_id']), token=ADMIN,
        version='2.51').json()['instanceAction']['events']
    assert [(e['event'], e['result']) for e in events] == [
        ('api_snapshot_instance', 'Success')]
    # The server is untouched.
    shown = running.api('GET', '/servers/%s' % uuid).json()['server']
    assert (shown['status'], shown['OS-EXT-STS:task_state']) == (
        'ACTIVE', None)

    # Booting from the image: a new root volume from the snapshot.
    child = boot(running, image=image_id, bdms=())
    volumes = attached(running, child)
    assert len(volumes) == 1 and volumes[0]['volumeId'] != root_volume
    volume = volume_api.API().get(nova_context.get_admin_context(),
                                  volumes[0]['volumeId'])
    assert volume['size'] == 2
    assert volume['volume_image_metadata'] == {'image_id': IMAGE}
    # Volume-backed: no image of its own.
    assert running.api('GET', '/servers/%s' % child).json()['server'][
        'image'] == ''
    delete(running, child)
    delete(running, uuid)


def test_snapshot_of_volume_backed_server_refused_while_busy(
        running):  # noqa: F811
    uuid = boot(running)
    locked = running.api('POST', '/servers/%s/action' % uuid,
                         {'os-resetState': {'state': 'error'}},
                         token=ADMIN)
    assert locked.status_code == 202
    refused = running.api('POST', '/servers/%s/action' % uuid,
                          {'createImage': {'name': 'x'}})
    assert refused.status_code == 409, refused.text
    delete(running, uuid)


def _volume(volume_id):
    return volume_api.API().get(nova_context.get_admin_context(),
                                volume_id)


def _rebuild(plane, uuid, version):
    return plane.api('POST', '/servers/%s/action' % uuid,
                     {'rebuild': {'imageRef': DEBIAN}}, version=version)


def test_rebuild_volume_backed_reimages_root_volume_from_293(
        running, override):  # noqa: F811
    uuid = boot(running)
    volume_id = attached(running, uuid)[0]['volumeId']
    refused = _rebuild(running, uuid, '2.92')
    assert refused.status_code == 400, refused.text
    assert 'different image for a volume-backed server' in refused.text
    override('volume_reimage_delay', 1.5, group='local_services')
    accepted = _rebuild(running, uuid, '2.93')
    assert accepted.status_code == 202, accepted.text
    # The compute waits for the volume service's volume-reimaged.
    wait_for(lambda: _volume(volume_id)['status'] == 'downloading',
             timeout=30, message='volume downloading')
    shown = running.api('GET', '/servers/%s' % uuid,
                        token=ADMIN).json()['server']
    assert shown['OS-EXT-STS:task_state'] == 'rebuild_block_device_mapping'
    _wait_status(running.api, uuid, 'ACTIVE')
    wait_for(lambda: running.api('GET', '/servers/%s' % uuid).json()[
        'server']['OS-EXT-STS:task_state'] is None, timeout=30,
        message='rebuilt')
    volume = _volume(volume_id)
    assert (volume['status'], volume['volume_image_metadata']) == (
        'in-use', {'image_id': DEBIAN})
    assert [a['server_id'] for a in volume['attachments']] == [uuid]
    assert attached(running, uuid)[0]['volumeId'] == volume_id
    assert running.api('GET', '/servers/%s' % uuid).json()['server'][
        'image'] == ''
    delete(running, uuid)


def test_rebuild_volume_backed_times_out_into_error(
        running, override):  # noqa: F811
    uuid = boot(running)
    override('volume_reimage_delay', 4, group='local_services')
    override('reimage_timeout_per_gb', 1)
    assert _rebuild(running, uuid, '2.93').status_code == 202
    _wait_status(running.api, uuid, 'ERROR')
    fault = running.api('GET', '/servers/%s' % uuid,
                        token=ADMIN).json()['server']['fault']
    assert 'was not reimaged within 2 seconds' in fault['message']
    delete(running, uuid)


def test_snapshot_of_volume_backed_server_checks_its_own_policy(
        running, override):  # noqa: F811
    """os_compute_api:servers:create_image:allow_volume_backed is checked
    beside create_image, for volume-backed servers only."""
    uuid = boot(running)
    path = os.path.join(running.plane.state_dir, 'vb-policy.json')
    with open(path, 'w') as f:
        json.dump({'os_compute_api:servers:create_image:allow_volume_backed':
                   'role:admin'}, f)
    override('policy_file', path, group='oslo_policy')
    policy.reset()
    try:
        body = {'createImage': {'name': 'no'}}
        refused = running.api('POST', '/servers/%s/action' % uuid, body)
        assert refused.status_code == 403, refused.text
        allowed = running.api('POST', '/servers/%s/action' % uuid, body,
                              token=ADMIN)
        assert allowed.status_code == 202, allowed.text
    finally:
        os.remove(path)
        policy.reset()
    delete(running, uuid)
