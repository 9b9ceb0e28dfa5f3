"""Request plumbing below the fault wrapper: request ids, size limits,
strict JSON bodies, microversion negotiation. Each one raises exceptions;
the fault wrapper renders them. Our own filters are plain WSGI callables:
webob.dec.wsgify would build a request and a response object per filter
and request, which a POST /flavors felt."""
import microversion_parse
from oslo_middleware import request_id
import webob.dec
import webob.exc

from nova_lite._compat import oslo_middleware as middleware_compat
from nova_lite.api import faults
from nova_lite.api import json_body
from nova_lite.api.openstack import api_version
from nova_lite.conf import CONF
from nova_lite import context as nova_context
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
    """oslo.middleware's request id, also sent as x-compute-request-id.

    Every line logged while the request is served names its request id:
    a context carrying only the ids is the green thread's current one
    (oslo.context's store, what oslo.log's formatter reads) before the
    rest of the pipeline runs, until the auth middleware replaces it
    with the caller's. Without it, the lines of a request refused before
    auth, and eventlet's access line of every request on a keep-alive
    connection, named a context an earlier request had left there."""

    compat_headers = ['x-compute-request-id']

    def __init__(self, application, conf=None):
        super().__init__(_with_logging_context(application), conf)


def _with_logging_context(application):
    def app(environ, start_response):
        nova_context.RequestContext(
            request_id=environ.get(request_id.ENV_REQUEST_ID),
            global_request_id=environ.get(request_id.GLOBAL_REQ_ID))
        return application(environ, start_response)
    return app


class BodySizeLimit(middleware_compat.LimitedBodySize):
    """oslo.middleware's body limit at [api] max_request_body_size (413).

    Bodies without a Content-Length (chunked) are counted while read.
    """

    def __init__(self, application, conf=None):
        super().__init__(application, CONF)

    def max_request_body_size(self):
        # The limit keeps its nova_lite option, read on every request.
        return CONF.api.max_request_body_size

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return super().__call__(req)
        except webob.exc.HTTPRequestEntityTooLarge:
            # Its message has an unfilled "%s": say it in ours.
            raise exception.RequestBodyTooLarge()


class URLLengthLimit(Middleware):
    """414 for URLs (path and query) over MAX_URL_LENGTH."""

    def __call__(self, environ, start_response):
        path = environ.get('RAW_PATH_INFO') or webob.Request(environ).path
        if len(path) + len(environ.get('QUERY_STRING', '')) > \
                MAX_URL_LENGTH:
            raise exception.RequestURITooLong()
        return self.application(environ, start_response)


class StrictJSONBody(Middleware):
    """Read every body once, early: 400 when it cannot be read (broken
    chunked encoding, client gone), nests deeper than json_body.MAX_DEPTH
    or holds NaN/Infinity. Below this filter nothing can recurse deeper
    than that over a body, and no endpoint ever sees a non-finite number.
    """

    def __call__(self, environ, start_response):
        try:
            # Read once; webob leaves a re-readable copy in the environ.
            raw = webob.Request(environ).body
        except webob.exc.HTTPRequestEntityTooLarge:
            # BodySizeLimit's reader counting a body of unknown length.
            raise exception.RequestBodyTooLarge()
        except (ValueError, OSError) as exc:
            raise exception.MalformedRequestBody(
                reason='the body could not be read (%s)' % exc)
        if raw:
            json_body.check_strict(raw)
        return self.application(environ, start_response)


class Microversion(Middleware):
    """Negotiate the Compute API microversion of a request.

    Accepts ``OpenStack-API-Version: compute X.Y`` and the legacy
    ``X-OpenStack-Nova-API-Version: X.Y`` ('latest' too); stores the
    APIVersion in the environ and echoes it in the response headers.
    """

    def __call__(self, environ, start_response):
        environ['nova_lite.versioned'] = True
        try:
            requested = microversion_parse.get_version(
                webob.Request(environ).headers,
                service_type=api_version.SERVICE_TYPE,
                legacy_headers=[api_version.LEGACY_HEADER])
        except (ValueError, TypeError) as exc:
            raise exception.InvalidAPIVersionString(version=str(exc))
        version = api_version.from_header_value(requested)
        environ[api_version.ENVIRON_KEY] = version
        added = faults.version_headers(version)
        replaced = {name.lower() for name, _value in added}

        def start_with_versions(status, headers, exc_info=None):
            headers = [h for h in headers if h[0].lower() not in replaced]
            return start_response(status, headers + added, exc_info)

        return self.application(environ, start_with_versions)
