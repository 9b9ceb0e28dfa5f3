"""The Compute API fault format, and the one middleware that produces it.

Every error leaving the API looks like
``{"itemNotFound": {"code": 404, "message": "..."}}``: exceptions carrying a
``.code`` raised anywhere below, webob HTTP errors, and error responses built
by code we do not own (pecan's routing 404/405, keystonemiddleware's 401).
"""
import json

from oslo_db import exception as db_exc
from oslo_log import log as logging
import oslo_messaging as messaging
import webob
import webob.dec
import webob.exc

from nova_lite.api.openstack import api_version
from nova_lite import exception
from nova_lite import rpc

LOG = logging.getLogger(__name__)

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    406: 'notAcceptable',
    409: 'conflictingRequest',
    413: 'requestEntityTooLarge',
    414: 'requestUriTooLong',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}
DEFAULT_FAULT_NAME = 'computeFault'
INTERNAL_ERROR_MESSAGE = ('Unexpected API Error. Please report this at '
                          'your service provider and attach the request id.')

# Errors that mean a backend is unreachable for now, not a bug: the
# client gets a 503 saying so (and may retry), not a 500. A database
# that refuses connections or drops them (oslo.db's DBConnectionError),
# one that cannot be opened at all (DBNonExistentDatabase: a SQLite file
# whose directory is gone) or whose engine cannot start; a message queue
# that cannot take a message within the bounded retries, or a service
# that did not answer a call in time.
_DATABASE_OUTAGES = (db_exc.DBConnectionError, db_exc.DBNonExistentDatabase,
                     db_exc.CantStartEngineError)
_MESSAGING_OUTAGES = rpc.SEND_FAILURES + (messaging.MessagingTimeout,)


def outage(exc):
    """The ServiceOutage exc means, or None when it is no outage."""
    if isinstance(exc, exception.ServiceOutage):
        return exc
    if isinstance(exc, _DATABASE_OUTAGES):
        return exception.DatabaseUnavailable()
    if isinstance(exc, _MESSAGING_OUTAGES):
        return exception.MessagingUnavailable(reason=type(exc).__name__)
    return None


# Headers of an error response from below worth keeping on the fault.
_KEPT_HEADERS = ('Allow', 'WWW-Authenticate', 'Retry-After')


def fault_name(code):
    return FAULT_NAMES.get(code, DEFAULT_FAULT_NAME)


def version_headers(version):
    """[(name, value)] advertising the microversion a response was
    produced at (version None: only Vary)."""
    headers = []
    if version is not None:
        headers += [(api_version.STANDARD_HEADER, '%s %s' % (
            api_version.SERVICE_TYPE, version)),
            (api_version.LEGACY_HEADER, str(version))]
    headers.append(('Vary', ', '.join([api_version.STANDARD_HEADER,
                                       api_version.LEGACY_HEADER])))
    return headers


def add_version_headers(response, version):
    """Advertise the microversion a response was produced at."""
    for name, value in version_headers(version):
        response.headers[name] = value


def fault_response(code, message, headers=None):
    body = {fault_name(code): {'code': code, 'message': message}}
    response = webob.Response(status=code, content_type='application/json',
                              charset='UTF-8')
    response.text = json.dumps(body)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _message_of_response(response):
    """The best human message in an error response we did not build."""
    original = response.request.environ.get('pecan.original_exception') \
        if getattr(response, 'request', None) else None
    if original is not None and getattr(original, 'detail', None):
        return str(original.detail)
    if response.content_type == 'application/json':
        try:
            body = json.loads(response.text)
        except ValueError:
            body = None
        if isinstance(body, dict) and len(body) == 1:
            inner = next(iter(body.values()))
            if isinstance(inner, dict) and inner.get('message'):
                return str(inner['message'])
    try:
        return webob.exc.status_map[response.status_int].explanation
    except KeyError:
        return response.status


class FaultWrapper(object):
    """Turn every exception and foreign error response into a fault."""

    def __init__(self, application):
        self.application = application

    @classmethod
    def factory(cls, global_conf, **local_conf):
        return cls

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            response = req.get_response(self.application)
        except exception.NovaLiteException as exc:
            response = self._from_exception(req, exc.code,
                                            exc.format_message(),
                                            exc.headers)
        except webob.exc.HTTPException as exc:
            if exc.status_int < 400:
                return exc
            response = self._from_exception(
                req, exc.status_int, exc.detail or exc.explanation,
                {h: exc.headers[h] for h in _KEPT_HEADERS
                 if h in exc.headers})
        except Exception as exc:
            unavailable = outage(exc)
            if unavailable is None:
                LOG.exception('Unexpected error serving %s %s', req.method,
                              req.path_qs)
                response = self._from_exception(req, 500,
                                                INTERNAL_ERROR_MESSAGE)
            else:
                LOG.warning('%s %s: 503, %s: %s', req.method, req.path_qs,
                            type(exc).__name__, exc)
                response = self._from_exception(
                    req, unavailable.code, unavailable.format_message(),
                    unavailable.headers)
        else:
            if response.status_int >= 400:
                response.request = req
                response = self._from_exception(
                    req, response.status_int,
                    _message_of_response(response),
                    {h: response.headers[h] for h in _KEPT_HEADERS
                     if h in response.headers})
        return response

    @staticmethod
    def _from_exception(req, code, message, headers=None):
        if code >= 500:
            # Never leak internals through a server error message.
            if code == 500:
                message = INTERNAL_ERROR_MESSAGE
        response = fault_response(code, message, headers)
        if api_version.ENVIRON_KEY in req.environ or req.environ.get(
                'nova_lite.versioned'):
            add_version_headers(response,
                                req.environ.get(api_version.ENVIRON_KEY))
        return response
