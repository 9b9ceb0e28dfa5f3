"""Host aggregates and availability zones through the real
python-openstackclient against a real nova-lite-all-in-one process, as
README.rst shows them: aggregate create/add host/set --property/show,
availability zone list --long, hypervisor show (which reads
/os-aggregates), a server booted in the zone."""
import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-aggregates'))
    with clients.cloud_with_flavor(state_dir, 'agg.tiny', 256, 1) as cloud:
        yield cloud


def _json(env, *args):
    return clients.openstack_json(env, '--os-compute-api-version', '2.81',
                                  *args)


def _properties(value):
    if isinstance(value, str):
        return dict(item.split('=', 1) for item in
                    value.replace("'", '').split(', ') if item)
    return value


def test_aggregate_zone_and_hypervisor(cloud):
    _endpoint, env = cloud
    host = sorted(s['Host'] for s in _json(
        env, 'compute', 'service', 'list', '--service', 'nova-compute'))[0]
    created = _json(env, 'aggregate', 'create', '--zone', 'az1', 'agg1')
    assert created['name'] == 'agg1'
    assert created['availability_zone'] == 'az1'
    added = _json(env, 'aggregate', 'add', 'host', 'agg1', host)
    assert host in added['hosts']
    clients.openstack(env, 'aggregate', 'set', '--property', 'ssd=true',
                      'agg1')
    shown = _json(env, 'aggregate', 'show', 'agg1')
    assert shown['hosts'] == [host]
    assert _properties(shown['properties']) == {'ssd': 'true'}
    assert len(shown['uuid']) == 36
    zones = clients.openstack_json(env, 'availability', 'zone', 'list',
                                   '--long')
    assert {(z['Zone Name'], z['Host Name']) for z in zones
            if z['Zone Name'] == 'az1'} == {('az1', host)}
    shown = [_json(env, 'hypervisor', 'show', h['ID'])
             for h in _json(env, 'hypervisor', 'list')]
    assert [str(h['aggregates']) for h in shown
            if h.get('service_host') == host] == [str(['agg1'])]
    server = _json(env, 'server', 'create', '--flavor', 'agg.tiny',
                   '--image', IMAGE, '--nic', 'none', '--availability-zone',
                   'az1', '--wait', 'cli-az')
    assert server['OS-EXT-AZ:availability_zone'] == 'az1'
    clients.openstack(env, 'server', 'delete', '--wait', server['id'])
    clients.openstack(env, 'aggregate', 'remove', 'host', 'agg1', host)
    clients.openstack(env, 'aggregate', 'delete', 'agg1')
    assert _json(env, 'aggregate', 'list') == []
