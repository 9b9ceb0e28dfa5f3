"""/identity under noauth2: version discovery and project look-ups
answer (a project is its id), every other lookup is a 403 (clients then
use ids as given); under keystone, nothing."""
import webtest

from nova_lite.api import app as api_app
from tests.conftest import set_override


def test_discovery_answers_and_lookups_are_forbidden(api_env):
    app = webtest.TestApp(api_app.load_app())
    versions = app.get('/identity').json['versions']['values']
    assert versions[0]['id'].startswith('v3.')
    assert versions[0]['links'][0]['href'] == \
        'http://localhost/identity/v3/'
    assert app.get('/identity/v3/').json['version']['status'] == 'stable'
    project = app.get('/identity/v3/projects/p1').json['project']
    assert project['id'] == project['name'] == 'p1'
    assert [p['id'] for p in app.get(
        '/identity/v3/projects?name=p2').json['projects']] == ['p2']
    listed = app.get('/identity/v3/projects',
                     headers={'X-Auth-Token': 'admin:admin'}).json
    assert 'admin' in [p['id'] for p in listed['projects']]
    for path in ('/identity/v3/users', '/identity/v3/domains/default'):
        resp = app.get(path, status=403)
        assert 'no identity service' in resp.json['forbidden']['message']
    app.post_json('/identity/v3', {}, status=403)


def test_nothing_there_under_keystone(api_env):
    set_override('auth_strategy', 'keystone', group='api')
    app = webtest.TestApp(api_app.load_app())
    resp = app.get('/identity/v3', status=404)
    assert resp.json['itemNotFound']['code'] == 404
