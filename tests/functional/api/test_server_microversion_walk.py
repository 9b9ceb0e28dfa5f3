"""Every microversion from 2.1 to the maximum, for servers: the fields
show, detail, list, update and create answer with, and the list query
strictness, as the Compute API reference has them (the table below says
which version adds or removes what; doc/api_version_history.rst has the
same in prose). One running plane, one server booted through the API.
"""
import pytest
import requests

from nova_lite.api.openstack import api_version as av
from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN = 'admin:admin'
MEMBER = 'bob:project-a'
MAX_MINOR = int(av.MAX.split('.')[1])
VERSIONS = ['2.%d' % minor for minor in range(1, MAX_MINOR + 1)]

# Fields of a server in show and detail (first version, admin only).
SHOWN = {
    'id': ('2.1', False), 'name': ('2.1', False), 'status': ('2.1', False),
    'tenant_id': ('2.1', False), 'user_id': ('2.1', False),
    'metadata': ('2.1', False), 'hostId': ('2.1', False),
    'image': ('2.1', False), 'flavor': ('2.1', False),
    'created': ('2.1', False), 'updated': ('2.1', False),
    'addresses': ('2.1', False), 'accessIPv4': ('2.1', False),
    'accessIPv6': ('2.1', False), 'links': ('2.1', False),
    'OS-DCF:diskConfig': ('2.1', False), 'progress': ('2.1', False),
    'OS-EXT-AZ:availability_zone': ('2.1', False),
    'config_drive': ('2.1', False), 'key_name': ('2.1', False),
    'OS-SRV-USG:launched_at': ('2.1', False),
    'OS-SRV-USG:terminated_at': ('2.1', False),
    'OS-EXT-STS:task_state': ('2.1', False),
    'OS-EXT-STS:vm_state': ('2.1', False),
    'OS-EXT-STS:power_state': ('2.1', False),
    'os-extended-volumes:volumes_attached': ('2.1', False),
    'OS-EXT-SRV-ATTR:host': ('2.1', True),
    'OS-EXT-SRV-ATTR:instance_name': ('2.1', True),
    'OS-EXT-SRV-ATTR:hypervisor_hostname': ('2.1', True),
    'OS-EXT-SRV-ATTR:hostname': ('2.3', True),
    'OS-EXT-SRV-ATTR:kernel_id': ('2.3', True),
    'OS-EXT-SRV-ATTR:launch_index': ('2.3', True),
    'OS-EXT-SRV-ATTR:ramdisk_id': ('2.3', True),
    'OS-EXT-SRV-ATTR:reservation_id': ('2.3', True),
    'OS-EXT-SRV-ATTR:root_device_name': ('2.3', True),
    'OS-EXT-SRV-ATTR:user_data': ('2.3', True),
    'locked': ('2.9', False),
    'host_status': ('2.16', True),
    'description': ('2.19', False),
    'tags': ('2.26', False),
    'trusted_image_certificates': ('2.63', False),
    'server_groups': ('2.71', False),
    'locked_reason': ('2.73', False),
}
# What PUT /servers/{id} leaves out below 2.75 (from 2.75 it answers
# with every field GET shows).
NOT_IN_UPDATE_BEFORE_275 = {
    'OS-EXT-AZ:availability_zone', 'config_drive', 'key_name',
    'OS-SRV-USG:launched_at', 'OS-SRV-USG:terminated_at',
    'OS-EXT-STS:task_state', 'OS-EXT-STS:vm_state',
    'OS-EXT-STS:power_state', 'os-extended-volumes:volumes_attached',
    'OS-EXT-SRV-ATTR:host', 'OS-EXT-SRV-ATTR:instance_name',
    'OS-EXT-SRV-ATTR:hypervisor_hostname', 'OS-EXT-SRV-ATTR:hostname',
    'OS-EXT-SRV-ATTR:kernel_id', 'OS-EXT-SRV-ATTR:launch_index',
    'OS-EXT-SRV-ATTR:ramdisk_id', 'OS-EXT-SRV-ATTR:reservation_id',
    'OS-EXT-SRV-ATTR:root_device_name', 'OS-EXT-SRV-ATTR:user_data',
    'host_status'}
FLAVOR_LINK = {'id', 'links'}
FLAVOR_COPY = {'vcpus', 'ram', 'disk', 'ephemeral', 'swap',
               'original_name', 'extra_specs'}


def _v(version):
    return av.APIVersion(version)


def expected_shown(version, admin):
    return {name for name, (first, admin_only) in SHOWN.items()
            if _v(version) >= _v(first) and (admin or not admin_only)}


def expected_updated(version, admin):
    shown = expected_shown(version, admin)
    if _v(version) >= _v('2.75'):
        return shown
    return shown - NOT_IN_UPDATE_BEFORE_275


class Client(object):
    def __init__(self, endpoint):
        self.base = endpoint + '/v2.1'
        self.session = requests.Session()

    def __call__(self, method, path, body=None, version='2.1',
                 token=MEMBER):
        return self.session.request(
            method, self.base + path, json=body, timeout=30,
            headers={'X-Auth-Token': token,
                     'OpenStack-API-Version': 'compute %s' % version})


