"""Tempest's compute service clients, unmodified, against the in-process
plane over real HTTP. Every call validates the response against
tempest's own JSON schema for the microversion sent (status code, the
required fields, no field a schema forbids, types and formats), so a
body that differs from Nova's fails here even when our own tests agree
with it. The walk covers every band of tempest's schemas from 2.1 to our
maximum."""
import contextlib
import time

import pytest

from tempest.lib.services.compute import availability_zone_client
from tempest.lib.services.compute import base_compute_client
from tempest.lib.services.compute import flavors_client
from tempest.lib.services.compute import hypervisor_client
from tempest.lib.services.compute import images_client
from tempest.lib.services.compute import keypairs_client
from tempest.lib.services.compute import migrations_client
from tempest.lib.services.compute import servers_client
from tempest.lib.services.compute import services_client
from tempest.lib.services.compute import versions_client

from nova_lite.api.openstack import api_version as av

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN, MEMBER = 'admin:admin', 'demo:demo'
MAX = av.MAX
PUBLIC_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt+d1/dWektvXf3GGys0BVE5d'
              'c9lP0e/vNv7qe8QR0T')


class _TokenAuth(object):
    """The part of tempest's auth provider a service client calls: the
    plane's endpoint and a noauth token, no Keystone."""

    def __init__(self, endpoint, token):
        self.endpoint, self.token = endpoint, token

    def auth_request(self, method, url, headers=None, body=None,
                     filters=None):
        headers = dict(headers or {}, **{'X-Auth-Token': self.token})
        return '%s/%s' % (self.endpoint, url.lstrip('/')), headers, body

    def base_url(self, filters, auth_data=None):
        return self.endpoint


@contextlib.contextmanager
def microversion(version):
    """Tempest's clients send (and pick their schema by) this version."""
    base_compute_client.COMPUTE_MICROVERSION = version
    try:
        yield
    finally:
        base_compute_client.COMPUTE_MICROVERSION = None


def _v(version):
    return tuple(int(x) for x in version.split('.'))


def bands(*clients):
    """2.1 and the first version of every schema band of clients, up to
    our maximum."""
    found = {'2.1'}
    for client in clients:
        for band in getattr(client, 'schema_versions_info', ()):
            if band['min'] and _v(band['min']) <= _v(MAX):
                found.add(band['min'])
    found.add(MAX)
    return sorted(found, key=_v)


@pytest.fixture
def tempest(plane):
    endpoint = plane.endpoint + '/v2.1'

    def client(cls, token=MEMBER):
        return cls(_TokenAuth(endpoint, token), 'compute', 'RegionOne')
    flavors = client(flavors_client.FlavorsClient, ADMIN)
    for flavor_id, ram in (('t1', 64), ('t2', 128)):
        flavors.create_flavor(name=flavor_id, id=flavor_id, ram=ram,
                              vcpus=1, disk=1)
    return client


def wait_status(servers, uuid, status):
    deadline = time.monotonic() + 30
    while True:
        server = servers.show_server(uuid)['server']
        if server['status'] == status and not server.get(
                'OS-EXT-STS:task_state'):
            return server
        assert server['status'] != 'ERROR', server
        assert time.monotonic() < deadline, (uuid, status, server['status'])
        time.sleep(0.05)


