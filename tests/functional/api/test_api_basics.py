"""Versions, microversion negotiation, auth and faults at the WSGI app."""
import io
import json

import pytest
import webob
import webtest

from nova_lite.api import app as api_app
from nova_lite.api.openstack import api_version
from tests.conftest import set_override
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers


def test_version_list_at_root_needs_no_token(app):
    body = app.get('/').json
    v20, v21 = body['versions']
    assert v21['id'] == 'v2.1' and v21['status'] == 'CURRENT'
    assert (v21['min_version'], v21['version']) == (api_version.MIN,
                                                    api_version.MAX)
    assert v21['links'] == [{'rel': 'self',
                             'href': 'http://localhost/v2.1/'}]
    # The legacy v2.0 entry, as Nova 34 lists it.
    assert v20 == {'id': 'v2.0', 'status': 'DEPRECATED', 'version': '',
                   'min_version': '', 'updated': '2025-07-04T12:00:00Z',
                   'links': [{'rel': 'self',
                              'href': 'http://localhost/v2/'}]}


@pytest.mark.parametrize('path', ['/v2', '/v2/'])
def test_legacy_v2_document(app, path):
    resp = app.get(path)
    assert resp.status_int == 200
    assert resp.json == {'version': {
        'id': 'v2.0', 'status': 'DEPRECATED', 'version': '',
        'min_version': '', 'updated': '2025-07-04T12:00:00Z',
        'links': [{'rel': 'self', 'href': 'http://localhost/v2/'},
                  {'rel': 'describedby', 'type': 'text/html',
                   'href': 'http://docs.openstack.org/'}],
        'media-types': [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.compute+json;version=2'}]}}


def test_legacy_v2_serves_the_api_at_2_1(app):
    """/v2 is Nova's v2 compatible endpoint: the API at 2.1 whatever the
    request asks, no microversion echoed."""
    new = headers('2.61')
    app.post_json('/v2.1/flavors', {'flavor': {
        'name': 'legacy', 'ram': 64, 'vcpus': 1, 'disk': 1,
        'description': 'shown from 2.55'}}, headers=new)
    resp = app.get('/v2/flavors/detail', headers=new)
    flavor = resp.json['flavors'][0]
    # description (2.55) and extra_specs (2.61) are not shown at 2.1.
    assert 'description' not in flavor and 'extra_specs' not in flavor
    assert 'OpenStack-API-Version' not in resp.headers
    assert 'X-OpenStack-Nova-API-Version' not in resp.headers
    v21 = app.get('/v2.1/flavors/detail', headers=headers('2.1')).json
    assert resp.json == json.loads(json.dumps(v21).replace(
        'localhost/v2.1/', 'localhost/v2/'))
    # /v2/{project_id}/... as clients of the v2 API call it.
    resp = app.get('/v2/0a1b2c/os-services',
                   headers={'X-Auth-Token': 'admin:0a1b2c'})
    assert resp.json['services']
    # A version outside the range is not refused either.
    app.get('/v2/flavors', headers=headers('9.9'))


def test_legacy_v2_drops_unknown_body_properties(app):
    body = {'keypair': {'name': 'legacy', 'unknown': 1,
                        'public_key': None}}
    resp = app.post_json('/v2.1/os-keypairs', body, headers=ADMIN,
                         status=400)
    assert 'unknown' in resp.json['badRequest']['message']
    resp = app.post_json('/v2/os-keypairs', body, headers=ADMIN,
                         status=400)
    # Dropped, not refused: the other errors still count.
    assert 'public_key' in resp.json['badRequest']['message']
    del body['keypair']['public_key']
    resp = app.post_json('/v2/os-keypairs', body, headers=ADMIN)
    assert resp.json['keypair']['name'] == 'legacy'
    assert 'unknown' not in resp.json['keypair']


def test_legacy_v2_faults_and_root(app):
    resp = app.get('/v2/servers/nope', headers=ADMIN, status=404)
    assert resp.json['itemNotFound']['code'] == 404
    assert 'OpenStack-API-Version' not in resp.headers
    app.get('/v2/servers', status=401)
    resp = app.post_json('/v2/', {}, status=405)
    assert resp.json['badMethod']['code'] == 405


@pytest.mark.parametrize('path', ['/v2.1', '/v2.1/'])
def test_v21_document(app, path):
    body = app.get(path).json['version']
    assert body['id'] == 'v2.1' and body['version'] == api_version.MAX
    assert body['links'][0] == {'rel': 'self',
                                'href': 'http://localhost/v2.1/'}


def test_missing_token_is_401_in_fault_format(app):
    resp = app.get('/v2.1/os-services', status=401)
    assert resp.json['unauthorized']['code'] == 401


@pytest.mark.parametrize('hdrs,expected', [
    ({}, '2.1'),
    ({'OpenStack-API-Version': 'compute 2.53'}, '2.53'),
    ({'X-OpenStack-Nova-API-Version': '2.60'}, '2.60'),
    ({'OpenStack-API-Version': 'compute latest'}, api_version.MAX),
    ({'X-OpenStack-Nova-API-Version': 'latest'}, api_version.MAX),
    ({'OpenStack-API-Version': 'compute 2.11',
      'X-OpenStack-Nova-API-Version': '2.60'}, '2.11'),
    ({'OpenStack-API-Version': 'placement 1.10'}, '2.1'),
])
def test_microversion_negotiation_and_headers(app, hdrs, expected):
    resp = app.get('/v2.1/os-services', headers=dict(ADMIN, **hdrs))
    assert resp.headers['OpenStack-API-Version'] == 'compute ' + expected
    assert resp.headers['X-OpenStack-Nova-API-Version'] == expected
    assert 'OpenStack-API-Version' in resp.headers['Vary']
    assert 'X-OpenStack-Nova-API-Version' in resp.headers['Vary']


@pytest.mark.parametrize('value', ['2.0', '2.105', '3.0', '1.5'])
def test_version_out_of_range_is_406(app, value):
    resp = app.get('/v2.1/os-services', headers=headers(value), status=406)
    assert resp.json['notAcceptable']['code'] == 406
    assert 'Vary' in resp.headers


@pytest.mark.parametrize('value', ['abc', '2', '2.x', '2.01.1'])
def test_malformed_version_is_400(app, value):
    resp = app.get('/v2.1/os-services', headers=headers(value), status=400)
    assert resp.json['badRequest']['code'] == 400


def test_unknown_route_is_404_in_fault_format(app):
    for path in ('/v2.1/os-nothing', '/nothing', '/v2.1/os-services/a/b/c'):
        resp = app.get(path, headers=ADMIN, status=404)
        assert resp.json['itemNotFound']['code'] == 404


def test_wrong_method_is_405_in_fault_format(app):
    for method, path in (('POST', '/v2.1/os-services'),
                         ('DELETE', '/v2.1/os-hypervisors'),
                         ('PATCH', '/v2.1/os-services/x'),
                         ('POST', '/')):
        resp = app.request(path, method=method, headers=ADMIN, status=405)
        assert resp.json['badMethod']['code'] == 405


def test_body_over_the_limit_is_413(app):
    set_override('max_request_body_size', 1024, group='api')
    resp = app.put('/v2.1/os-services/enable', 'x' * 2048,
                   headers=ADMIN, status=413)
    assert resp.json['requestEntityTooLarge']['code'] == 413


def test_chunked_body_over_the_limit_is_413(seeded):
    set_override('max_request_body_size', 1024, group='api')
    app = api_app.load_app()
    req = webob.Request.blank('/v2.1/os-services/enable', method='PUT',
                              headers=ADMIN)
    req.environ['wsgi.input'] = io.BytesIO(b'{"a": "%s"}' % (b'x' * 4096))
    req.environ.pop('CONTENT_LENGTH', None)
    req.environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
    # A WSGI server marks a chunked stream as ending with the body.
    req.environ['wsgi.input_terminated'] = True
    req.is_body_seekable = False
    resp = req.get_response(app)
    assert resp.status_int == 413
    assert resp.json['requestEntityTooLarge']['code'] == 413


def test_long_url_is_414(app):
    resp = app.get('/v2.1/os-hypervisors?x=' + 'a' * 5000, headers=ADMIN,
                   status=414)
    assert resp.json['requestUriTooLong']['code'] == 414


def test_request_id_headers(app):
    resp = app.get('/v2.1/os-services', headers=ADMIN)
    assert resp.headers['x-openstack-request-id'].startswith('req-')
    assert resp.headers['x-compute-request-id'] == \
        resp.headers['x-openstack-request-id']


def test_unexpected_error_is_500_compute_fault(app, monkeypatch):
    from nova_lite.compute.api import hosts as hosts_api

    def boom(*args, **kwargs):
        raise RuntimeError('secret internals')

    monkeypatch.setattr(hosts_api, 'service_get_all', boom)
    resp = app.get('/v2.1/os-services', headers=ADMIN, status=500)
    assert resp.json['computeFault']['code'] == 500
    assert 'secret' not in resp.text


def test_keystone_strategy_rejects_missing_token(seeded):
    from keystonemiddleware import auth_token  # noqa: F401 (its options)
    set_override('auth_strategy', 'keystone', group='api')
    set_override('www_authenticate_uri', 'http://keystone.test/identity',
                 group='keystone_authtoken')
    app = webtest.TestApp(api_app.load_app())
    resp = app.get('/v2.1/os-services', status=401)
    assert resp.json['unauthorized']['code'] == 401
    assert resp.headers['WWW-Authenticate'].startswith('Keystone uri=')
    assert app.get('/').json['versions']


def test_policy_file_override_opens_services_to_readers(seeded, tmp_path):
    from nova_lite import policy
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(
        '"os_compute_api:os-services:list": "role:reader"\n')
    set_override('policy_file', str(policy_file), group='oslo_policy')
    policy.reset()
    app = webtest.TestApp(api_app.load_app())
    app.get('/v2.1/os-services', headers={'X-Auth-Token': 'bob:p'})
    app.get('/v2.1/os-hypervisors', headers={'X-Auth-Token': 'bob:p'},
            status=403)
