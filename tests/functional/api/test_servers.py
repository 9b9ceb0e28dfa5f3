"""Servers through the REST API on a running plane: bodies at the
microversion boundaries, show/update/ips, policy on another project's
server."""
import ipaddress

import pytest
import webtest

from nova_lite.api import app as api_app
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf

OTHER = {'X-Auth-Token': 'eve:project-b'}


@pytest.fixture
def app(running):
    """The API app on the running plane's databases and transports."""
    return webtest.TestApp(api_app.load_app())


@pytest.fixture(scope='module')
def tagged(running):
    """A server with a tag and a description, for tests that only read."""
    return running.boot('cell1', version='2.52', tags=['t1'],
                        description='d')


def compute_hosts(app, cell):
    services = app.get('/v2.1/os-services?binary=nova-compute',
                       headers=ADMIN).json['services']
    return {s['host'] for s in services if s['host'].startswith(cell + '-')}


def show(app, uuid, v=None, token=MEMBER, status=200):
    return app.get('/v2.1/servers/%s' % uuid, headers=headers(v, token),
                   status=status).json


def test_show_at_21_and_the_member_sees_no_host_fields(app, running):
    uuid = running.boot('cell1', metadata={'k': 'v'}, networks='auto')
    body = show(app, uuid)['server']
    assert body['id'] == uuid and body['status'] == 'ACTIVE'
    assert body['flavor']['id'] == 'small'
    assert body['metadata'] == {'k': 'v'}
    [port] = body['addresses']['private']
    assert ipaddress.ip_address(port['addr']) in ipaddress.ip_network(
        '10.0.0.0/24')
    assert body['OS-EXT-STS:vm_state'] == 'active'
    assert not [k for k in body if k.startswith('OS-EXT-SRV-ATTR')]
    for key in ('locked', 'description', 'tags', 'host_status'):
        assert key not in body
    admin = show(app, uuid, token=ADMIN)['server']
    assert admin['OS-EXT-SRV-ATTR:host'] in compute_hosts(app, 'cell1')
    assert 'OS-EXT-SRV-ATTR:reservation_id' not in admin
    admin23 = show(app, uuid, '2.3', ADMIN)['server']
    reservation = admin23['OS-EXT-SRV-ATTR:reservation_id']
    assert reservation.startswith('r-')
    assert [s['id'] for s in app.get(
        '/v2.1/servers?all_tenants=1&reservation_id=%s' % reservation,
        headers=ADMIN).json['servers']] == [uuid]


def test_another_projects_server_is_404(app, running):
    uuid = running.boot('cell2')
    body = show(app, uuid, token=OTHER, status=404)
    assert body['itemNotFound']['code'] == 404
    app.put_json('/v2.1/servers/%s' % uuid, {'server': {'name': 'x'}},
                 headers=headers(None, OTHER), status=404)
    app.get('/v2.1/servers/%s/ips' % uuid, headers=headers(None, OTHER),
            status=404)
    show(app, 'c4f5a4b6-0000-4000-8000-000000000000', status=404)


@pytest.mark.parametrize('v, added', [
    ('2.9', 'locked'), ('2.16', 'host_status'), ('2.19', 'description'),
    ('2.26', 'tags'), ('2.63', 'trusted_image_certificates'),
    ('2.71', 'server_groups'), ('2.73', 'locked_reason')])
def test_keys_appear_at_their_microversion(app, tagged, v, added):
    uuid = tagged
    major, minor = v.split('.')
    before = '%s.%d' % (major, int(minor) - 1)
    assert added not in show(app, uuid, before, ADMIN)['server']
    assert added in show(app, uuid, v, ADMIN)['server']


def test_host_status_is_for_administrators(app, tagged):
    uuid = tagged
    assert show(app, uuid, '2.16', ADMIN)['server']['host_status'] == 'UP'
    assert 'host_status' not in show(app, uuid, '2.16')['server']


