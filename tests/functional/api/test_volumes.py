"""Volumes through the REST API on a running plane: boot from volume
(a new volume from an image, an existing volume), block device mapping
bodies, os-volume_attachments (list, show, attach, detach, 2.85 update,
swap refused), delete_on_termination honoured, no root DISK_GB claimed
for a volume-backed server, states and policies."""
import pytest
import requests

from tests import clients
from tests.conftest import set_override
from tests.functional.api.test_server_rebuild import _put_in
from tests.functional.api.test_server_rebuild import DEBIAN
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'


class Volumes(object):
    """The embedded Block Storage API (/volume/v3) as a client uses it."""

    def __init__(self, endpoint):
        self.base = endpoint + '/volume/v3'

    def __call__(self, method, path, body=None, token=MEMBER):
        project = token.split(':')[1]
        return requests.request(
            method, '%s/%s%s' % (self.base, project, path), json=body,
            headers={'X-Auth-Token': token}, timeout=30)

    def create(self, size=1, name='vol', token=MEMBER, **extra):
        response = self('POST', '/volumes', {'volume': dict(
            {'size': size, 'name': name}, **extra)}, token=token)
        assert response.status_code == 202, response.text
        return response.json()['volume']

    def get(self, volume_id, token=MEMBER):
        return self('GET', '/volumes/%s' % volume_id, token=token)

    def status(self, volume_id):
        response = self.get(volume_id)
        if response.status_code == 404:
            return 'gone'
        return response.json()['volume']['status']

    def wait(self, volume_id, status):
        wait_for(lambda: self.status(volume_id) == status, timeout=30,
                 message='volume %s %s' % (volume_id, status))


@pytest.fixture
def api(plane):
    client = Client(plane.endpoint)
    flavor = {'flavor': {'name': 'disky', 'id': 'disky', 'ram': 512,
                         'vcpus': 1, 'disk': 10}}
    assert client('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    return client


@pytest.fixture
def volumes(plane):
    return Volumes(plane.endpoint)


def _create(api, bdms, image='', version='2.79', **extra):
    body = {'server': dict({'name': 'bfv', 'flavorRef': 'disky',
                            'imageRef': image, 'networks': 'none',
                            'block_device_mapping_v2': bdms}, **extra)}
    return api('POST', '/servers', body, version=version)


def _boot(api, bdms, image=''):
    response = _create(api, bdms, image)
    assert response.status_code == 202, response.text
    uuid = response.json()['server']['id']
    return _wait_status(api, uuid, 'ACTIVE', version='2.79')['server']


def _image_to_volume(size=2, delete=True):
    return {'source_type': 'image', 'destination_type': 'volume',
            'uuid': IMAGE, 'boot_index': 0, 'volume_size': size,
            'delete_on_termination': delete}


def _volume(volume_id, boot_index=0, delete=False):
    return {'source_type': 'volume', 'destination_type': 'volume',
            'uuid': volume_id, 'boot_index': boot_index,
            'delete_on_termination': delete}


def _local_gb_used(api):
    """DISK_GB used on every host, as os-hypervisors (before 2.88) shows
    it: the allocations against the hosts' resource providers."""
    return sum(h['local_gb_used'] for h in api(
        'GET', '/os-hypervisors/detail', version='2.87',
        token=ADMIN).json()['hypervisors'])


def _gone(api, uuid):
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='server %s gone' % uuid)


def test_boot_from_a_new_volume_from_an_image(api, volumes):
    server = _boot(api, [_image_to_volume(size=3, delete=True)])
    assert server['image'] == ''
    attached = server['os-extended-volumes:volumes_attached']
    assert len(attached) == 1 and attached[0]['delete_on_termination']
    volume_id = attached[0]['id']
    volume = volumes.get(volume_id).json()['volume']
    assert volume['status'] == 'in-use' and volume['size'] == 3
    assert volume['bootable'] == 'true'
    assert volume['volume_image_metadata']['image_id'] == IMAGE
    assert volume['attachments'][0]['server_id'] == server['id']
    assert volume['attachments'][0]['device'] == '/dev/vda'
    # Below 2.3 the mapping shows no delete_on_termination.
    old = api('GET', '/servers/%s' % server['id'], version='2.2').json()
    assert old['server']['os-extended-volumes:volumes_attached'] == [
        {'id': volume_id}]
    listed = api('GET', '/servers/%s/os-volume_attachments'
                 % server['id']).json()['volumeAttachments']
    assert listed == [{'id': volume_id, 'volumeId': volume_id,
                       'serverId': server['id'], 'device': '/dev/vda'}]
    # Rebuilt only with the image of its root volume (before 2.93).
    rebuild = {'rebuild': {'imageRef': DEBIAN}}
    action = '/servers/%s/action' % server['id']
    response = api('POST', action, rebuild)
    assert response.status_code == 400, response.text
    assert 'volume-backed' in response.json()['badRequest']['message']
    rebuild['rebuild']['imageRef'] = IMAGE
    assert api('POST', action, rebuild).status_code == 202
    # (The rebuild set task_state rebuilding before answering.)
    assert _wait_status(api, server['id'], 'ACTIVE', version='2.79')[
        'server']['image'] == ''
    # The root volume cannot be detached.
    response = api('DELETE', '/servers/%s/os-volume_attachments/%s'
                   % (server['id'], volume_id))
    assert response.status_code == 400, response.text
    # Deleted with the server (delete_on_termination).
    assert api('DELETE', '/servers/%s' % server['id']).status_code == 204
    _gone(api, server['id'])
    volumes.wait(volume_id, 'gone')


