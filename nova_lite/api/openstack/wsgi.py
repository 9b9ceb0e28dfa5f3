"""Helpers every controller uses: the exposing decorator, the request's
context and microversion, and the JSON body."""
import functools
import json

import pecan

from nova_lite.api import auth
from nova_lite.api.openstack import api_version as av
from nova_lite import exception


def request_context():
    """The RequestContext the auth middleware put on this request."""
    ctxt = pecan.request.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    return ctxt


def api_version():
    """The negotiated microversion (MIN when no middleware set one)."""
    return pecan.request.environ.get(av.ENVIRON_KEY) or av.min_version()


def request_body():
    """The request's JSON body as a dict; 400 if it is missing or malformed."""
    raw = pecan.request.body
    if not raw:
        raise exception.MalformedRequestBody(reason='a JSON body is required')
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise exception.MalformedRequestBody(reason=str(exc))
    return body


def method_not_allowed(*allowed):
    """A 405 naming the methods the resource does accept."""
    exc = exception.MethodNotAllowed()
    exc.headers = {'Allow': ', '.join(allowed)}
    return exc


def _empty_body():
    yield b''


def expose(status=200, min_version=None, max_version=None, method='GET'):
    """Expose a controller method as a JSON endpoint.

    The method takes no routing arguments of its own: extra path segments
    are a 404, query parameters are read through validation helpers. It
    returns a dict (rendered as JSON with ``status``) or None (empty body).
    Outside [min_version, max_version] the endpoint does not exist (404).
    ``method`` is the HTTP method served: pecan hands a generic GET handler
    every method nothing else claimed, so anything else is a 405 here.
    """
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *remainder, **_query):
            if remainder:
                raise exception.ResourceNotFound()
            requested = pecan.request.method
            if requested != method and not (requested == 'HEAD'
                                            and method == 'GET'):
                raise exception.MethodNotAllowed()
            if not api_version().matches(min_version, max_version):
                raise exception.ResourceNotFound()
            result = fn(self)
            response = pecan.response
            response.status_int = status
            if result is None:
                response.content_type = None
                if status == 200:
                    # pecan turns an empty 200 into a 204 unless the body
                    # is a generator; some Compute API deletes answer an
                    # empty 200.
                    response.app_iter = _empty_body()
                    response.content_length = 0
                else:
                    response.body = b''
            else:
                response.content_type = 'application/json'
                response.charset = 'UTF-8'
                response.text = json.dumps(result)
            return response
        return wrapper
    return decorator