def test_update_at_219_and_275(app, running):
    uuid = running.boot('cell2')
    body = app.put_json('/v2.1/servers/%s' % uuid,
                        {'server': {'name': 'renamed', 'description': 'x'}},
                        headers=headers('2.19', MEMBER)).json['server']
    assert body['name'] == 'renamed' and body['description'] == 'x'
    assert 'OS-EXT-STS:vm_state' not in body
    full = app.put_json('/v2.1/servers/%s' % uuid,
                        {'server': {'name': 'again'}},
                        headers=headers('2.75', ADMIN)).json['server']
    shown = show(app, uuid, '2.75', ADMIN)['server']
    assert full == shown
    assert shown['name'] == 'again'
    # Description is not known before 2.19: a 400 naming it.
    error = app.put_json('/v2.1/servers/%s' % uuid,
                         {'server': {'description': 'x'}},
                         headers=headers('2.18', MEMBER), status=400).json
    assert 'description' in error['badRequest']['message']


def test_ips(app, running):
    uuid = running.boot('cell1', networks='auto')
    [port] = show(app, uuid)['server']['addresses']['private']
    addr = port['addr']
    assert ipaddress.ip_address(addr) in ipaddress.ip_network('10.0.0.0/24')
    assert app.get('/v2.1/servers/%s/ips' % uuid, headers=MEMBER).json == {
        'addresses': {'private': [{'version': 4, 'addr': addr}]}}
    assert app.get('/v2.1/servers/%s/ips/private' % uuid,
                   headers=MEMBER).json == {
        'private': [{'version': 4, 'addr': addr}]}
    app.get('/v2.1/servers/%s/ips/public' % uuid, headers=MEMBER,
            status=404)


def test_fault_details_for_admins_only_on_500s(app, running):
    from nova_lite import context as nova_context
    from nova_lite.db.main import instances as cell_rows
    # seeded: the plane writes no fault details (the conductor records
    # None), so the admin-only details are a row written into its cell0.
    uuid = sf.add_server(running, 'cell0', running.flavor(),
                         vm_state='error', host=None, node=None)
    with nova_context.target_cell(running.ctxt,
                                  running.cells['cell0']) as cctxt:
        cell_rows.add_fault(cctxt, uuid, 500, 'No valid host was found.',
                            'Traceback ...')
    member = show(app, uuid)['server']
    assert member['status'] == 'ERROR'
    assert member['fault']['message'] == 'No valid host was found.'
    assert 'details' not in member['fault']
    assert show(app, uuid, token=ADMIN)['server']['fault']['details'] == \
        'Traceback ...'


def test_volumes_attached_and_delete_on_termination_at_23(app, running):
    from nova_lite import context as nova_context
    from nova_lite.db.main import models
    uuid = running.boot('cell2')
    # seeded: the volume mapping (volume attachment is not part of this
    # plane's API yet; its tests belong to the volume work).
    with nova_context.target_cell(running.ctxt,
                                  running.cells['cell2']) as cctxt:
        engine = sf.main_engine(cctxt)
        with engine.begin() as conn:
            conn.execute(models.BlockDeviceMapping.__table__.insert().values(
                instance_uuid=uuid, volume_id='vol-1', boot_index=0,
                delete_on_termination=True, deleted=0))
    assert show(app, uuid)['server'][
        'os-extended-volumes:volumes_attached'] == [{'id': 'vol-1'}]
    listed = app.get('/v2.1/servers/detail', headers=headers('2.3', MEMBER))
    [server] = [s for s in listed.json['servers'] if s['id'] == uuid]
    assert server['os-extended-volumes:volumes_attached'] == [
        {'id': 'vol-1', 'delete_on_termination': True}]


def test_update_a_server_not_yet_scheduled(app, running):
    # seeded: a build request lives only until the conductor schedules
    # the server, a fraction of a second on a running plane.
    uuid = sf.add_build_request(running, running.flavor())
    body = app.put_json('/v2.1/servers/%s' % uuid,
                        {'server': {'name': 'early', 'description': 'x'}},
                        headers=headers('2.19', MEMBER)).json['server']
    assert body['name'] == 'early' and body['status'] == 'BUILD'
    shown = show(app, uuid, '2.19')['server']
    assert (shown['name'], shown['description']) == ('early', 'x')
