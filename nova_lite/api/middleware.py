"""Request plumbing below the fault wrapper: request ids, size limits,
strict JSON bodies, microversion negotiation. Each one raises exceptions;
the fault wrapper renders them."""
import microversion_parse
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import webob.dec
import webob.exc

from nova_lite.api import faults
from nova_lite.api import json_body
from nova_lite.api.openstack import api_version
from nova_lite.conf import CONF
from nova_lite import exception

# Longer URLs get a 414 here; nova_lite.wsgi answers request lines too
# long to even parse with the same fault.
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


class BodySizeLimit(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's body limit at [api] max_request_body_size (413).

    Bodies without a Content-Length (chunked) are counted while read.
    """

    def __init__(self, application, conf=None):
        super().__init__(application, CONF)

    def _conf_get(self, key, group='oslo_middleware'):
        # oslo.middleware internal, kept: doc/private-apis.rst.
        # The limit keeps its nova_lite option, read on every request.
        if key == 'max_request_body_size':
            return CONF.api.max_request_body_size
        return super()._conf_get(key, group)

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return super().__call__(req)
        except webob.exc.HTTPRequestEntityTooLarge:
            # Its message has an unfilled "%s": say it in ours.
            raise exception.RequestBodyTooLarge()


class URLLengthLimit(Middleware):
    """414 for URLs (path and query) over MAX_URL_LENGTH."""

    @webob.dec.wsgify
    def __call__(self, req):
        url_length = len(req.environ.get('RAW_PATH_INFO') or req.path) + len(
            req.query_string)
        if url_length > MAX_URL_LENGTH:
            raise exception.RequestURITooLong()
        return req.get_response(self.application)


class StrictJSONBody(Middleware):
    """Read every body once, early: 400 when it cannot be read (broken
    chunked encoding, client gone), nests deeper than json_body.MAX_DEPTH
    or holds NaN/Infinity. Below this filter nothing can recurse deeper
    than that over a body, and no endpoint ever sees a non-finite number.
    """

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            raw = req.body
        except webob.exc.HTTPRequestEntityTooLarge:
            # BodySizeLimit's reader counting a body of unknown length.
            raise exception.RequestBodyTooLarge()
        except (ValueError, OSError) as exc:
            raise exception.MalformedRequestBody(
                reason='the body could not be read (%s)' % exc)
        if raw:
            json_body.check_strict(raw)
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