def test_server_bodies_match_tempests_schemas_at_every_band(tempest):
    servers = tempest(servers_client.ServersClient)
    admin = tempest(servers_client.ServersClient, ADMIN)
    images = tempest(images_client.ImagesClient)
    versions = bands(servers)
    assert len(versions) >= 24, versions
    uuid = None
    for version in versions:
        with microversion(version):
            body = {'name': 'tempest-%s' % version, 'imageRef': IMAGE,
                    'flavorRef': 't1'}
            if _v(version) >= (2, 37):
                body['networks'] = 'none'
            if _v(version) >= (2, 52):
                body['tags'] = ['boot']
            uuid = servers.create_server(**body)['server']['id']
            wait_status(servers, uuid, 'ACTIVE')
            admin.show_server(uuid)
            servers.list_servers()
            servers.list_servers(detail=True)
            admin.list_servers(detail=True, all_tenants=True)
            servers.update_server(uuid, name='renamed')
            servers.rebuild_server(uuid, IMAGE)
            wait_status(servers, uuid, 'ACTIVE')
            servers.set_server_metadata(uuid, {'a': 'b'})
            servers.update_server_metadata(uuid, {'c': 'd'})
            servers.show_server_metadata_item(uuid, 'a')
            servers.set_server_metadata_item(uuid, 'a', {'a': 'e'})
            servers.list_server_metadata(uuid)
            servers.delete_server_metadata_item(uuid, 'c')
            servers.list_addresses(uuid)
            if _v(version) >= (2, 26):
                # Tempest's schema modules from 2.99 have no tag
                # schemas (tags have not changed since 2.26): its tag
                # calls run at 2.98 there.
                with microversion(min(version, '2.98', key=_v)):
                    servers.update_all_tags(uuid, ['x', 'y'])
                    servers.update_tag(uuid, 'z')
                    servers.check_tag_existence(uuid, 'z')
                    servers.list_tags(uuid)
                    servers.delete_tag(uuid, 'x')
                    servers.delete_all_tags(uuid)
            servers.lock_server(uuid)
            servers.unlock_server(uuid)
            actions = servers.list_instance_actions(uuid)['instanceActions']
            assert {a['action'] for a in actions} >= {
                'create', 'rebuild', 'lock', 'unlock'}
            servers.show_instance_action(uuid, actions[0]['request_id'])
            admin.show_instance_action(uuid, actions[0]['request_id'])
            servers.delete_server(uuid)
    # Every action, at the first and the last version.
    for version in ('2.1', MAX):
        with microversion(version):
            body = {'name': 'acts', 'imageRef': IMAGE, 'flavorRef': 't1'}
            if _v(version) >= (2, 37):
                body['networks'] = 'none'
            uuid = servers.create_server(**body)['server']['id']
            wait_status(servers, uuid, 'ACTIVE')
            for call, status in [(servers.stop_server, 'SHUTOFF'),
                                 (servers.start_server, 'ACTIVE'),
                                 (servers.pause_server, 'PAUSED'),
                                 (servers.unpause_server, 'ACTIVE'),
                                 (servers.suspend_server, 'SUSPENDED'),
                                 (servers.resume_server, 'ACTIVE')]:
                call(uuid)
                wait_status(servers, uuid, status)
            servers.reboot_server(uuid, type='SOFT')
            wait_status(servers, uuid, 'ACTIVE')
            servers.reboot_server(uuid, type='HARD')
            wait_status(servers, uuid, 'ACTIVE')
            images.create_image(uuid, name='snap-%s' % version)
            wait_status(servers, uuid, 'ACTIVE')
            servers.resize_server(uuid, 't2')
            wait_status(servers, uuid, 'VERIFY_RESIZE')
            servers.revert_resize_server(uuid)
            wait_status(servers, uuid, 'ACTIVE')
            admin.migrate_server(uuid)
            wait_status(servers, uuid, 'VERIFY_RESIZE')
            servers.confirm_resize_server(uuid)
            wait_status(servers, uuid, 'ACTIVE')
            admin.reset_state(uuid, state='error')
            admin.reset_state(uuid, state='active')
            servers.list_volume_attachments(uuid)
            servers.delete_server(uuid)


