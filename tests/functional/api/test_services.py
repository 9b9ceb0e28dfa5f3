"""os-services through the WSGI app, across two cells."""
import pytest

from nova_lite import objects
from tests.functional.api.fixtures import COMPUTE
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER


def _services(app, v=None, query=''):
    return app.get('/v2.1/os-services' + query,
                   headers=headers(v)).json['services']


def _by_host(services, host, binary=COMPUTE):
    return next(s for s in services
                if s['host'] == host and s['binary'] == binary)


def test_list_reads_every_cell_and_hides_the_api(app):
    services = _services(app)
    hosts = {(s['host'], s['binary']) for s in services}
    assert ('c1-host1', COMPUTE) in hosts and ('c2-host2', COMPUTE) in hosts
    assert not any(s['binary'] == 'nova-osapi_compute' for s in services)
    assert len(services) == 8
    assert all(s['state'] == 'up' and s['status'] == 'enabled'
               for s in services)


def test_list_fields_per_microversion(app):
    v21 = _by_host(_services(app, '2.1'), 'c1-host1')
    assert 'forced_down' not in v21 and isinstance(v21['id'], int)
    assert v21['zone'] == 'nova'
    v211 = _by_host(_services(app, '2.11'), 'c1-host1')
    assert v211['forced_down'] is False
    v253 = _by_host(_services(app, '2.53'), 'c1-host1')
    assert len(v253['id']) == 36


def test_list_filters_by_host_and_binary(app):
    assert [s['host'] for s in _services(app, query='?host=c2-host1')] == [
        'c2-host1']
    conductors = _services(app, query='?binary=nova-conductor')
    assert {s['host'] for s in conductors} == {'ctl1', 'ctl2'}


def test_unknown_query_parameter_is_400_from_2_75(app):
    assert len(_services(app, '2.74', '?foo=bar')) == 8
    resp = app.get('/v2.1/os-services?foo=bar', headers=headers('2.75'),
                   status=400)
    assert 'foo' in resp.json['badRequest']['message']


def test_down_cell_is_omitted_before_2_69_and_unknown_from_it(app, seeded):
    seeded.break_cell('cell2')
    services = _services(app, '2.68')
    assert not any(s['host'].startswith('c2-') for s in services)
    services = _services(app, '2.69')
    unknown = [s for s in services if s.get('status') == 'UNKNOWN']
    assert sorted(s['host'] for s in unknown) == ['c2-host1', 'c2-host2']
    assert all(set(s) == {'binary', 'host', 'status'} for s in unknown)
    assert _by_host(services, 'c1-host1')['status'] == 'enabled'


def test_disable_enable_and_force_down_by_uuid(app, seeded):
    uuid = seeded.compute('c2-host1').uuid
    url = '/v2.1/os-services/%s' % uuid
    body = app.put_json(url, {'status': 'disabled',
                              'disabled_reason': 'maintenance'},
                        headers=headers('2.53')).json['service']
    assert body['status'] == 'disabled'
    assert body['disabled_reason'] == 'maintenance'
    listed = _by_host(_services(app, '2.53'), 'c2-host1')
    assert listed['status'] == 'disabled'
    body = app.put_json(url, {'forced_down': True},
                        headers=headers('2.53')).json['service']
    assert body['forced_down'] is True and body['state'] == 'down'
    body = app.put_json(url, {'status': 'enabled', 'forced_down': False},
                        headers=headers('2.53')).json['service']
    assert body['status'] == 'enabled' and body['state'] == 'up'
    assert body['disabled_reason'] is None


@pytest.mark.parametrize('body', [
    {}, {'status': 'bogus'}, {'disabled_reason': 'x'},
    {'status': 'enabled', 'disabled_reason': 'x'},
    {'forced_down': 'maybe'}, {'status': 'disabled', 'extra': 1},
    [], 'text',
])
def test_bad_update_bodies_are_400(app, seeded, body):
    url = '/v2.1/os-services/%s' % seeded.compute('c1-host1').uuid
    resp = app.put_json(url, body, headers=headers('2.53'), status=400)
    assert resp.json['badRequest']['code'] == 400


def test_malformed_json_is_400(app, seeded):
    url = '/v2.1/os-services/%s' % seeded.compute('c1-host1').uuid
    resp = app.put(url, '{"status": ', headers=dict(
        headers('2.53'), **{'Content-Type': 'application/json'}),
        status=400)
    assert 'Malformed' in resp.json['badRequest']['message']


def test_updating_a_non_compute_service_is_400(app, seeded):
    uuid = seeded.services[('ctl1', 'nova-conductor')].uuid
    app.put_json('/v2.1/os-services/%s' % uuid, {'status': 'disabled'},
                 headers=headers('2.53'), status=400)


