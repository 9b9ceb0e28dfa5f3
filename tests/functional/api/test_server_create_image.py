"""The createImage action through the REST API on a running plane: the
answer below and from 2.45, the snapshot image as the compute API's
image proxy and the Glance-style /image API show it, the states it is
allowed in, and the instance actions rebuild and createImage record."""
import pytest
import requests

from tests.functional.api.test_server_rebuild import _boot
from tests.functional.api.test_server_rebuild import _put_in
from tests.functional.api.test_server_rebuild import _rebuild
from tests.functional.api.test_server_rebuild import _rebuilt
from tests.functional.api.test_server_rebuild import client_of
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for


@pytest.fixture
def api(plane):
    return client_of(plane)


def _snapshot(client, uuid, version='2.1', token=MEMBER, **body):
    return client('POST', '/servers/%s/action' % uuid,
                  {'createImage': dict({'name': 'snap'}, **body)},
                  version=version, token=token)


def _glance(plane, image_id, token=MEMBER):
    return requests.get('%s/image/v2/images/%s' % (plane.endpoint, image_id),
                        headers={'X-Auth-Token': token}, timeout=30)


def _active(client, plane, image_id):
    def done():
        image = _glance(plane, image_id).json()
        return image if image.get('status') == 'active' else None
    return wait_for(done, timeout=30, message='image %s active' % image_id)


def _settled(client, uuid, status='ACTIVE'):
    def done():
        server = client('GET', '/servers/%s' % uuid).json()['server']
        return server if (server['status'] == status and
                          server['OS-EXT-STS:task_state'] is None) else None
    return wait_for(done, timeout=30, message='%s settled' % uuid)


def test_create_image_below_245_answers_a_location(api, plane):
    uuid = _boot(api)
    response = _snapshot(api, uuid, '2.44', metadata={'purpose': 'backup'})
    assert response.status_code == 202, response.text
    assert response.text == ''
    location = response.headers['Location']
    image_id = location.rsplit('/', 1)[-1]
    assert location.endswith('/v2.1/images/%s' % image_id)
    image = _active(api, plane, image_id)
    assert image['name'] == 'snap' and image['owner'] == 'project-a'
    assert image['visibility'] == 'private'
    assert image['instance_uuid'] == uuid
    assert image['image_type'] == 'snapshot'
    assert image['base_image_ref'] == IMAGE
    assert image['purpose'] == 'backup'
    assert image['os_distro'] == 'cirros'     # inherited from its image
    proxied = api('GET', '/images/%s' % image_id).json()['image']
    assert proxied['status'] == 'ACTIVE' and proxied['progress'] == 100
    assert proxied['server']['id'] == uuid
    assert proxied['metadata']['image_type'] == 'snapshot'
    listed = [i['id'] for i in api('GET', '/images').json()['images']]
    assert image_id in listed
    _settled(api, uuid)
    # Another project sees neither the server nor the image.
    assert _snapshot(api, uuid, token=OTHER).status_code == 404
    assert _glance(plane, image_id, token=OTHER).status_code == 404
    # A server booted from the snapshot.
    assert _rebuild(api, uuid, imageRef=image_id).status_code == 202
    _rebuilt(api, uuid, image_id)


def test_create_image_from_245_answers_the_image_id(api, plane):
    uuid = _boot(api)
    response = _snapshot(api, uuid, '2.45')
    assert response.status_code == 202, response.text
    assert 'Location' not in response.headers
    image_id = response.json()['image_id']
    assert set(response.json()) == {'image_id'}
    _active(api, plane, image_id)
    server = _settled(api, uuid)
    assert server['status'] == 'ACTIVE'


@pytest.mark.parametrize('version, body, field', [
    ('2.1', {'createImage': {}}, 'name'),
    ('2.1', {'createImage': {'name': ''}}, 'name'),
    ('2.45', {'createImage': {'name': 'x', 'metadata': {'k': 1}}},
     'metadata'),
    ('2.45', {'createImage': {'name': 'x', 'extra': 1}}, 'extra'),
    ('2.45', {'createImage': 'x'}, 'createImage'),
])
def test_bad_create_image_bodies_are_400(api, version, body,
                                         field):
    uuid = _boot(api)
    response = api('POST', '/servers/%s/action' % uuid, body,
                   version=version)
    assert response.status_code == 400, response.text
    assert field in response.json()['badRequest']['message']


@pytest.mark.parametrize('state, allowed', [
    ('stopped', True), ('paused', True), ('suspended', True),
    ('error', False)])
def test_create_image_allowed_vm_states(api, plane, state,
                                        allowed):
    uuid = _boot(api)
    _put_in(api, uuid, state)
    response = _snapshot(api, uuid, '2.45')
    if not allowed:
        assert response.status_code == 409, response.text
        message = response.json()['conflictingRequest']['message']
        assert 'vm_state error' in message
        # No image is left behind by a refused snapshot.
        images = requests.get('%s/image/v2/images?name=snap'
                              % plane.endpoint,
                              headers={'X-Auth-Token': MEMBER},
                              timeout=30).json()['images']
        assert images == []
        return
    assert response.status_code == 202, response.text
    _active(api, plane, response.json()['image_id'])
    status = {'stopped': 'SHUTOFF', 'paused': 'PAUSED',
              'suspended': 'SUSPENDED'}[state]
    _settled(api, uuid, status)


def test_too_much_metadata_is_403(api):
    uuid = _boot(api)
    many = {'k%d' % i: 'v' for i in range(129)}
    response = _snapshot(api, uuid, '2.45', metadata=many)
    assert response.status_code == 403, response.text
    assert 'metadata' in response.json()['forbidden']['message']
    response = _rebuild(api, uuid, metadata=many)
    assert response.status_code == 403, response.text
    assert 'metadata' in response.json()['forbidden']['message']


def test_rebuild_and_create_image_are_recorded_actions(api):
    uuid = _boot(api)
    image_id = _snapshot(api, uuid, '2.45').json()['image_id']
    _settled(api, uuid)
    assert _rebuild(api, uuid, imageRef=image_id).status_code == 202
    _rebuilt(api, uuid, image_id)
    listed = api('GET', '/servers/%s/os-instance-actions' % uuid,
                 version='2.51').json()['instanceActions']

    def finished_events():
        # Each event finishes just after its server settles.
        events = {}
        for action in listed:
            shown = api('GET', '/servers/%s/os-instance-actions/%s' % (
                uuid, action['request_id']), version='2.51').json()
            events[action['action']] = [
                (e['event'], e['result'])
                for e in shown['instanceAction']['events']]
        done = all(r for found in events.values() for _e, r in found)
        return events if done else None
    events = wait_for(finished_events, timeout=30, message='events done')
    assert events['createImage'] == [('compute_snapshot_instance',
                                      'Success')]
    assert events['rebuild'] == [('compute_rebuild_instance', 'Success')]
