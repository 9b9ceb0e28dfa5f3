"""Servers through the REST API: bodies at the microversion boundaries,
show/update/ips, policy on another project's server."""
import pytest

from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf

OTHER = {'X-Auth-Token': 'eve:project-b'}


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def small(env):
    return sf.flavor(env.ctxt, 'small')


def show(app, uuid, v=None, token=MEMBER, status=200):
    return app.get('/v2.1/servers/%s' % uuid, headers=headers(v, token),
                   status=status).json


def test_show_at_21_and_the_member_sees_no_host_fields(app, env, small):
    uuid = sf.add_server(env, 'cell1', small, metadata={'k': 'v'},
                         network_info=sf.network_info('10.0.0.5'))
    body = show(app, uuid)['server']
    assert body['id'] == uuid and body['status'] == 'ACTIVE'
    assert body['flavor']['id'] == 'small'
    assert body['metadata'] == {'k': 'v'}
    assert body['addresses']['private'][0]['addr'] == '10.0.0.5'
    assert body['OS-EXT-STS:vm_state'] == 'active'
    assert not [k for k in body if k.startswith('OS-EXT-SRV-ATTR')]
    for key in ('locked', 'description', 'tags', 'host_status'):
        assert key not in body
    admin = show(app, uuid, token=ADMIN)['server']
    assert admin['OS-EXT-SRV-ATTR:host'] == 'c1-host1'
    assert 'OS-EXT-SRV-ATTR:reservation_id' not in admin
    admin23 = show(app, uuid, '2.3', ADMIN)['server']
    assert admin23['OS-EXT-SRV-ATTR:reservation_id'] == 'r-test'


def test_another_projects_server_is_404(app, env, small):
    uuid = sf.add_server(env, 'cell2', small)
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
def test_keys_appear_at_their_microversion(app, env, small, v, added):
    uuid = sf.add_server(env, 'cell1', small, tags=['t1'],
                         display_description='d')
    major, minor = v.split('.')
    before = '%s.%d' % (major, int(minor) - 1)
    assert added not in show(app, uuid, before, ADMIN)['server']
    assert added in show(app, uuid, v, ADMIN)['server']


def test_host_status_is_for_administrators(app, env, small):
    uuid = sf.add_server(env, 'cell1', small)
    assert show(app, uuid, '2.16', ADMIN)['server']['host_status'] == 'UP'
    assert 'host_status' not in show(app, uuid, '2.16')['server']


def test_update_at_219_and_275(app, env, small):
    uuid = sf.add_server(env, 'cell2', small)
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


def test_ips(app, env, small):
    uuid = sf.add_server(env, 'cell1', small,
                         network_info=sf.network_info('10.0.0.9'))
    assert app.get('/v2.1/servers/%s/ips' % uuid, headers=MEMBER).json == {
        'addresses': {'private': [{'version': 4, 'addr': '10.0.0.9'}]}}
    assert app.get('/v2.1/servers/%s/ips/private' % uuid,
                   headers=MEMBER).json == {
        'private': [{'version': 4, 'addr': '10.0.0.9'}]}
    app.get('/v2.1/servers/%s/ips/public' % uuid, headers=MEMBER,
            status=404)


def test_fault_details_for_admins_only_on_500s(app, env, small):
    from nova_lite import context as nova_context
    from nova_lite.db.main import instances as cell_rows
    uuid = sf.add_server(env, 'cell0', small, vm_state='error', host=None,
                         node=None)
    with nova_context.target_cell(env.ctxt, env.cells['cell0']) as cctxt:
        cell_rows.add_fault(cctxt, uuid, 500, 'No valid host was found.',
                            'Traceback ...')
    member = show(app, uuid)['server']
    assert member['status'] == 'ERROR'
    assert member['fault']['message'] == 'No valid host was found.'
    assert 'details' not in member['fault']
    assert show(app, uuid, token=ADMIN)['server']['fault']['details'] == \
        'Traceback ...'


def test_volumes_attached_and_delete_on_termination_at_23(app, env, small):
    from nova_lite import context as nova_context
    from nova_lite.db.main import models
    uuid = sf.add_server(env, 'cell2', small)
    with nova_context.target_cell(env.ctxt, env.cells['cell2']) as cctxt:
        engine = sf.main_engine(cctxt)
        with engine.begin() as conn:
            conn.execute(models.BlockDeviceMapping.__table__.insert().values(
                instance_uuid=uuid, volume_id='vol-1', boot_index=0,
                delete_on_termination=True, deleted=0))
    assert show(app, uuid)['server'][
        'os-extended-volumes:volumes_attached'] == [{'id': 'vol-1'}]
    listed = app.get('/v2.1/servers/detail', headers=headers('2.3', MEMBER))
    assert listed.json['servers'][0][
        'os-extended-volumes:volumes_attached'] == [
        {'id': 'vol-1', 'delete_on_termination': True}]


def test_update_a_server_not_yet_scheduled(app, env, small):
    uuid = sf.add_build_request(env, small)
    body = app.put_json('/v2.1/servers/%s' % uuid,
                        {'server': {'name': 'early', 'description': 'x'}},
                        headers=headers('2.19', MEMBER)).json['server']
    assert body['name'] == 'early' and body['status'] == 'BUILD'
    shown = show(app, uuid, '2.19')['server']
    assert (shown['name'], shown['description']) == ('early', 'x')
