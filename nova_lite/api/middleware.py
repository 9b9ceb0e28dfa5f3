"""Request plumbing below the fault wrapper: request ids, size limits,
microversion negotiation. Each one raises exceptions; the fault wrapper
renders them."""
import microversion_parse
from oslo_middleware import request_id
import webob.dec

from nova_lite.api import faults
from nova_lite.api.openstack import api_version
from nova_lite.conf import CONF
from nova_lite import exception

# eventlet.wsgi refuses request lines over 8192 bytes with its own plain-text
# 414; stay well under it so that long URLs get our fault instead.
MAX_URL_LENGTH = 4096


class Middleware(object):
    """A paste filter: ``factory`` returns a function wrapping an app."""

    def __init__(self, application):
        self.application = application

    @classmethod
    def factory(cls, global_conf, **local_conf):
        def _filter(app):
            return cls(app)
        return _filter


class ComputeRequestId(request_id.RequestId):
    """oslo.middleware's request id, also sent as x-compute-request-id."""

    compat_headers = ['x-compute-request-id']


class _LimitedInput(object):
    """wsgi.input that fails with 413 once more than ``limit`` bytes come."""

    def __init__(self, stream, limit):
        self.stream = stream
        self.left = limit

    def _account(self, data):
        self.left -= len(data)
        if self.left < 0:
            raise exception.RequestBodyTooLarge()
        return data

    def read(self, size=-1):
        if size is None or size < 0:
            return self._account(self.stream.read(self.left + 1))
        return self._account(self.stream.read(min(size, self.left + 1)))

    def readline(self, size=-1):
        if size is None or size < 0:
            size = self.left + 1
        return self._account(self.stream.readline(min(size, self.left + 1)))

    def __iter__(self):
        while True:
            chunk = self.read(65536)
            if not chunk:
                return
            yield chunk


class RequestLimits(Middleware):
    """413 for bodies over [api] max_request_body_size, 414 for long URLs."""

    @webob.dec.wsgify
    def __call__(self, req):
        url_length = len(req.environ.get('RAW_PATH_INFO') or req.path) + len(
            req.query_string)
        if url_length > MAX_URL_LENGTH:
            raise exception.RequestURITooLong()
        limit = CONF.api.max_request_body_size
        if req.content_length is not None:
            if req.content_length > limit:
                raise exception.RequestBodyTooLarge()
        elif 'chunked' in req.environ.get('HTTP_TRANSFER_ENCODING',
                                          '').lower():
            # No length announced: count while reading. The wrapper ends
            # where the chunked stream ends, so webob may read it.
            req.environ['wsgi.input'] = _LimitedInput(
                req.environ['wsgi.input'], limit)
            req.environ['wsgi.input_terminated'] = True
        return req.get_response(self.application)


class Microversion(Middleware):
    """Negotiate the Compute API microversion of a request.

    Accepts ``OpenStack-API-Version: compute X.Y`` and the legacy
    ``X-OpenStack-Nova-API-Version: X.Y`` ('latest' too); stores the
    APIVersion in the environ and echoes it in the response headers.
    """

    @webob.dec.wsgify
    def __call__(self, req):
        req.environ['nova_lite.versioned'] = True
        try:
            requested = microversion_parse.get_version(
                req.headers, service_type=api_version.SERVICE_TYPE,
                legacy_headers=[api_version.LEGACY_HEADER])
        except (ValueError, TypeError) as exc:
            raise exception.InvalidAPIVersionString(version=str(exc))
        version = api_version.from_header_value(requested)
        req.environ[api_version.ENVIRON_KEY] = version
        response = req.get_response(self.application)
        faults.add_version_headers(response, version)
        return response
