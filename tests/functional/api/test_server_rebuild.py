"""The rebuild action through the REST API on a running plane: bodies at
the microversion boundaries that change it, the states it is allowed in,
bad images, and the server re-spawned from the new image on its host."""
import pytest

from tests.conftest import set_override
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

DEBIAN = '70a599e0-31e7-49b7-b260-868f441e862b'
UBUNTU = 'a2459075-d96c-40d5-893e-577ff92e721c'   # min_ram 512, min_disk 3
KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt+d1/dWektvXf3GGys0BVE5d'
       'c9lP0e/vNv7qe8QR0T')


def client_of(plane):
    """A client of the plane, with a flavor every shipped image fits
    (medium)."""
    client = Client(plane.endpoint)
    flavor = {'flavor': {'name': 'medium', 'id': 'medium', 'ram': 512,
                         'vcpus': 1, 'disk': 3}}
    assert client('POST', '/flavors', flavor,
                  token=ADMIN).status_code == 200
    return client


@pytest.fixture
def api(plane):
    return client_of(plane)


def _boot(api, name='vm', token=MEMBER, **extra):
    extra.setdefault('flavorRef', 'medium')
    uuid = api('POST', '/servers', _server(name, **extra), version='2.37',
               token=token).json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE', token=token)
    return uuid


def _rebuild(api, uuid, version='2.1', token=MEMBER, **body):
    return api('POST', '/servers/%s/action' % uuid,
               {'rebuild': dict({'imageRef': DEBIAN}, **body)},
               version=version, token=token)


def _rebuilt(api, uuid, image=DEBIAN, status='ACTIVE'):
    def done():
        server = api('GET', '/servers/%s' % uuid, version='2.1',
                     token=ADMIN).json()['server']
        return server if (server['status'] == status and
                          server['image']['id'] == image and
                          server['OS-EXT-STS:task_state'] is None) else None
    return wait_for(done, timeout=30, message='%s rebuilt' % uuid)


def test_rebuild_respawns_the_server_from_the_new_image(api):
    uuid = _boot(api, metadata={'old': 'x'})
    host = api('GET', '/servers/%s' % uuid,
               token=ADMIN).json()['server']['OS-EXT-SRV-ATTR:host']
    response = _rebuild(api, uuid, name='renamed', metadata={'new': 'y'},
                        adminPass='s3cret', accessIPv4='10.1.2.3',
                        preserve_ephemeral=True)
    assert response.status_code == 202, response.text
    body = response.json()['server']
    assert body['id'] == uuid and body['name'] == 'renamed'
    assert body['adminPass'] == 's3cret'
    assert body['image']['id'] == DEBIAN
    assert body['metadata'] == {'new': 'y'}
    assert body['accessIPv4'] == '10.1.2.3'
    assert body['status'] in ('REBUILD', 'ACTIVE')
    assert 'OS-EXT-STS:vm_state' not in body and 'key_name' not in body
    server = _rebuilt(api, uuid)
    assert server['OS-EXT-SRV-ATTR:host'] == host
    assert server['name'] == 'renamed'
    # A password is made up when none is given.
    again = _rebuild(api, uuid, imageRef=IMAGE).json()['server']
    assert len(again['adminPass']) == 12
    _rebuilt(api, uuid, IMAGE)
    # Another project's server does not exist for a member.
    assert _rebuild(api, uuid, token=OTHER).status_code == 404


def test_rebuild_body_at_the_microversion_boundaries(api):
    key = {'keypair': {'name': 'k1', 'public_key': KEY}}
    assert api('POST', '/os-keypairs', key).status_code == 200
    uuid = _boot(api, key_name='k1', user_data='aGk=')
    # 2.18/2.19: description.
    refused = _rebuild(api, uuid, '2.18', description='d')
    assert refused.status_code == 400
    assert 'description' in refused.json()['badRequest']['message']
    body = _rebuild(api, uuid, '2.19', description='d').json()['server']
    assert body['description'] == 'd'
    _rebuilt(api, uuid)
    # 2.53/2.54: key_name, null unsets it.
    assert 'key_name' in _rebuild(
        api, uuid, '2.53', key_name=None).json()['badRequest']['message']
    body = _rebuild(api, uuid, '2.54', key_name=None).json()['server']
    assert body['key_name'] is None and 'user_data' not in body
    _rebuilt(api, uuid)
    body = _rebuild(api, uuid, '2.54', key_name='k1').json()['server']
    assert body['key_name'] == 'k1'
    _rebuilt(api, uuid)
    missing = _rebuild(api, uuid, '2.54', key_name='nosuch')
    assert missing.status_code == 400
    # 2.56/2.57: user_data in, personality out.
    assert 'user_data' in _rebuild(
        api, uuid, '2.56', user_data='aGk=').json()['badRequest']['message']
    assert _rebuild(api, uuid, '2.56', personality=[]).status_code == 202
    _rebuilt(api, uuid)
    assert 'personality' in _rebuild(
        api, uuid, '2.57', personality=[]).json()['badRequest']['message']
    body = _rebuild(api, uuid, '2.57', user_data='Ynll').json()['server']
    assert body['user_data'] == 'Ynll'
    _rebuilt(api, uuid)
    body = _rebuild(api, uuid, '2.57', user_data=None).json()['server']
    assert body['user_data'] is None
    _rebuilt(api, uuid)
    # 2.74/2.75: the full show body from 2.75.
    below = _rebuild(api, uuid, '2.74', token=ADMIN).json()['server']
    assert 'OS-EXT-STS:task_state' not in below
    assert below['server_groups'] == []
    _rebuilt(api, uuid)
    full = _rebuild(api, uuid, '2.75', token=ADMIN).json()['server']
    shown = api('GET', '/servers/%s' % uuid, version='2.75',
                token=ADMIN).json()['server']
    # As Nova: everything show has but OS-EXT-SRV-ATTR:user_data (a
    # rebuild's user_data is the top-level key).
    assert set(shown) - set(full) == {'OS-EXT-SRV-ATTR:user_data'}
    assert full['OS-EXT-STS:task_state'] in ('rebuilding',
                                            'rebuild_block_device_mapping',
                                            'rebuild_spawning', None)
    assert full['OS-EXT-SRV-ATTR:host'] == shown['OS-EXT-SRV-ATTR:host']
    assert full['user_data'] is None and 'adminPass' in full
    _rebuilt(api, uuid)


