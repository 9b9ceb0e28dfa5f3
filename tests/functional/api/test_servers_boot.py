"""POST and DELETE /servers through the REST API on a running plane
(two cells, cell0): what a user sees from create to delete, at the
microversions that change the request."""
import pytest
import requests

from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN = 'admin:admin'
MEMBER = 'bob:project-a'
OTHER = 'eve:project-b'


class Client(object):
    def __init__(self, endpoint):
        self.base = endpoint + '/v2.1'

    def __call__(self, method, path, body=None, version='2.1', token=MEMBER):
        headers = {'X-Auth-Token': token,
                   'OpenStack-API-Version': 'compute %s' % version}
        return requests.request(method, self.base + path, json=body,
                                headers=headers, timeout=30)


@pytest.fixture
def api(plane):
    client = Client(plane.endpoint)
    flavor = {'flavor': {'name': 'small', 'id': 'small', 'ram': 512,
                         'vcpus': 1, 'disk': 1}}
    assert client('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    return client


def _server(name='vm', **extra):
    return {'server': dict({'name': name, 'flavorRef': 'small',
                            'imageRef': IMAGE, 'networks': 'none'}, **extra)}


def _wait_status(api, uuid, status, version='2.1', token=MEMBER):
    def reached():
        body = api('GET', '/servers/%s' % uuid, version=version,
                   token=token).json()
        return body if body['server']['status'] == status else None
    return wait_for(reached, timeout=30, message='%s %s' % (uuid, status))


def test_create_show_list_and_delete(api):
    created = api('POST', '/servers', _server(), version='2.47')
    assert created.status_code == 202, created.text
    server = created.json()['server']
    assert set(server) == {'id', 'links', 'OS-DCF:diskConfig',
                           'security_groups', 'adminPass'}
    uuid = server['id']
    # Listed from the first moment on, once.
    listed = [s['id'] for s in api('GET', '/servers').json()['servers']]
    assert listed.count(uuid) == 1
    body = _wait_status(api, uuid, 'ACTIVE', '2.47')['server']
    assert body['flavor']['original_name'] == 'small'
    assert body['OS-EXT-STS:power_state'] == 1
    assert body['addresses'] == {}
    below = api('GET', '/servers/%s' % uuid, version='2.46').json()
    assert below['server']['flavor']['id'] == 'small'
    # Another project's member does not see it, nor may delete it.
    assert api('GET', '/servers/%s' % uuid, token=OTHER).status_code == 404
    assert api('DELETE', '/servers/%s' % uuid,
               token=OTHER).status_code == 404
    deleted = api('DELETE', '/servers/%s' % uuid)
    assert deleted.status_code == 204, deleted.text
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='server gone')
    # Shown by show and list alike until its cell has deleted it.
    assert uuid not in [s['id'] for s in
                        api('GET', '/servers').json()['servers']]


def test_auto_network_gives_an_address(api):
    created = api('POST', '/servers', _server(networks='auto'),
                  version='2.37').json()['server']
    body = _wait_status(api, created['id'], 'ACTIVE')['server']
    [addresses] = body['addresses'].values()
    assert addresses[0]['version'] == 4
    ips = api('GET', '/servers/%s/ips' % created['id']).json()['addresses']
    assert list(ips.values())[0][0]['addr'] == addresses[0]['addr']


@pytest.mark.parametrize('version, body, field', [
    ('2.37', {'server': {'name': 'x', 'flavorRef': 'small',
                         'imageRef': IMAGE}}, 'networks'),
    ('2.18', _server(description='d'), 'description'),
    ('2.51', _server(tags=['a']), 'tags'),
    ('2.1', {'server': {'flavorRef': 'small', 'imageRef': IMAGE}}, 'name'),
    ('2.37', _server(networks='some'), 'networks'),
    ('2.57', _server(personality=[]), 'personality'),
    ('2.37', _server(min_count=0), 'min_count'),
    ('2.37', _server(accessIPv4='1.2.3'), 'accessIPv4'),
    ('2.37', _server(user_data='not base64!'), 'user_data'),
    ('2.1', _server(), 'networks'),
])
def test_bad_bodies_are_400_naming_the_field(api, version, body, field):
    response = api('POST', '/servers', body, version=version)
    assert response.status_code == 400, response.text
    assert field in response.json()['badRequest']['message']


def test_create_errors_the_compute_api_finds(api):
    assert api('POST', '/servers', _server(flavorRef='nosuch'),
               version='2.37').status_code == 400
    assert api('POST', '/servers', _server(min_count=3, max_count=2),
               version='2.37').status_code == 400
    response = api('POST', '/servers', _server(networks=[{'uuid': 'x'}]),
                   version='2.37')
    assert response.status_code == 400
    # as Nova: from 2.37 the schema itself wants a UUID.
    assert "'x' is not a 'uuid'" in response.json()['badRequest']['message']
    response = api('POST', '/servers', _server(networks=[{'uuid': 'x'}]),
                   version='2.36')
    assert response.status_code == 400
    assert 'network uuid' in response.json()['badRequest']['message']
    # A forced host is for administrators.
    assert api('POST', '/servers', _server(availability_zone='nova:host'),
               version='2.37').status_code == 403


