"""Canary of nova_lite._compat.oslo_middleware: oslo.middleware's body
size limiter reads its limit through _conf_get, on every request."""
import webob
import webob.dec

from nova_lite._compat import oslo_middleware as middleware_compat


@webob.dec.wsgify
def _app(req):
    return webob.Response(body=req.body)


def test_the_limit_is_asked_on_every_request():
    limits = [4, 8]

    class Limited(middleware_compat.LimitedBodySize):
        def max_request_body_size(self):
            return limits[0]

    app = Limited(_app)
    body = b'123456'
    assert webob.Request.blank('/', method='POST', body=body).get_response(
        app).status_int == 413
    limits.pop(0)
    answer = webob.Request.blank('/', method='POST', body=body).get_response(
        app)
    assert answer.status_int == 200 and answer.body == body