def test_cli_boots_from_a_volume_and_attaches_another(api, volumes,
                                                      plane):
    """openstack server create --volume / server add volume / server
    remove volume, finding volumes by name in /volume; the volume booted
    from is kept (no delete_on_termination)."""
    env = dict(clients.openstack_env(plane.endpoint),
               OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE=plane.endpoint
               + '/volume/v3', OS_VOLUME_API_VERSION='3')
    # Each CLI run costs seconds: only the server commands use it.
    root = volumes.create(size=1, name='root', imageRef=IMAGE, token=ADMIN)
    assert root['bootable'] == 'true' and root['status'] == 'available'
    data = volumes.create(size=1, name='data', token=ADMIN)
    # (--wait polls every few seconds: the REST API is polled instead.)
    server = clients.openstack_json(
        env, 'server', 'create', '--flavor', 'disky', '--volume', 'root',
        '--nic', 'none', 'bfv')
    _wait_status(api, server['id'], 'ACTIVE', token=ADMIN)
    assert volumes.get(root['id'], token=ADMIN).json()['volume'][
        'status'] == 'in-use'
    # Another server cannot boot from it now (400), nor may it be
    # deleted while attached (400).
    response = api('POST', '/servers', {'server': {
        'name': 'x', 'flavorRef': 'disky', 'networks': 'none',
        'block_device_mapping_v2': [_volume(root['id'])]}},
        version='2.37', token=ADMIN)
    assert response.status_code == 400, response.text
    assert 'available' in response.json()['badRequest']['message']
    assert volumes('DELETE', '/volumes/%s' % root['id'],
                   token=ADMIN).status_code == 400
    clients.openstack(env, 'server', 'add', 'volume', 'bfv', 'data')
    wait_for(lambda: volumes.get(data['id'], token=ADMIN).json()['volume'][
        'status'] == 'in-use', timeout=30, message='data in-use')
    attached = api('GET', '/servers/%s/os-volume_attachments'
                   % server['id'], token=ADMIN).json()['volumeAttachments']
    assert [(a['volumeId'], a['device']) for a in attached] == [
        (root['id'], '/dev/vda'), (data['id'], '/dev/vdb')]
    clients.openstack(env, 'server', 'remove', 'volume', 'bfv', 'data')
    wait_for(lambda: volumes.get(data['id'], token=ADMIN).json()['volume'][
        'status'] == 'available', timeout=30, message='data available')
    assert api('DELETE', '/servers/%s' % server['id'],
               token=ADMIN).status_code == 204
    wait_for(lambda: volumes.get(root['id'], token=ADMIN).json()['volume'][
        'status'] == 'available', timeout=30, message='root available')
    for volume_id in (root['id'], data['id']):
        assert volumes('DELETE', '/volumes/%s' % volume_id,
                       token=ADMIN).status_code == 202
    assert volumes('GET', '/volumes', token=ADMIN).json() == {'volumes': []}


def test_boot_from_a_blank_volume_with_an_image_ref_beside_it(api,
                                                             volumes):
    """As Nova (Tempest's test_stable_device_rescue_bfv_blank_volume):
    imageRef and a blank root volume: the server boots from the
    volume."""
    server = _boot(api, [{'source_type': 'blank',
                          'destination_type': 'volume', 'boot_index': '0',
                          'volume_size': 1,
                          'delete_on_termination': 'true'}], image=IMAGE)
    [attached] = server['os-extended-volumes:volumes_attached']
    assert attached['delete_on_termination']
    volume = volumes.get(attached['id']).json()['volume']
    assert volume['status'] == 'in-use' and volume['size'] == 1
    assert volume['attachments'][0]['device'] == '/dev/vda'
    assert api('DELETE', '/servers/%s' % server['id']).status_code == 204
    _gone(api, server['id'])
    volumes.wait(attached['id'], 'gone')