def test_other_bodies_match_tempests_schemas_at_every_band(tempest):
    flavors = tempest(flavors_client.FlavorsClient, ADMIN)
    keypairs = tempest(keypairs_client.KeyPairsClient)
    services = tempest(services_client.ServicesClient, ADMIN)
    hypervisors = tempest(hypervisor_client.HypervisorClient, ADMIN)
    migrations = tempest(migrations_client.MigrationsClient, ADMIN)
    zones = tempest(availability_zone_client.AvailabilityZoneClient)
    admin_zones = tempest(availability_zone_client.AvailabilityZoneClient,
                          ADMIN)
    images = tempest(images_client.ImagesClient)
    versions_ = tempest(versions_client.VersionsClient)
    versions = bands(flavors, keypairs, services, hypervisors, migrations,
                     zones, images, versions_)
    for version in versions:
        with microversion(version):
            name = 'f' + version.replace('.', '-')
            extra = {'description': 'd'} if _v(version) >= (2, 55) else {}
            flavors.create_flavor(name=name, id=name, ram=64, vcpus=1,
                                  disk=1, **extra)
            flavors.show_flavor(name)
            flavors.list_flavors()
            flavors.list_flavors(detail=True)
            if _v(version) >= (2, 55):
                flavors.update_flavor(name, description='e')
            flavors.set_flavor_extra_spec(name, **{'hw:cpu_policy': 'shared'})
            flavors.list_flavor_extra_specs(name)
            flavors.show_flavor_extra_spec(name, 'hw:cpu_policy')
            flavors.update_flavor_extra_spec(
                name, 'hw:cpu_policy', **{'hw:cpu_policy': 'dedicated'})
            flavors.unset_flavor_extra_spec(name, 'hw:cpu_policy')
            flavors.create_flavor(name=name + 'p', id=name + 'p', ram=64,
                                  vcpus=1, disk=1,
                                  **{'os-flavor-access:is_public': False})
            flavors.add_flavor_access(name + 'p', 'other')
            flavors.list_flavor_access(name + 'p')
            flavors.remove_flavor_access(name + 'p', 'other')
            flavors.delete_flavor(name)
            flavors.delete_flavor(name + 'p')

            pair = {'name': 'k' + name}
            if _v(version) >= (2, 2):
                pair['type'] = 'ssh'
            if _v(version) >= (2, 92):
                # Imported only from 2.92.
                pair['public_key'] = PUBLIC_KEY
            keypairs.create_keypair(**pair)
            keypairs.list_keypairs()
            keypairs.show_keypair('k' + name)
            keypairs.delete_keypair('k' + name)

            computes = [s for s in services.list_services()['services']
                        if s['binary'] == 'nova-compute']
            host = computes[0]['host']
            if _v(version) >= (2, 53):
                services.update_service(computes[0]['id'],
                                        status='disabled',
                                        disabled_reason='maintenance')
                services.update_service(computes[0]['id'], status='enabled')
            else:
                services.disable_log_reason(host=host, binary='nova-compute',
                                            disabled_reason='maintenance')
                services.enable_service(host=host, binary='nova-compute')
                if _v(version) >= (2, 11):
                    services.update_forced_down(
                        host=host, binary='nova-compute', forced_down=False)

            listed = hypervisors.list_hypervisors()['hypervisors']
            # Tempest's newest hypervisor schema is 2.53's: it forbids the
            # uptime Nova's show and detail carry from 2.88 (Nova's own
            # response schemas require it there), so the detail bodies
            # are checked up to 2.87 (tests/functional/api covers 2.88).
            if _v(version) < (2, 88):
                hypervisors.list_hypervisors(detail=True)
                hypervisors.show_hypervisor(listed[0]['id'])
                hypervisors.show_hypervisor_statistics()
                hypervisors.show_hypervisor_uptime(listed[0]['id'])
            if _v(version) < (2, 53):
                name_ = listed[0]['hypervisor_hostname']
                hypervisors.search_hypervisor(name_)
                hypervisors.list_servers_on_hypervisor(name_)
            migrations.list_migrations()
            zones.list_availability_zones()
            admin_zones.list_availability_zones(detail=True)
            if _v(version) < (2, 36):
                image = images.list_images(detail=True)['images'][0]['id']
                images.show_image(image)
                images.list_image_metadata(image)
            versions_.list_versions()


def _refused(error, call, *args, **kwargs):
    with pytest.raises(error):
        call(*args, **kwargs)