def test_rebuild_flavor_body_is_the_servers_copy_at_247(api):
    flavor = {'flavor': {'name': 'doomed', 'id': 'doomed', 'ram': 256,
                         'vcpus': 1, 'disk': 2}}
    assert api('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    uuid = _boot(api, flavorRef='doomed')
    assert api('DELETE', '/flavors/doomed', token=ADMIN).status_code == 202
    below = _rebuild(api, uuid, '2.46').json()['server']['flavor']
    assert below['id'] == 'doomed' and set(below) == {'id', 'links'}
    _rebuilt(api, uuid)
    embedded = _rebuild(api, uuid, '2.47').json()['server']['flavor']
    assert embedded == {'vcpus': 1, 'ram': 256, 'disk': 2, 'ephemeral': 0,
                        'swap': 0, 'original_name': 'doomed',
                        'extra_specs': {}}
    _rebuilt(api, uuid)


def test_rebuild_refuses_bad_images_and_states(api):
    flavor = {'flavor': {'name': 'tiny', 'id': 'tiny', 'ram': 256,
                         'vcpus': 1, 'disk': 1}}
    assert api('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    uuid = _boot(api, flavorRef='tiny')
    for image, words in [('8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f',
                          'Cannot find image'),
                         (UBUNTU, 'too small')]:
        response = _rebuild(api, uuid, imageRef=image)
        assert response.status_code == 400, response.text
        assert words in response.json()['badRequest']['message']
    not_uuid = _rebuild(api, uuid, imageRef='http://x/images/%s' % DEBIAN)
    assert 'imageRef' in not_uuid.json()['badRequest']['message']
    # Busy: a second rebuild while the first runs is a 409 (or the first
    # is already done).
    assert _rebuild(api, uuid, imageRef=IMAGE).status_code == 202
    second = _rebuild(api, uuid, imageRef=IMAGE)
    assert second.status_code in (202, 409)
    if second.status_code == 409:
        assert second.json()['conflictingRequest']['code'] == 409
    _rebuilt(api, uuid, IMAGE)


@pytest.mark.parametrize('state, allowed', [
    ('error', True), ('stopped', True), ('paused', False),
    ('suspended', False)])
def test_rebuild_allowed_vm_states(api, state, allowed):
    uuid = _boot(api)
    _put_in(api, uuid, state)
    response = _rebuild(api, uuid)
    if not allowed:
        assert response.status_code == 409, response.text
        assert 'vm_state' in response.json()['conflictingRequest']['message']
        return
    assert response.status_code == 202, response.text
    expected = 'SHUTOFF' if state == 'stopped' else 'ACTIVE'
    server = _rebuilt(api, uuid, status=expected)
    assert server['OS-EXT-STS:power_state'] == (4 if state == 'stopped'
                                                else 1)


def test_locked_server_is_409_for_members_not_admins(api):
    uuid = _boot(api)
    assert api('POST', '/servers/%s/action' % uuid, {'lock': None},
               token=ADMIN).status_code == 202
    response = _rebuild(api, uuid)
    assert response.status_code == 409
    assert 'locked' in response.json()['conflictingRequest']['message']
    assert _rebuild(api, uuid, token=ADMIN).status_code == 202
    _rebuilt(api, uuid)


# How each state is reached through the API, and the status it shows.
_REACH = {'error': ('os-resetState', {'state': 'error'}, 'ERROR'),
          'stopped': ('os-stop', None, 'SHUTOFF'),
          'paused': ('pause', None, 'PAUSED'),
          'suspended': ('suspend', None, 'SUSPENDED')}


def _put_in(api, uuid, state):
    action, body, status = _REACH[state]
    response = api('POST', '/servers/%s/action' % uuid, {action: body},
                   token=ADMIN)
    assert response.status_code == 202, response.text
    _wait_status(api, uuid, status, token=ADMIN)


def test_no_admin_pass_when_instance_passwords_are_disabled(api):
    set_override('enable_instance_password', False, group='api')
    created = api('POST', '/servers', _server('quiet', flavorRef='medium'),
                  version='2.37')
    assert created.status_code == 202
    assert 'adminPass' not in created.json()['server']
    uuid = created.json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    body = _rebuild(api, uuid, adminPass='x').json()['server']
    assert 'adminPass' not in body
    _rebuilt(api, uuid)