def test_return_reservation_id(api):
    response = api('POST', '/servers', _server(
        min_count=2, return_reservation_id=True), version='2.37')
    assert response.status_code == 202
    reservation = response.json()['reservation_id']
    listed = api('GET', '/servers/detail?reservation_id=%s' % reservation,
                 version='2.37').json()['servers']
    assert sorted(s['name'] for s in listed) == ['vm-1', 'vm-2']


def test_boot_image_as_a_block_device_mapping(api):
    """Clients (openstack server create --image) send the image as a
    block device mapping too (volume mappings: tests/functional/api/
    test_volumes.py)."""
    image_bdm = {'uuid': IMAGE, 'source_type': 'image',
                 'destination_type': 'local', 'boot_index': 0,
                 'delete_on_termination': True}
    created = api('POST', '/servers', _server(
        block_device_mapping_v2=[image_bdm]), version='2.67')
    assert created.status_code == 202, created.text
    without_ref = _server(block_device_mapping_v2=[image_bdm])
    del without_ref['server']['imageRef']
    assert api('POST', '/servers', without_ref,
               version='2.37').status_code == 202
    # A local root from another image than imageRef: 400.
    other = dict(image_bdm, uuid='70a599e0-31e7-49b7-b260-868f441e862b')
    refused = api('POST', '/servers', _server(
        block_device_mapping_v2=[other]), version='2.37')
    assert refused.status_code == 400
    assert 'Boot sequence' in refused.json()['badRequest']['message']
    # A root volume is booted from, with or without imageRef (as Nova):
    # this one is missing (the image's id is no volume's).
    volume = dict(image_bdm, source_type='volume', destination_type='volume')
    refused_body = _server(block_device_mapping_v2=[volume])
    for _ in range(2):
        refused = api('POST', '/servers', refused_body, version='2.37')
        assert refused.status_code == 400
        assert 'failed to get volume' in refused.json()['badRequest'][
            'message']
        refused_body['server'].pop('imageRef', None)


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_247_flavor_is_the_servers_own_copy(api, token):
    """Booted through the API; then the flavor's extra specs change and
    the flavor is deleted: 2.47 bodies keep what the server was built
    with, 2.46 bodies keep the flavor's id."""
    flavor = {'flavor': {'name': 'specced', 'id': 'specced', 'ram': 256,
                         'vcpus': 1, 'disk': 1}}
    assert api('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    api('POST', '/flavors/specced/os-extra_specs',
        {'extra_specs': {'hw:cpu_policy': 'shared'}}, token=ADMIN)
    uuid = api('POST', '/servers', _server(flavorRef='specced'),
               version='2.37', token=token).json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE', token=token)
    api('POST', '/flavors/specced/os-extra_specs',
        {'extra_specs': {'hw:cpu_policy': 'dedicated'}}, token=ADMIN)
    assert api('DELETE', '/flavors/specced',
               token=ADMIN).status_code == 202
    expected = {'vcpus': 1, 'ram': 256, 'disk': 1, 'ephemeral': 0,
                'swap': 0, 'original_name': 'specced',
                'extra_specs': {'hw:cpu_policy': 'shared'}}
    shown = api('GET', '/servers/%s' % uuid, version='2.47',
                token=token).json()['server']
    assert shown['flavor'] == expected
    listed = api('GET', '/servers/detail?name=^vm$', version='2.47',
                 token=token).json()['servers']
    assert [s['flavor'] for s in listed] == [expected]
    renamed = api('PUT', '/servers/%s' % uuid, {'server': {'name': 'vm'}},
                  version='2.47', token=token).json()['server']
    assert renamed['flavor'] == expected
    below = api('GET', '/servers/%s' % uuid, version='2.46',
                token=token).json()['server']['flavor']
    assert below['id'] == 'specced' and set(below) == {'id', 'links'}


def test_pages_across_both_cells(api):
    """Servers booted through the API land in both cells; paging with
    any limit walks the same order as one unpaged list."""
    created = api('POST', '/servers', _server(min_count=6, max_count=6,
                                              return_reservation_id=True),
                  version='2.37')
    reservation = created.json()['reservation_id']

    def active():
        body = api('GET', '/servers/detail?all_tenants=1&reservation_id=%s'
                   % reservation,
                   token=ADMIN, version='2.37').json()['servers']
        return body if len(body) == 6 and all(
            s['status'] == 'ACTIVE' for s in body) else None
    # Administrators see the hosts: both cells are used.
    hosts = {s['OS-EXT-SRV-ATTR:host'] for s in wait_for(
        lambda: active(), timeout=60, message='6 servers ACTIVE')}
    assert {h.split('-')[0] for h in hosts} == {'cell1', 'cell2'}
    whole = [s['id'] for s in api('GET', '/servers').json()['servers']]
    assert len(whole) == 6
    for limit in (1, 2, 4):
        seen, marker = [], None
        while True:
            query = '?limit=%d' % limit + ('&marker=%s' % marker
                                           if marker else '')
            page = api('GET', '/servers/detail' + query).json()
            seen.extend(s['id'] for s in page['servers'])
            if 'servers_links' not in page:
                break
            marker = page['servers'][-1]['id']
        assert seen == whole, limit
