"""/identity under noauth2: version discovery answers, every lookup is a
403 (clients then use project ids as given); under keystone, nothing."""
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
    for path in ('/identity/v3/projects/p1', '/identity/v3/projects?name=p',
                 '/identity/v3/users'):
        resp = app.get(path, status=403)
        assert 'no identity service' in resp.json['forbidden']['message']
    app.post_json('/identity/v3', {}, status=403)


def test_nothing_there_under_keystone(api_env):
    set_override('auth_strategy', 'keystone', group='api')
    app = webtest.TestApp(api_app.load_app())
    resp = app.get('/identity/v3', status=404)
    assert resp.json['itemNotFound']['code'] == 404
