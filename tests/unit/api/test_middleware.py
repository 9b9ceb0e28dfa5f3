"""The request-plumbing filters: URL and body limits, strict JSON bodies."""
import io

import pytest
import webob

from nova_lite.api import json_body
from nova_lite.api import middleware
from nova_lite.conf import CONF
from nova_lite import exception


def _echo_body(environ, start_response):
    body = webob.Request(environ).body
    start_response('200 OK', [('Content-Type', 'application/octet-stream')])
    return [body]


def _put(body, chunked=False):
    req = webob.Request.blank('/x', method='PUT', body=body)
    if chunked:
        # As a WSGI server hands a chunked body: no length, a stream that
        # ends where the body ends.
        req.environ.pop('CONTENT_LENGTH')
        req.environ['wsgi.input'] = io.BytesIO(body)
        req.environ['wsgi.input_terminated'] = True
        req.environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
        req.is_body_seekable = False
    return req


def test_url_over_the_limit_is_414():
    app = middleware.URLLengthLimit(_echo_body)
    with pytest.raises(exception.RequestURITooLong):
        webob.Request.blank('/x?' + 'a' * (middleware.MAX_URL_LENGTH + 1)
                            ).get_response(app)
    ok = webob.Request.blank('/x?' + 'a' * (middleware.MAX_URL_LENGTH - 3))
    assert ok.get_response(app).status_int == 200


@pytest.mark.parametrize('chunked', [False, True])
def test_body_over_the_limit_is_413_and_at_it_passes(conf, chunked):
    limit = CONF.api.max_request_body_size
    app = middleware.BodySizeLimit(middleware.StrictJSONBody(_echo_body))
    with pytest.raises(exception.RequestBodyTooLarge):
        _put(b'x' * (limit + 1), chunked).get_response(app)
    resp = _put(b'x' * limit, chunked).get_response(app)
    assert resp.status_int == 200 and len(resp.body) == limit


@pytest.mark.parametrize('body', [
    b'[' * (json_body.MAX_DEPTH + 1) + b']' * (json_body.MAX_DEPTH + 1),
    b'{"a": ' * (json_body.MAX_DEPTH + 1) + b'1' + b'}' * (
        json_body.MAX_DEPTH + 1),
    b'[' * 100000,                       # not even JSON: still too deep
    b'{"k": NaN}', b'[Infinity]', b'{"a": [1, -Infinity]}', b'[1e999]',
])
def test_too_deep_or_non_finite_bodies_are_refused(body):
    app = middleware.StrictJSONBody(_echo_body)
    with pytest.raises(exception.MalformedRequestBody):
        _put(body).get_response(app)


@pytest.mark.parametrize('body', [
    b'[' * json_body.MAX_DEPTH + b']' * json_body.MAX_DEPTH,
    b'{"k": "NaN", "s": "[[[[[[[[[[[[[[[[[[[["}' + b' ' * 10,
    b'["' + b'[' * 500 + b'"]', b'["\\"' + b'[' * 500 + b'"]',
    b'not json', b'{"a": ', b'\xff\xfe',
])
def test_other_bodies_pass(body):
    # Not JSON at all is for the endpoint to judge (and ignore if it takes
    # no body).
    resp = _put(body).get_response(middleware.StrictJSONBody(_echo_body))
    assert resp.status_int == 200 and resp.body == body


class _BrokenStream(object):
    def read(self, size=-1):
        raise ValueError('invalid literal for int() with base 16')


def test_unreadable_body_is_400():
    req = _put(b'', chunked=True)
    req.environ['wsgi.input'] = _BrokenStream()
    with pytest.raises(exception.MalformedRequestBody):
        req.get_response(middleware.StrictJSONBody(_echo_body))


def test_loads_is_strict():
    assert json_body.loads(b'{"a": [1, 2.5, "NaN", null]}') == {
        'a': [1, 2.5, 'NaN', None]}
    for raw in (b'NaN', b'[-Infinity]', b'{"x": 1E400}'):
        with pytest.raises(json_body.NotFinite):
            json_body.loads(raw)
    with pytest.raises(json_body.TooDeep):
        json_body.loads(b'[' * 5000 + b']' * 5000)
    with pytest.raises(exception.MalformedRequestBody):
        json_body.loads(b'{')