def test_tempests_clients_get_the_errors_nova_gives(tempest):
    """tempest's negative expectations, as a project member at the
    maximum: 400 for bad bodies and queries, 404 for what is not there,
    409 for a wrong state or a lock, 403 for an administrator's call."""
    from tempest.lib import exceptions as exc
    servers = tempest(servers_client.ServersClient)
    admin = tempest(servers_client.ServersClient, ADMIN)
    flavors = tempest(flavors_client.FlavorsClient)
    missing = '00000000-0000-4000-8000-000000000000'
    body = {'imageRef': IMAGE, 'flavorRef': 't1', 'networks': 'none'}
    with microversion(MAX):
        for bad in ({'flavorRef': 'nosuch'}, {'imageRef': missing},
                    {'name': 'x' * 256}, {'metadata': {'k' * 256: 'v'}},
                    {'accessIPv4': '1.1.1.1.1'}):
            _refused(exc.BadRequest, servers.create_server,
                     **dict(dict(body, name='x'), **bad))
        _refused(exc.Forbidden, servers.create_server, name='x',
                 host='cell1-compute1', **body)
        for call in (servers.show_server, servers.delete_server,
                     servers.stop_server):
            _refused(exc.NotFound, call, missing)
        _refused(exc.NotFound, servers.reboot_server, missing, type='SOFT')
        _refused(exc.NotFound, flavors.show_flavor, 'nosuch')
        for query in ({'limit': -1}, {'status': 'nosuch'},
                      {'marker': missing}):
            _refused(exc.BadRequest, servers.list_servers, **query)

        uuid = servers.create_server(name='neg', **body)['server']['id']
        wait_status(servers, uuid, 'ACTIVE')
        _refused(exc.BadRequest, servers.resize_server, uuid, 't1')
        _refused(exc.BadRequest, servers.update_server, uuid,
                 name='x' * 256)
        _refused(exc.BadRequest, servers.rebuild_server, uuid, missing)
        _refused(exc.NotFound, servers.delete_tag, uuid, 'nosuch')
        _refused(exc.NotFound, servers.check_tag_existence, uuid, 'nosuch')
        _refused(exc.NotFound, servers.show_server_metadata_item, uuid,
                 'nosuch')
        _refused(exc.BadRequest, servers.set_server_metadata_item, uuid,
                 'a', {'b': 'c'})
        _refused(exc.BadRequest, servers.update_all_tags, uuid,
                 ['t%d' % i for i in range(51)])
        _refused(exc.BadRequest, servers.update_all_tags, uuid, ['a/b'])
        _refused(exc.NotFound, servers.show_instance_action, uuid,
                 'req-' + missing)
        for call in (servers.confirm_resize_server,
                     servers.revert_resize_server, servers.start_server,
                     servers.unpause_server, servers.resume_server):
            _refused(exc.Conflict, call, uuid)
        _refused(exc.Forbidden, servers.reset_state, uuid, state='error')
        _refused(exc.Forbidden, servers.migrate_server, uuid)
        servers.stop_server(uuid)
        wait_status(servers, uuid, 'SHUTOFF')
        for call in (servers.stop_server, servers.pause_server,
                     servers.suspend_server):
            _refused(exc.Conflict, call, uuid)
        _refused(exc.Conflict, servers.reboot_server, uuid, type='SOFT')
        servers.start_server(uuid)
        wait_status(servers, uuid, 'ACTIVE')
        admin.lock_server(uuid)
        _refused(exc.Conflict, servers.stop_server, uuid)
        _refused(exc.Conflict, servers.delete_server, uuid)
        _refused(exc.Forbidden, servers.unlock_server, uuid)
        admin.unlock_server(uuid)
        servers.pause_server(uuid)
        wait_status(servers, uuid, 'PAUSED')
        _refused(exc.Conflict, servers.pause_server, uuid)
        _refused(exc.Conflict, servers.stop_server, uuid)


def test_volume_bodies_match_tempests_volume_schemas(plane, tempest):
    """tempest's Cinder v3 volumes client against the embedded volume
    service: create, show, both lists and an attachment as a server's
    volume, each checked against tempest's volume response schemas."""
    from tempest.lib.services.volume.v3 import volumes_client
    volumes = volumes_client.VolumesClient(
        _TokenAuth(plane.endpoint + '/volume/v3', MEMBER), 'volumev3',
        'RegionOne')
    servers = tempest(servers_client.ServersClient)
    created = volumes.create_volume(size=1, name='data')['volume']
    assert created['status'] == 'available'
    volumes.create_volume(size=1, imageRef=IMAGE)
    assert volumes.show_volume(created['id'])['volume']['name'] == 'data'
    assert created['id'] in {
        v['id'] for v in volumes.list_volumes()['volumes']}
    # tempest 47's attach_volume expects 200: it predates 2.101's 202.
    with microversion('2.100'):
        uuid = servers.create_server(name='vol', imageRef=IMAGE,
                                     flavorRef='t1',
                                     networks='none')['server']['id']
        wait_status(servers, uuid, 'ACTIVE')
        servers.attach_volume(uuid, volumeId=created['id'])
        deadline = time.monotonic() + 30
        while volumes.show_volume(
                created['id'])['volume']['status'] != 'in-use':
            assert time.monotonic() < deadline
            time.sleep(0.05)
        shown = volumes.show_volume(created['id'])['volume']
        assert shown['attachments'][0]['server_id'] == uuid
        detailed = volumes.list_volumes(detail=True)['volumes']
        assert {v['id'] for v in detailed} >= {created['id']}
        servers.detach_volume(uuid, created['id'])
        while volumes.show_volume(
                created['id'])['volume']['status'] != 'available':
            assert time.monotonic() < deadline
            time.sleep(0.05)
    volumes.delete_volume(created['id'])
    volumes.wait_for_resource_deletion(created['id'])
