import json

import kombu.exceptions
from oslo_db import exception as db_exc
import oslo_messaging as messaging
import pytest
import webob
import webob.exc

from nova_lite.api import faults
from nova_lite.api.openstack import api_version as av
from nova_lite import exception


def _call(app, environ=None):
    req = webob.Request.blank('/x')
    req.environ.update(environ or {})
    return req.get_response(faults.FaultWrapper(app))


def _raising(exc):
    def app(environ, start_response):
        raise exc
    return app


def test_exception_with_code_maps_to_its_fault_name():
    resp = _call(_raising(exception.ServiceNotFound(service_id='abc')))
    assert resp.status_int == 404
    assert json.loads(resp.text) == {'itemNotFound': {
        'code': 404, 'message': 'Service abc could not be found.'}}


def test_names_of_the_compute_api():
    for code, name in ((400, 'badRequest'), (403, 'forbidden'),
                       (405, 'badMethod'), (406, 'notAcceptable'),
                       (409, 'conflictingRequest'),
                       (413, 'requestEntityTooLarge'), (500, 'computeFault'),
                       (418, 'computeFault')):
        assert faults.fault_name(code) == name


def test_unexpected_exception_is_500_without_internals():
    resp = _call(_raising(ValueError('db password is hunter2')))
    assert resp.status_int == 500
    body = json.loads(resp.text)['computeFault']
    assert 'hunter2' not in body['message']


def test_webob_http_error_is_converted_and_keeps_allow():
    exc = webob.exc.HTTPMethodNotAllowed(headers={'Allow': 'GET'})
    resp = _call(_raising(exc))
    assert resp.status_int == 405 and resp.headers['Allow'] == 'GET'
    assert json.loads(resp.text)['badMethod']['code'] == 405


def test_foreign_error_response_is_reformatted():
    def app(environ, start_response):
        start_response('404 Not Found', [('Content-Type', 'text/html')])
        return [b'<html>nope</html>']
    resp = _call(app)
    assert json.loads(resp.text)['itemNotFound']['code'] == 404


def test_foreign_json_error_message_is_kept():
    def app(environ, start_response):
        start_response('401 Unauthorized',
                       [('Content-Type', 'application/json'),
                        ('WWW-Authenticate', 'Keystone uri="x"')])
        return [json.dumps({'error': {'message': 'who are you'}}).encode()]
    resp = _call(app)
    assert json.loads(resp.text) == {'unauthorized': {
        'code': 401, 'message': 'who are you'}}
    assert resp.headers['WWW-Authenticate'] == 'Keystone uri="x"'


def test_fault_carries_negotiated_version():
    resp = _call(_raising(exception.Forbidden()),
                 {av.ENVIRON_KEY: av.APIVersion('2.53')})
    assert resp.headers['OpenStack-API-Version'] == 'compute 2.53'
    assert resp.headers['X-OpenStack-Nova-API-Version'] == '2.53'


def test_success_passes_through():
    def app(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json')])
        return [b'{}']
    resp = _call(app)
    assert resp.status_int == 200 and resp.text == '{}'


@pytest.mark.parametrize('exc, word', [
    (db_exc.DBConnectionError('mysql://nova:hunter2@db gone'), 'database'),
    (db_exc.DBNonExistentDatabase('cell1', 'hunter2'), 'database'),
    (db_exc.CantStartEngineError('hunter2'), 'database'),
    (messaging.MessageDeliveryFailure('hunter2'), 'message queue'),
    (kombu.exceptions.OperationalError('hunter2'), 'message queue'),
    (messaging.MessagingTimeout('hunter2'), 'message queue'),
])
def test_an_outage_is_503_saying_so(exc, word):
    resp = _call(_raising(exc))
    assert resp.status_int == 503
    body = json.loads(resp.text)['serviceUnavailable']
    assert body['code'] == 503 and word in body['message']
    assert 'hunter2' not in resp.text
    assert resp.headers['Retry-After'] == '10'
