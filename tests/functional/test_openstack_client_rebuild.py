"""`openstack server rebuild` and `openstack server image create` (the
real python-openstackclient) and openstacksdk's rebuild_server and
create_server_image against a real nova-lite-all-in-one process."""
import json

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
DEBIAN = '70a599e0-31e7-49b7-b260-868f441e862b'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-rebuild'))
    with clients.cloud_with_flavor(state_dir, 'cli.med', 512, 3) as cloud:
        yield cloud


def _json(env, *args):
    """The JSON output of `openstack args -f json`, after any progress
    text (--wait prints "Complete" first)."""
    out = clients.openstack(env, *(args + ('-f', 'json'))).stdout
    starts = [i for i in (out.find('{'), out.find('[')) if i >= 0]
    return json.loads(out[min(starts):])


def _boot(env, name):
    created = _json(env, 'server', 'create', '--flavor', 'cli.med',
                    '--image', IMAGE, '--nic', 'none', '--wait', name)
    assert created['status'] == 'ACTIVE'
    return created['id']


def test_openstack_server_rebuild_and_image_create(cloud):
    _endpoint, env = cloud
    server = _boot(env, 'cli-rebuild')
    # The client shows the rebuild's answer (REBUILD), then waits.
    rebuilt = _json(env, 'server', 'rebuild', '--image', DEBIAN, '--wait',
                    server)
    assert rebuilt['status'] in ('REBUILD', 'ACTIVE')
    shown = _json(env, 'server', 'show', server)
    assert shown['status'] == 'ACTIVE'
    assert DEBIAN in str(shown['image'])
    # By name, at a microversion that answers the full body.
    rebuilt = _json(env, '--os-compute-api-version', '2.75', 'server',
                    'rebuild', '--image', 'cirros-0.6.2-x86_64-disk',
                    '--wait', server)
    assert rebuilt['status'] in ('REBUILD', 'ACTIVE')
    assert 'OS-EXT-SRV-ATTR:host' in rebuilt
    assert _json(env, 'server', 'show', server)['status'] == 'ACTIVE'
    for version in ('2.1', '2.45'):
        image = _json(env, '--os-compute-api-version', version, 'server',
                      'image', 'create', '--name', 'cli-snap-' + version,
                      '--wait', server)
        assert image['name'] == 'cli-snap-' + version
        assert image['status'] == 'active'
    listed = {i['Name']: i['Status'] for i in _json(env, 'image', 'list')}
    assert listed['cli-snap-2.1'] == 'active'
    assert listed['cli-snap-2.45'] == 'active'
    clients.openstack(env, 'server', 'delete', '--wait', server)


def test_openstacksdk_rebuild_server_and_create_server_image(cloud):
    endpoint, env = cloud
    server_id = _boot(env, 'sdk-rebuild')
    conn = clients.sdk_admin(endpoint, '2.57', image_path='/image')
    server = conn.compute.get_server(server_id)
    server = conn.compute.rebuild_server(server, image=DEBIAN,
                                         admin_password='s3cret',
                                         name='sdk-rebuilt')
    assert server.admin_password == 's3cret'
    server = conn.compute.wait_for_server(server, status='ACTIVE', wait=60)
    assert server.image['id'] == DEBIAN and server.name == 'sdk-rebuilt'
    image = conn.compute.create_server_image(server, 'sdk-snap',
                                             metadata={'k': 'v'}, wait=True,
                                             timeout=60)
    assert image.status == 'active'
    image = conn.image.get_image(image.id)
    assert image.name == 'sdk-snap'
    assert image.properties['k'] == 'v'
    assert image.instance_uuid == server_id
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=60)
