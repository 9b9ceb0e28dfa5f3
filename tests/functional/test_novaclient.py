"""python-novaclient, unmodified, against the in-process plane over real
HTTP, with a keystoneauth session on a noauth token: what a user of its
Python API (and of the `nova` tools built on it) does with servers,
flavors and the admin resources, at 2.1 and at our maximum."""
import time

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import novaclient
from novaclient import client as nova_client
from novaclient import exceptions
import pytest

from nova_lite.api.openstack import api_version as av

# The highest version both speak: novaclient's own maximum (2.96 in the
# release pinned) or ours, as a client negotiating it would pick.
NEGOTIATED = min(av.APIVersion(av.MAX), av.APIVersion('%d.%d' % (
    novaclient.API_MAX_VERSION.ver_major,
    novaclient.API_MAX_VERSION.ver_minor)))
NEGOTIATED = str(NEGOTIATED)
PUBLIC_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt+d1/dWektvXf3GGys0BVE5d'
              'c9lP0e/vNv7qe8QR0T')

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


def _client(plane, version, token):
    auth = token_endpoint.Token(plane.endpoint + '/v2.1', token)
    return nova_client.Client(version, session=ks_session.Session(auth=auth))


def _wait(server, status):
    deadline = time.monotonic() + 30
    while True:
        server.get()
        if server.status == status and not getattr(
                server, 'OS-EXT-STS:task_state', None):
            return server
        assert server.status != 'ERROR', server.to_dict()
        assert time.monotonic() < deadline, (server.status, status)
        time.sleep(0.05)


@pytest.mark.parametrize('version', ['2.1', NEGOTIATED])
def test_novaclient_runs_a_server_through_its_actions(plane, version):
    admin = _client(plane, version, 'admin:admin')
    nova = _client(plane, version, 'demo:demo')
    flavor = admin.flavors.create('nc.small', 64, 1, 1, flavorid='nc1')
    admin.flavors.create('nc.big', 128, 1, 1, flavorid='nc2')
    assert {f.id for f in nova.flavors.list()} >= {'nc1', 'nc2'}
    assert nova.flavors.get('nc1').ram == 64
    kwargs = {'nics': 'none'} if version != '2.1' else {}
    server = nova.servers.create('nc-vm', IMAGE, flavor,
                                 meta={'a': 'b'}, **kwargs)
    _wait(server, 'ACTIVE')
    assert [s.id for s in nova.servers.list()] == [server.id]
    assert nova.servers.get(server.id).metadata == {'a': 'b'}
    if version != '2.1':
        # 2.47: the server's own copy of its flavor.
        assert server.flavor['original_name'] == 'nc.small'
        assert server.flavor['ram'] == 64
    else:
        assert server.flavor['id'] == 'nc1'

    for call, status in ((server.stop, 'SHUTOFF'), (server.start, 'ACTIVE'),
                         (server.pause, 'PAUSED'),
                         (server.unpause, 'ACTIVE'),
                         (server.suspend, 'SUSPENDED'),
                         (server.resume, 'ACTIVE')):
        call()
        _wait(server, status)
    server.reboot(reboot_type='HARD')
    _wait(server, 'ACTIVE')
    server.lock()
    if version != '2.1':
        assert nova.servers.get(server.id).locked is True
    server.unlock()
    nova.servers.set_meta(server, {'c': 'd'})
    nova.servers.delete_meta(server, ['a'])
    assert nova.servers.get(server.id).metadata == {'c': 'd'}
    nova.servers.update(server, name='renamed')
    rebuilt = nova.servers.rebuild(server, IMAGE)
    assert rebuilt.name == 'renamed'
    _wait(server, 'ACTIVE')
    image = nova.servers.create_image(server, 'nc-snap')
    assert len(image) == 36
    _wait(server, 'ACTIVE')
    nova.servers.resize(server, 'nc2')
    _wait(server, 'VERIFY_RESIZE')
    nova.servers.confirm_resize(server)
    _wait(server, 'ACTIVE')
    admin.servers.reset_state(server, 'error')
    assert nova.servers.get(server.id).status == 'ERROR'
    admin.servers.reset_state(server, 'active')
    if version != '2.1':
        server.add_tag('t1')
        assert server.tag_list() == ['t1']
        assert [s.id for s in nova.servers.list(
            search_opts={'tags': 't1'})] == [server.id]

    actions = nova.instance_action.list(server)
    names = [a.action for a in actions]
    assert {'create', 'stop', 'start', 'reboot', 'lock', 'unlock',
            'rebuild', 'createImage', 'resize',
            'confirmResize'} <= set(names)
    stop = [a for a in actions if a.action == 'stop'][0]
    found = admin.instance_action.get(server, stop.request_id)
    assert [e['event'] for e in found.events] == ['compute_stop_instance']

    server.delete()
    deadline = time.monotonic() + 30
    while True:
        try:
            nova.servers.get(server.id)
        except exceptions.NotFound:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_novaclient_reads_the_admin_resources(plane):
    admin = _client(plane, NEGOTIATED, 'admin:admin')
    services = admin.services.list(binary='nova-compute')
    assert len(services) == 4 and {s.state for s in services} == {'up'}
    admin.services.disable_log_reason(services[0].id, 'maintenance')
    assert admin.services.list(host=services[0].host)[0].status == \
        'disabled'
    admin.services.enable(services[0].id)
    hypervisors = admin.hypervisors.list()
    assert len(hypervisors) == 4
    shown = admin.hypervisors.get(hypervisors[0].id)
    assert shown.hypervisor_hostname == hypervisors[0].hypervisor_hostname
    assert admin.migrations.list() == []
    zones = admin.availability_zones.list()
    assert 'nova' in {z.zoneName for z in zones}
    # From 2.92 key pairs are imported only (no private key comes back).
    imported = av.APIVersion(NEGOTIATED) >= av.KEYPAIR_IMPORT_ONLY
    pair = admin.keypairs.create(
        'nc-key', public_key=PUBLIC_KEY if imported else None)
    assert bool(getattr(pair, 'private_key', None)) != imported
    assert admin.keypairs.get('nc-key').name == 'nc-key'
    admin.keypairs.delete('nc-key')
    with pytest.raises(exceptions.NotFound):
        admin.servers.get('00000000-0000-4000-8000-000000000000')
    member = _client(plane, NEGOTIATED, 'demo:demo')
    with pytest.raises(exceptions.Forbidden):
        member.services.list()
