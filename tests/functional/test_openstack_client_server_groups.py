"""`openstack server group ...` and `openstack server create --hint
group=...` (the real python-openstackclient) against a real
nova-lite-all-in-one process, as README.rst shows them."""
import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-groups'))
    with clients.all_in_one(state_dir) as (endpoint, _proc):
        env = clients.openstack_env(endpoint)
        clients.openstack(env, 'flavor', 'create', '--ram', '256',
                          '--disk', '1', '--vcpus', '1', '--id', 'cli.tiny',
                          'cli.tiny')
        yield endpoint, env


def _json(env, *args):
    return clients.openstack_json(env, *args)


def test_server_group_create_list_show_boot_delete(cloud):
    _endpoint, env = cloud
    group = _json(env, '--os-compute-api-version', '2.64', 'server',
                  'group', 'create', '--policy', 'anti-affinity', 'ha')
    assert group['name'] == 'ha' and group['policy'] == 'anti-affinity'
    listed = _json(env, 'server', 'group', 'list')
    assert [g['ID'] for g in listed] == [group['id']]
    server = _json(env, '--os-compute-api-version', '2.71', 'server',
                   'create', '--flavor', 'cli.tiny', '--image', IMAGE,
                   '--nic', 'none', '--hint', 'group=%s' % group['id'],
                   '--wait', 'cli-ha')
    assert server['status'] == 'ACTIVE'
    shown = _json(env, '--os-compute-api-version', '2.64', 'server',
                  'group', 'show', 'ha')
    assert server['id'] in str(shown['members'])
    clients.openstack(env, 'server', 'delete', '--wait', server['id'])
    clients.openstack(env, 'server', 'group', 'delete', 'ha')
    assert _json(env, 'server', 'group', 'list') == []
    # An unknown group: the create is refused (400).
    failed = clients.openstack(
        env, 'server', 'create', '--flavor', 'cli.tiny', '--image', IMAGE,
        '--nic', 'none', '--hint', 'group=%s' % group['id'], 'nope',
        check=False)
    assert failed.returncode != 0
    assert 'could not be found' in failed.stderr