def test_unknown_service_is_404_and_bad_id_is_400(app):
    missing = '/v2.1/os-services/00000000-0000-0000-0000-00000000abcd'
    resp = app.put_json(missing, {'status': 'disabled'},
                        headers=headers('2.53'), status=404)
    assert resp.json['itemNotFound']['code'] == 404
    app.delete(missing, headers=headers('2.53'), status=404)
    app.delete('/v2.1/os-services/not-a-uuid', headers=headers('2.53'),
               status=400)
    app.delete('/v2.1/os-services/abc', headers=headers('2.1'), status=400)
    app.delete('/v2.1/os-services/999', headers=headers('2.1'), status=404)


def test_legacy_actions_before_2_53(app, seeded):
    body = app.put_json('/v2.1/os-services/disable-log-reason',
                        {'host': 'c2-host2', 'binary': COMPUTE,
                         'disabled_reason': 'broken fan'},
                        headers=headers('2.1')).json['service']
    assert body == {'host': 'c2-host2', 'binary': COMPUTE,
                    'status': 'disabled', 'disabled_reason': 'broken fan'}
    assert _by_host(_services(app), 'c2-host2')['status'] == 'disabled'
    body = app.put_json('/v2.1/os-services/enable',
                        {'host': 'c2-host2', 'binary': COMPUTE},
                        headers=headers('2.1')).json['service']
    assert body['status'] == 'enabled'
    app.put_json('/v2.1/os-services/disable',
                 {'host': 'c2-host2', 'binary': COMPUTE},
                 headers=headers('2.1'))
    assert _by_host(_services(app), 'c2-host2')['status'] == 'disabled'
    body = app.put_json('/v2.1/os-services/force-down',
                        {'host': 'c2-host2', 'binary': COMPUTE,
                         'forced_down': True},
                        headers=headers('2.11')).json['service']
    assert body['forced_down'] is True
    assert _by_host(_services(app, '2.11'), 'c2-host2')['state'] == 'down'


def test_legacy_action_errors(app):
    app.put_json('/v2.1/os-services/force-down',
                 {'host': 'c2-host2', 'binary': COMPUTE,
                  'forced_down': True}, headers=headers('2.10'), status=404)
    app.put_json('/v2.1/os-services/disable-log-reason',
                 {'host': 'c2-host2', 'binary': COMPUTE},
                 headers=headers('2.1'), status=400)
    app.put_json('/v2.1/os-services/enable',
                 {'host': 'nowhere', 'binary': COMPUTE},
                 headers=headers('2.1'), status=404)
    app.put_json('/v2.1/os-services/enable', {'host': 'c2-host2'},
                 headers=headers('2.1'), status=400)
    app.put_json('/v2.1/os-services/reboot',
                 {'host': 'c2-host2', 'binary': COMPUTE},
                 headers=headers('2.1'), status=404)
    # From 2.53 the actions are gone: the path segment must be a uuid.
    app.put_json('/v2.1/os-services/enable',
                 {'host': 'c2-host2', 'binary': COMPUTE},
                 headers=headers('2.53'), status=400)


def test_delete_compute_removes_service_nodes_and_host_mapping(app, seeded,
                                                               cells_env):
    uuid = seeded.compute('c2-host1').uuid
    app.delete('/v2.1/os-services/%s' % uuid, headers=headers('2.53'),
               status=204)
    assert not any(s['host'] == 'c2-host1' for s in _services(app))
    hosts = [h['hypervisor_hostname'] for h in app.get(
        '/v2.1/os-hypervisors', headers=headers()).json['hypervisors']]
    assert 'c2-host1.example.org' not in hosts
    with pytest.raises(Exception):
        objects.HostMapping.get_by_host(cells_env.ctxt, 'c2-host1')


def test_delete_by_integer_id_before_2_53(app, seeded):
    # Ids repeat across cells; id 6 exists only in cell1 (c1-host3).
    service = seeded.compute('c1-host3')
    assert service.id == 6
    app.delete('/v2.1/os-services/6', headers=headers('2.52'), status=204)
    assert not any(s['host'] == 'c1-host3' for s in _services(app))


def test_integer_id_in_several_cells_is_400(app):
    resp = app.delete('/v2.1/os-services/1', headers=headers('2.1'),
                      status=400)
    assert 'multiple' in resp.json['badRequest']['message']


@pytest.mark.parametrize('method,path,body', [
    ('GET', '/v2.1/os-services', None),
    ('PUT', '/v2.1/os-services/%(uuid)s', {'status': 'disabled'}),
    ('DELETE', '/v2.1/os-services/%(uuid)s', None),
])
def test_non_admin_is_forbidden(app, seeded, method, path, body):
    url = path % {'uuid': seeded.compute('c1-host1').uuid}
    hdrs = dict(MEMBER, **{'OpenStack-API-Version': 'compute 2.53'})
    if body is None:
        resp = app.request(url, method=method, headers=hdrs, status=403)
    else:
        resp = app.put_json(url, body, headers=hdrs, status=403)
    assert resp.json['forbidden']['code'] == 403
    assert _by_host(_services(app), 'c1-host1')['status'] == 'enabled'