@pytest.fixture(scope='module')
def walk(tmp_path_factory):
    from tests.functional.conftest import start_plane
    from tests.functional.conftest import stop_plane
    plane = start_plane(tmp_path_factory.mktemp('walk') / 'state')
    try:
        api = Client(plane.endpoint)
        assert api('POST', '/flavors', {'flavor': {
            'name': 'small', 'id': 'small', 'ram': 512, 'vcpus': 1,
            'disk': 1}}, token=ADMIN).status_code == 200
        created = api('POST', '/servers', {'server': {
            'name': 'walker', 'flavorRef': 'small', 'imageRef': IMAGE,
            'networks': 'none'}}, version='2.37')
        assert created.status_code == 202, created.text
        uuid = created.json()['server']['id']
        wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
            'status'] == 'ACTIVE', timeout=30, message='ACTIVE')
        yield api, uuid
    finally:
        stop_plane(plane)


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_show_detail_list_and_update_fields_at_every_version(walk, token):
    api, uuid = walk
    admin = token == ADMIN
    for version in VERSIONS:
        want = expected_shown(version, admin)
        shown = api('GET', '/servers/%s' % uuid, version=version,
                    token=token)
        assert shown.status_code == 200, (version, shown.text)
        body = shown.json()['server']
        assert set(body) == want, (version, set(body) ^ want)
        # A project reader may see the copy's extra specs (Nova's default
        # for os_compute_api:servers:show:flavor-extra-specs).
        flavor = FLAVOR_COPY if _v(version) >= _v('2.47') else FLAVOR_LINK
        assert set(body['flavor']) == flavor, (version, body['flavor'])

        listed = api('GET', '/servers/detail?all_tenants=1' if admin
                     else '/servers/detail', version=version, token=token)
        bodies = [s for s in listed.json()['servers'] if s['id'] == uuid]
        # server_groups (2.71) is in show, update and rebuild only.
        assert [set(b) for b in bodies] == [want - {'server_groups'}], (
            version)

        summary = api('GET', '/servers?all_tenants=1' if admin
                      else '/servers', version=version, token=token)
        assert [set(s) for s in summary.json()['servers']
                if s['id'] == uuid] == [{'id', 'name', 'links'}], version

        updated = api('PUT', '/servers/%s' % uuid,
                      {'server': {'name': 'walker-%s' % version}},
                      version=version, token=token)
        assert updated.status_code == 200, (version, updated.text)
        want_updated = expected_updated(version, admin)
        assert set(updated.json()['server']) == want_updated, (
            version, set(updated.json()['server']) ^ want_updated)


def test_update_body_fields_by_version(walk):
    api, uuid = walk
    for version in VERSIONS:
        described = api('PUT', '/servers/%s' % uuid,
                        {'server': {'description': 'd'}}, version=version)
        assert described.status_code == (
            200 if _v(version) >= _v('2.19') else 400), version


def test_list_query_strictness_at_every_version(walk):
    api, uuid = walk
    for version in VERSIONS:
        unknown = api('GET', '/servers?flavour=small', version=version)
        assert unknown.status_code == (
            400 if _v(version) >= _v('2.75') else 200), version
        tags = api('GET', '/servers?tags=web', version=version)
        assert tags.status_code == 200, version
        # Before 2.26 the tag filters are unknown, so ignored: the server
        # (which has no tag) is still listed; from 2.26 it is filtered.
        ids = [s['id'] for s in tags.json()['servers']]
        assert (uuid in ids) == (_v(version) < _v('2.26')), version
        before = api('GET', '/servers?changes-before=2000-01-01T00:00:00Z',
                     version=version)
        if _v(version) >= _v('2.66'):
            assert before.status_code == 200
            assert before.json()['servers'] == [], version
        else:
            assert before.status_code in (200, 400), version
        locked = api('GET', '/servers?locked=true', version=version)
        if _v(version) >= _v('2.73'):
            assert locked.status_code == 200, version
            assert locked.json()['servers'] == [], version


def test_create_answers_the_same_fields_at_the_boundaries(walk):
    api, _ = walk
    for version in ('2.1', '2.36', '2.37', '2.51', '2.52', av.MAX):
        body = {'server': {'name': 'made-%s' % version,
                           'flavorRef': 'small', 'imageRef': IMAGE}}
        if _v(version) >= _v('2.37'):
            body['server']['networks'] = 'none'
        created = api('POST', '/servers', body, version=version)
        assert created.status_code == 202, (version, created.text)
        server = created.json()['server']
        assert set(server) >= {'id', 'links', 'OS-DCF:diskConfig',
                               'adminPass'}, version
        assert api('DELETE', '/servers/%s' % server['id'],
                   version=version).status_code == 204
    missing = api('POST', '/servers', {'server': {
        'name': 'no-networks', 'flavorRef': 'small', 'imageRef': IMAGE}},
        version='2.37')
    assert missing.status_code == 400
    assert 'networks' in missing.json()['badRequest']['message']


def expected_rebuilt(version, admin):
    """What rebuild answers: what update answers but the extended
    OS-EXT-SRV-ATTR:user_data, the new adminPass, key_name from 2.54 and
    user_data from 2.57."""
    want = (expected_updated(version, admin) | {'adminPass'}) - {
        'OS-EXT-SRV-ATTR:user_data'}
    if _v(version) >= _v('2.54'):
        want.add('key_name')
    if _v(version) >= _v('2.57'):
        want.add('user_data')
    return want


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_rebuild_fields_at_every_version(walk, token):
    api, uuid = walk
    admin = token == ADMIN
    for version in VERSIONS:
        rebuilt = api('POST', '/servers/%s/action' % uuid,
                      {'rebuild': {'imageRef': IMAGE}}, version=version,
                      token=token)
        assert rebuilt.status_code == 202, (version, rebuilt.text)
        body = rebuilt.json()['server']
        want = expected_rebuilt(version, admin)
        assert set(body) == want, (version, set(body) ^ want)
        flavor = FLAVOR_COPY if _v(version) >= _v('2.47') else FLAVOR_LINK
        assert set(body['flavor']) == flavor, (version, body['flavor'])
        wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
            'status'] == 'ACTIVE', timeout=30, message='rebuilt')
