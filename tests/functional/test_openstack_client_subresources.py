"""Server properties (metadata) and tags, tag list filters and
availability zones through the real python-openstackclient and
openstacksdk, against a real nova-lite-all-in-one process."""
import json

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-subresources'))
    with clients.cloud_with_flavor(state_dir, 'sub.tiny', 256, 1) as cloud:
        yield cloud


def _json(env, *args):
    return clients.openstack_json(env, '--os-compute-api-version', '2.52',
                                  *args)


def _tags(shown):
    tags = shown['tags']
    return sorted(tags.split(', ') if isinstance(tags, str) else tags)


def _properties(shown):
    props = shown['properties']
    if isinstance(props, str):
        return dict(item.split('=', 1) for item in
                    props.replace("'", '').split(', ') if item)
    return props


def test_server_set_unset_show_and_list_by_tag(cloud):
    _endpoint, env = cloud
    created = _json(env, 'server', 'create', '--flavor', 'sub.tiny',
                    '--image', IMAGE, '--nic', 'none', '--property',
                    'role=db', '--tag', 'prod', '--wait', 'cli-tagged')
    other = _json(env, 'server', 'create', '--flavor', 'sub.tiny',
                  '--image', IMAGE, '--nic', 'none', '--wait', 'cli-plain')
    uuid = created['id']
    assert _tags(created) == ['prod']
    clients.openstack(env, '--os-compute-api-version', '2.52', 'server',
                      'set', '--property', 'tier=1', '--tag', 'web', uuid)
    shown = _json(env, 'server', 'show', uuid)
    assert _properties(shown) == {'role': 'db', 'tier': '1'}
    assert _tags(shown) == ['prod', 'web']
    listed = _json(env, 'server', 'list', '--tags', 'web')
    assert [s['ID'] for s in listed] == [uuid]
    listed = _json(env, 'server', 'list', '--not-tags', 'web')
    assert [s['ID'] for s in listed] == [other['id']]
    clients.openstack(env, '--os-compute-api-version', '2.52', 'server',
                      'unset', '--property', 'role', '--tag', 'prod', uuid)
    shown = _json(env, 'server', 'show', uuid)
    assert _properties(shown) == {'tier': '1'}
    assert _tags(shown) == ['web']
    for server in (uuid, other['id']):
        clients.openstack(env, 'server', 'delete', '--wait', server)


def test_availability_zone_list(cloud):
    _endpoint, env = cloud
    # The client asks for the detail first (an administrator gets it,
    # the internal zone included), as it does of Nova.
    zones = clients.openstack_json(env, 'availability', 'zone', 'list',
                                   '--compute')
    assert sorted((z['Zone Name'], z['Zone Status']) for z in zones) == [
        ('internal', 'available'), ('nova', 'available')]
    detail = clients.openstack_json(env, 'availability', 'zone', 'list',
                                    '--compute', '--long')
    text = json.dumps(detail)
    assert 'internal' in text and 'nova-compute' in text
    assert 'nova-conductor' in text


def test_openstacksdk_metadata_tags_and_zones(cloud):
    endpoint, _env = cloud
    conn = clients.sdk_admin(endpoint, '2.52')
    server = conn.compute.create_server(name='sdk-tagged',
                                        flavor_id='sub.tiny',
                                        image_id=IMAGE, networks='none',
                                        tags=['a'], metadata={'k': 'v'})
    server = conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    assert server.tags == ['a']
    conn.compute.set_server_metadata(server, extra='1')
    assert conn.compute.get_server_metadata(server).metadata == {
        'k': 'v', 'extra': '1'}
    conn.compute.delete_server_metadata(server, ['k'])
    server.add_tag(conn.compute, 'b')
    server = conn.compute.get_server(server.id)
    assert server.metadata == {'extra': '1'}
    assert sorted(server.tags) == ['a', 'b']
    assert [s.id for s in conn.compute.servers(tags='b')] == [server.id]
    server.remove_tag(conn.compute, 'a')
    assert conn.compute.get_server(server.id).tags == ['b']
    zones = list(conn.compute.availability_zones())
    assert [(z.name, z.state) for z in zones] == [
        ('nova', {'available': True})]
    detailed = {z.name: z for z in conn.compute.availability_zones(
        details=True)}
    assert set(detailed) == {'internal', 'nova'}
    assert detailed['nova'].hosts
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=60)