def test_volume_backed_servers_claim_no_root_disk(api):
    assert _local_gb_used(api) == 0
    image_backed = api('POST', '/servers', {'server': {
        'name': 'local', 'flavorRef': 'disky', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37').json()['server']['id']
    _wait_status(api, image_backed, 'ACTIVE')
    assert _local_gb_used(api) == 10
    _boot(api, [_image_to_volume(size=2)])
    assert _local_gb_used(api) == 10


BAD_MAPPINGS = [
    ({k: v for k, v in _image_to_volume().items() if k != 'volume_size'},
     '', 'non-zero size'),
    # as Nova: a null volume_size is refused by the schema.
    (_image_to_volume(size=None), '', 'volume_size'),
    ({'source_type': 'blank', 'destination_type': 'volume',
      'boot_index': 0}, '', 'non-zero size'),
    ({'source_type': 'snapshot', 'destination_type': 'volume',
      'uuid': MISSING, 'boot_index': 0}, '', 'failed to get snapshot'),
    (_volume(MISSING), '', 'failed to get volume'),
    ({'source_type': 'image', 'destination_type': 'local', 'uuid': IMAGE,
      'boot_index': 1}, IMAGE, 'Mapping image to local'),
    (dict(_image_to_volume(), boot_index=1), '', 'Boot sequence'),
    (dict(_image_to_volume(), uuid=MISSING), '', MISSING),
    ({'source_type': 'volume', 'destination_type': 'local',
      'uuid': MISSING, 'boot_index': 0}, '', 'destination_type'),
]


def test_bad_block_device_mappings_are_400(api):
    """One plane for every case (a plane takes seconds to start)."""
    for bdm, image, message in BAD_MAPPINGS:
        response = _create(api, [bdm], image)
        assert response.status_code == 400, (bdm, response.text)
        assert message in response.json()['badRequest']['message'], bdm
    # The schema of each microversion: no tag before 2.32.
    response = _create(api, [dict(_image_to_volume(), source_type='x')])
    assert response.status_code == 400
    assert 'source_type' in response.json()['badRequest']['message']
    response = _create(api, [dict(_image_to_volume(), tag='t')],
                       version='2.31', networks=[])
    assert response.status_code == 400
    assert 'tag' in response.json()['badRequest']['message']
    # Nothing was created.
    assert api('GET', '/servers').json()['servers'] == []


def test_attach_update_and_detach(api, volumes):
    server = api('POST', '/servers', {'server': {
        'name': 'vm', 'flavorRef': 'disky', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37').json()['server']['id']
    _wait_status(api, server, 'ACTIVE')
    volume = volumes.create(size=1)
    path = '/servers/%s/os-volume_attachments' % server
    assert api('GET', path).json() == {'volumeAttachments': []}
    # Schema: no tag below 2.49, no delete_on_termination below 2.79.
    body = {'volumeAttachment': {'volumeId': volume['id'], 'tag': 't'}}
    assert api('POST', path, body, version='2.48').status_code == 400
    body['volumeAttachment']['delete_on_termination'] = True
    assert api('POST', path, body, version='2.78').status_code == 400
    # Another project's member and the project's reader may not attach.
    assert api('POST', path, body, version='2.79',
               token=OTHER).status_code == 404
    attached = api('POST', path, body, version='2.79')
    assert attached.status_code == 200, attached.text
    assert attached.json()['volumeAttachment'] == {
        'id': volume['id'], 'volumeId': volume['id'], 'serverId': server,
        'device': '/dev/vdb', 'tag': 't', 'delete_on_termination': True}
    volumes.wait(volume['id'], 'in-use')
    # Twice is a 400.
    assert api('POST', path, body, version='2.79').status_code == 400
    one = path + '/' + volume['id']
    shown = api('GET', one, version='2.70').json()['volumeAttachment']
    assert shown == {'id': volume['id'], 'volumeId': volume['id'],
                     'serverId': server, 'device': '/dev/vdb', 'tag': 't'}
    assert api('GET', path + '/' + MISSING).status_code == 404
    # 2.85: delete_on_termination changes; nothing else may.
    update = {'volumeAttachment': {'volumeId': volume['id'],
                                   'delete_on_termination': False}}
    assert api('PUT', one, update, version='2.84').status_code == 400
    # Before 2.85 any PUT is a swap: the service role's.
    same = {'volumeAttachment': {'volumeId': volume['id']}}
    assert api('PUT', one, same, version='2.84').status_code == 403
    assert api('PUT', one, update, version='2.85').status_code == 202
    assert api('GET', one, version='2.85').json()['volumeAttachment'][
        'delete_on_termination'] is False
    bad = {'volumeAttachment': {'volumeId': volume['id'], 'tag': 'other'}}
    assert api('PUT', one, bad, version='2.85').status_code == 400
    # A swap is for the service role; the simulated driver cannot swap.
    other = volumes.create(size=1, name='other')
    swap = {'volumeAttachment': {'volumeId': other['id']}}
    assert api('PUT', one, swap, version='2.85',
               token=ADMIN).status_code == 403
    # Actions recorded.
    actions = [a['action'] for a in api(
        'GET', '/servers/%s/os-instance-actions' % server).json()[
        'instanceActions']]
    assert 'attach_volume' in actions
    # Detach: 202, the volume is available and kept.
    assert api('DELETE', one).status_code == 202
    volumes.wait(volume['id'], 'available')
    # The compute drops its record of the attachment after the volume
    # service's (Nova's order): the listing empties a moment later.
    wait_for(lambda: api('GET', path).json() == {'volumeAttachments': []},
             timeout=10)
    assert api('DELETE', one).status_code == 404
    # Attached again without delete_on_termination: kept when the
    # server is deleted.
    again = {'volumeAttachment': {'volumeId': volume['id']}}
    assert api('POST', path, again).status_code == 200
    volumes.wait(volume['id'], 'in-use')
    assert api('DELETE', '/servers/%s' % server).status_code == 204
    _gone(api, server)
    volumes.wait(volume['id'], 'available')


def test_attach_refused_in_wrong_states_and_to_locked_servers(api,
                                                              volumes):
    server = api('POST', '/servers', {'server': {
        'name': 'vm', 'flavorRef': 'disky', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37').json()['server']['id']
    _wait_status(api, server, 'ACTIVE')
    # (Bootable: a server boots from it below.)
    volume = volumes.create(size=1, imageRef=IMAGE)
    path = '/servers/%s/os-volume_attachments' % server
    body = {'volumeAttachment': {'volumeId': volume['id']}}
    _put_in(api, server, 'error')
    response = api('POST', path, body)
    assert response.status_code == 409, response.text
    assert api('POST', '/servers/%s/action' % server,
               {'os-resetState': {'state': 'active'}},
               token=ADMIN).status_code == 202
    assert api('POST', '/servers/%s/action' % server, {'lock': None},
               token=ADMIN).status_code == 202
    assert api('POST', path, body).status_code == 409
    assert volumes.status(volume['id']) == 'available'
    # Missing volume: 404.
    body = {'volumeAttachment': {'volumeId': MISSING}}
    assert api('POST', path, body, token=ADMIN).status_code == 404
    # A server booting from it that no host can take ends in ERROR in
    # cell0 with the volume reserved; deleting it frees the volume.
    huge = {'flavor': {'name': 'huge', 'id': 'huge', 'ram': 10 ** 8,
                       'vcpus': 1, 'disk': 1}}
    assert api('POST', '/flavors', huge, token=ADMIN).status_code == 200
    response = _create(api, [_volume(volume['id'], delete=True)],
                       flavorRef='huge')
    assert response.status_code == 202, response.text
    unscheduled = response.json()['server']['id']
    _wait_status(api, unscheduled, 'ERROR')
    assert volumes.status(volume['id']) == 'reserved'
    assert api('DELETE', '/servers/%s' % unscheduled).status_code == 204
    _gone(api, unscheduled)
    # delete_on_termination: deleted with it.
    volumes.wait(volume['id'], 'gone')


def test_set_bootable_and_no_boot_from_a_non_bootable_volume(api,
                                                            volumes):
    """os-set_bootable as Cinder (200, no body); a server does not boot
    from a volume whose bootable flag is off (400, as Nova: Tempest's
    test_create_server_from_non_bootable_volume)."""
    blank = volumes.create(size=1)
    assert blank['bootable'] == 'false'
    action = '/volumes/%s/action' % blank['id']

    def bootable():
        return volumes.get(blank['id']).json()['volume']['bootable']

    response = _create(api, [_volume(blank['id'])])
    assert response.status_code == 400, response.text
    assert response.json()['badRequest']['message'] == (
        'Block Device %s is not bootable.' % blank['id'])
    response = volumes('POST', action, {'os-set_bootable': {'bootable': True}})
    assert response.status_code == 200, response.text
    assert response.content == b''
    assert bootable() == 'true'
    for value, shown in ((False, 'false'), ('True', 'true'),
                         ('false', 'false')):
        assert volumes('POST', action, {'os-set_bootable': {
            'bootable': value}}).status_code == 200
        assert bootable() == shown
    # Bad bodies and unknown actions: 400; nothing changed.
    for body in ({'os-set_bootable': {'bootable': 'maybe'}},
                 {'os-set_bootable': {}}, {'os-set_bootable': None},
                 {'os-set_bootable': {'bootable': True, 'x': 1}},
                 {'os-no-such-action': {}}, {}, None):
        response = volumes('POST', action, body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()['badRequest']['code'] == 400
    assert bootable() == 'false'
    # A volume that is missing, or another project's: 404.
    assert volumes('POST', '/volumes/%s/action' % MISSING, {
        'os-set_bootable': {'bootable': True}}).status_code == 404
    assert volumes('POST', action, {'os-set_bootable': {'bootable': True}},
                   token=OTHER).status_code == 404
    assert volumes('GET', action).status_code == 405
    assert bootable() == 'false'
    # Made bootable, it boots (and stays the caller's).
    assert volumes('POST', action, {'os-set_bootable': {
        'bootable': True}}).status_code == 200
    server = _boot(api, [_volume(blank['id'])])
    assert server['os-extended-volumes:volumes_attached'][0][
        'id'] == blank['id']
    assert api('DELETE', '/servers/%s' % server['id']).status_code == 204
    _gone(api, server['id'])


def test_volume_microversion_negotiated(volumes):
    """The volume service names the microversion it answered at, as
    Cinder does (Tempest's volume clients check it): none 3.0,
    ``latest`` the maximum, outside 3.0-3.70 a 406."""
    def ask(version=None):
        headers = {'X-Auth-Token': MEMBER}
        if version:
            headers['OpenStack-API-Version'] = 'volume %s' % version
        return requests.get(volumes.base + '/project-a/volumes',
                            headers=headers, timeout=30)

    assert ask().headers['OpenStack-API-Version'] == 'volume 3.0'
    assert ask('3.68').headers['OpenStack-API-Version'] == 'volume 3.68'
    assert ask('latest').headers['OpenStack-API-Version'] == 'volume 3.70'
    assert ask('3.71').status_code == 406
    assert ask('2.1').status_code == 406
    assert ask('3.x').status_code == 400


def test_disk_device_limit(api, volumes):
    """[compute] max_disk_devices_to_attach, as Nova: an attach past it
    is a 403 that reserves nothing; a build with more devices is
    aborted (ERROR with the reason, its claims freed, not
    rescheduled)."""
    set_override('max_disk_devices_to_attach', 2, group='compute')
    server = api('POST', '/servers', {'server': {
        'name': 'vm', 'flavorRef': 'disky', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37').json()['server']['id']
    _wait_status(api, server, 'ACTIVE')
    path = '/servers/%s/os-volume_attachments' % server
    first, second = volumes.create(size=1), volumes.create(size=1)
    assert api('POST', path, {'volumeAttachment': {
        'volumeId': first['id']}}).status_code == 200
    refused = api('POST', path, {'volumeAttachment': {
        'volumeId': second['id']}})
    assert refused.status_code == 403, refused.text
    assert 'maximum allowed number of disk devices (2)' in \
        refused.json()['forbidden']['message']
    assert volumes.status(second['id']) == 'available'
    assert len(api('GET', path).json()['volumeAttachments']) == 1

    used = _local_gb_used(api)
    blank = {'source_type': 'blank', 'destination_type': 'volume',
             'volume_size': 1, 'delete_on_termination': True}
    made = _create(api, [_image_to_volume(), blank, dict(blank)])
    assert made.status_code == 202, made.text
    uuid = made.json()['server']['id']
    shown = _wait_status(api, uuid, 'ERROR', version='2.79')['server']
    assert 'maximum allowed number of disk devices (2)' in \
        shown['fault']['message']
    request = api('GET', '/servers/%s/os-instance-actions' % uuid).json()[
        'instanceActions'][0]['request_id']
    events = api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, request), token=ADMIN).json()['instanceAction']['events']
    assert len([e for e in events if e['event'].startswith('compute_')]) == 1
    assert _local_gb_used(api) == used
