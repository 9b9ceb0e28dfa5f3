"""Cross-cell resize in a real deployment (the session's
tools/deployment.py: every service its own process, MariaDB, RabbitMQ
with one vhost per cell, cell conductors without the API database) with
the real `openstack` client, as an operator who opened
compute:servers:resize:cross_cell in policy.yaml would see it.

A volume-backed server with an address moves from its cell to the other
(its cell's computes disabled, so the scheduler must look elsewhere),
is reverted back, moved again and confirmed: it keeps its UUID, its
address and its volume throughout, its instance actions stay continuous,
os-migrations shows each move once, `nova-lite-manage placement
check_allocations` finds the allocations consistent at every stop, and
deleting it frees everything.
"""
import os

import pytest

from tests import clients
from tests.functional.conftest import wait_for
from tests.real import test_deployment as deployed

POLICY = '"compute:servers:resize:cross_cell": "role:admin"\n'
FLAVORS = ({'name': 'xc.small', 'id': 'xc.small', 'ram': 256, 'vcpus': 1,
            'disk': 1},
           {'name': 'xc.big', 'id': 'xc.big', 'ram': 512, 'vcpus': 2,
            'disk': 1})


def _restart_api(dep, *extra_confs):
    dep.terminate('api')
    binary, confs = dep.commands['api']
    dep._spawn('api', binary, confs[0], *extra_confs)
    dep.save()
    dep.wait_for_api()


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    """The session's deployment with its API reading a policy.yaml that
    lets admins resize across cells; put back as it was afterwards."""
    dep = shared_deployment
    policy = os.path.join(dep.workdir, 'xcell-policy.yaml')
    with open(policy, 'w') as f:
        f.write(POLICY)
    conf = os.path.join(dep.workdir, 'xcell-policy.conf')
    with open(conf, 'w') as f:
        f.write('[oslo_policy]\npolicy_file = %s\n' % policy)
    _restart_api(dep, conf)
    try:
        yield dep
    finally:
        _restart_api(dep)


def _server(dep, uuid):
    status, body = deployed.api(dep, 'GET', '/servers/%s' % uuid,
                                version='2.47')
    assert status == 200, body
    return body['server']


def _settled(dep, uuid, wanted, timeout=90):
    def reached():
        server = _server(dep, uuid)
        assert server['status'] != 'ERROR', server.get('fault')
        if server['status'] == wanted and \
                server['OS-EXT-STS:task_state'] is None:
            return server
        return None
    return wait_for(reached, timeout, message=wanted)


def _cell(server):
    return server['OS-EXT-SRV-ATTR:host'].split('-')[0]


def _addresses(server):
    return sorted(a['addr'] for net in server['addresses'].values()
                  for a in net)


def _attached(dep, uuid):
    status, body = deployed.api(dep, 'GET',
                                '/servers/%s/os-volume_attachments' % uuid)
    assert status == 200, body
    return sorted(a['volumeId'] for a in body['volumeAttachments'])


def _set_cell_computes(dep, cell, enabled):
    for i in range(1, dep.computes_per_cell + 1):
        status, body = deployed.api(
            dep, 'PUT', '/os-services/%s' % ('enable' if enabled
                                             else 'disable'),
            {'host': '%s-compute%d' % (cell, i), 'binary': 'nova-compute'})
        assert status == 200, body


def _check_allocations(dep):
    result = deployed.manage(dep, 'placement', 'check_allocations',
                             '--json')
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]


def _resize_across(dep, uuid, flavor, cli):
    """Resize uuid to flavor with its cell's computes disabled (the
    scheduler must go to the other cell); VERIFY_RESIZE there."""
    before = _server(dep, uuid)
    _set_cell_computes(dep, _cell(before), False)
    try:
        if cli:
            clients.openstack(clients.openstack_env(dep.endpoint),
                              'server', 'resize', '--flavor', flavor,
                              '--wait', uuid)
        else:
            status, body = deployed.api(dep, 'POST',
                                        '/servers/%s/action' % uuid,
                                        {'resize': {'flavorRef': flavor}})
            assert status == 202, body
        server = _settled(dep, uuid, 'VERIFY_RESIZE')
    finally:
        _set_cell_computes(dep, _cell(before), True)
    assert _cell(server) != _cell(before), (before, server)
    assert server['flavor']['original_name'] == flavor
    return before, server


def test_openstack_resizes_a_volume_backed_server_across_cells(deployment):
    dep = deployment
    for flavor in FLAVORS:
        status, body = deployed.api(dep, 'POST', '/flavors',
                                    {'flavor': flavor})
        assert status == 200, body
    status, body = deployed.api(dep, 'POST', '/servers', {'server': {
        'name': 'xc', 'flavorRef': 'xc.small', 'imageRef': '',
        'networks': 'auto', 'block_device_mapping_v2': [{
            'source_type': 'image', 'destination_type': 'volume',
            'uuid': deployed.IMAGE, 'boot_index': 0, 'volume_size': 1,
            'delete_on_termination': True}]}}, version='2.67')
    assert status == 202, body
    uuid = body['server']['id']
    first = _settled(dep, uuid, 'ACTIVE')
    addresses, volumes = _addresses(first), _attached(dep, uuid)
    assert addresses and volumes

    # Across, then reverted: back in its cell with its flavor.
    env = clients.openstack_env(dep.endpoint)
    before, moved = _resize_across(dep, uuid, 'xc.big', cli=True)
    assert (_addresses(moved), _attached(dep, uuid)) == (addresses, volumes)
    _check_allocations(dep)
    clients.openstack(env, 'server', 'resize', 'revert', uuid)
    back = _settled(dep, uuid, 'ACTIVE')
    assert _cell(back) == _cell(before)
    assert back['flavor']['original_name'] == 'xc.small'
    assert (_addresses(back), _attached(dep, uuid)) == (addresses, volumes)
    _check_allocations(dep)

    # Across again, confirmed: it stays in the other cell.
    before, moved = _resize_across(dep, uuid, 'xc.big', cli=False)
    clients.openstack(env, 'server', 'resize', 'confirm', uuid)
    done = _settled(dep, uuid, 'ACTIVE')
    assert _cell(done) == _cell(moved) != _cell(before)
    assert done['flavor']['original_name'] == 'xc.big'
    assert done['id'] == uuid
    assert (_addresses(done), _attached(dep, uuid)) == (addresses, volumes)
    _check_allocations(dep)

    # One server, listed once; its actions continuous across the cells;
    # each migration once.
    status, body = deployed.api(dep, 'GET', '/servers?all_tenants=1')
    assert [s['id'] for s in body['servers']].count(uuid) == 1
    status, body = deployed.api(dep, 'GET',
                                '/servers/%s/os-instance-actions' % uuid)
    assert [a['action'] for a in body['instanceActions']] == [
        'confirmResize', 'resize', 'revertResize', 'resize', 'create']
    status, body = deployed.api(dep, 'GET', '/os-migrations?instance_uuid='
                                + uuid, version='2.59')
    ids = [m['uuid'] for m in body['migrations']]
    assert len(ids) == len(set(ids)) == 2
    assert sorted(m['status'] for m in body['migrations']) == [
        'confirmed', 'reverted']

    status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
    assert status == 204
    wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
             == 404, 60, message='deleted')
    wait_for(lambda: deployed._allocations(dep, [uuid] + ids) == 0, 30,
             message='every allocation freed')
    _check_allocations(dep)
