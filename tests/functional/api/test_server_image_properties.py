"""2.98 through the REST API: the server's image carries the properties
the server kept of it (its system metadata, as Nova's) in show, list
detail, update and rebuild; not below 2.98; replaced by a rebuild's
image."""
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_server_rebuild import DEBIAN
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import IMAGE as CIRROS

# The image's properties, its fields and base_image_ref, as Nova keeps
# them (strings; min_disk at least the flavor's disk of 5 GiB).
CIRROS_PROPERTIES = {'os_distro': 'cirros', 'architecture': 'x86_64',
                     'hw_disk_bus': 'virtio', 'base_image_ref': CIRROS,
                     'min_ram': '0', 'min_disk': '5', 'disk_format': 'qcow2',
                     'container_format': 'bare'}
DEBIAN_PROPERTIES = {'os_distro': 'debian', 'os_version': '12',
                     'architecture': 'x86_64', 'base_image_ref': DEBIAN,
                     'min_ram': '256', 'min_disk': '5',
                     'disk_format': 'qcow2', 'container_format': 'bare'}


def _image(api, uuid, version):
    return api('GET', '/servers/%s' % uuid,
               version=version).json()['server']['image']


def _boot(api):
    flavor = {'flavor': {'name': 'roomy', 'id': 'roomy', 'ram': 512,
                         'vcpus': 1, 'disk': 5}}
    assert api('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    created = api('POST', '/servers', {'server': {
        'name': 'vm', 'flavorRef': 'roomy', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    settled(api, uuid, 'ACTIVE')
    return uuid


def test_image_properties_from_2_98(plane):
    api = client_with_flavor(plane)
    uuid = _boot(api)
    for version in ('2.1', '2.97'):
        assert set(_image(api, uuid, version)) == {'id', 'links'}
    image = _image(api, uuid, '2.98')
    assert set(image) == {'id', 'links', 'properties'}
    assert image['properties'] == CIRROS_PROPERTIES

    detail = api('GET', '/servers/detail', version='2.98').json()
    assert [s['image']['properties'] for s in detail['servers']] == \
        [CIRROS_PROPERTIES]
    old_detail = api('GET', '/servers/detail', version='2.97').json()
    assert 'properties' not in old_detail['servers'][0]['image']

    updated = api('PUT', '/servers/%s' % uuid,
                  {'server': {'name': 'renamed'}}, version='2.98')
    assert updated.status_code == 200, updated.text
    assert updated.json()['server']['image']['properties'] == \
        CIRROS_PROPERTIES
    older = api('PUT', '/servers/%s' % uuid,
                {'server': {'name': 'renamed'}}, version='2.97')
    assert 'properties' not in older.json()['server']['image']

    # A rebuild replaces them with the new image's (none of cirros'
    # left behind).
    rebuilt = api('POST', '/servers/%s/action' % uuid,
                  {'rebuild': {'imageRef': DEBIAN}}, version='2.98')
    assert rebuilt.status_code == 202, rebuilt.text
    assert rebuilt.json()['server']['image']['properties'] == \
        DEBIAN_PROPERTIES
    settled(api, uuid, 'ACTIVE')
    assert _image(api, uuid, '2.98')['properties'] == DEBIAN_PROPERTIES
    assert _image(api, uuid, 'latest')['properties'] == DEBIAN_PROPERTIES
