"""Helpers every controller uses: the exposing decorator, the request's
context, policy check and microversion, the JSON body, and actions.

Actions (``POST /{resource}/{id}/action``) are one method each on an
``ActionController``; the route table (compute/routes.py) names them and
the body's one key picks the method.
"""
import collections
import functools
import json

import pecan
import webob

from nova_lite.api import auth
from nova_lite.api import json_body
from nova_lite.api.openstack import api_version as av
from nova_lite import exception

JSON = 'application/json'


def request_context():
    """The RequestContext the auth middleware put on this request."""
    ctxt = pecan.request.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    return ctxt


def authorize(action, own_project=False):
    """The request's context, once policy lets it perform ``action``.

    The target is no project (rules for administrators), or with
    ``own_project`` the caller's own project: Nova's target for reading a
    global resource such as a flavor's extra specs, which a reader of any
    project may do. PolicyNotAuthorized (403) otherwise.
    """
    ctxt = request_context()
    ctxt.can(action, target={'project_id': ctxt.project_id}
             if own_project else {})
    return ctxt


# Set on requests to /v2, Nova's legacy v2 compatible endpoint
# (nova_lite.api.app.LegacyV2).
LEGACY_V2_KEY = 'nova_lite.legacy_v2'


def json_response(body, status=200, headers=None):
    """A webob JSON response of body (the embedded services' answers,
    which are plain WSGI, not pecan)."""
    response = webob.Response(content_type=JSON, charset='UTF-8',
                              status=status)
    response.headers.update(headers or {})
    response.text = json.dumps(body)
    return response


def api_version():
    """The negotiated microversion (MIN when no middleware set one)."""
    return pecan.request.environ.get(av.ENVIRON_KEY) or av.min_version()


def is_legacy_v2():
    """Whether this request came through /v2 (lenient bodies); False
    outside a request."""
    try:
        return bool(pecan.request.environ.get(LEGACY_V2_KEY))
    except (AttributeError, RuntimeError):
        return False


def request_body():
    """The request's body as strict JSON (json_body.loads); 400 if it is
    missing or malformed."""
    raw = pecan.request.body
    if not raw:
        raise exception.MalformedRequestBody(reason='a JSON body is required')
    return json_body.loads(raw)


def method_not_allowed(*allowed):
    """A 405 naming the methods the resource does accept."""
    exc = exception.MethodNotAllowed()
    exc.headers = {'Allow': ', '.join(allowed)}
    return exc


class WithStatus(collections.namedtuple('WithStatus', ['body', 'status'])):
    """What a handler returns when it decides its own status (e.g. 201
    for a tag added, 204 for one already there): the body (a dict or
    None) and the status code, which override the exposed status."""


def _empty_body():
    yield b''


def _render(result, status):
    response = pecan.response
    response.status_int = status
    if result is None:
        response.content_type = None
        if status == 200:
            # pecan turns an empty 200 into a 204 unless the body is a
            # generator; some Compute API deletes answer an empty 200.
            response.app_iter = _empty_body()
            response.content_length = 0
        else:
            response.body = b''
    else:
        response.content_type = JSON
        response.charset = 'UTF-8'
        response.text = json.dumps(result)
    return response


def expose(status=200):
    """Expose a controller method as a JSON endpoint (the route table,
    compute/routes.py, says which method, path and microversions it
    serves).

    The method takes no arguments of its own: query parameters and the
    body are read through validation helpers. It returns a dict
    (rendered as JSON with ``status``), None (empty body), or a
    WithStatus. ``status`` may be a function of the microversion, for
    resources whose status code changed with one (os-keypairs: 200 ->
    201 at 2.2).
    """
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self):
            code = status(api_version()) if callable(status) else status
            result = fn(self)
            if isinstance(result, WithStatus):
                return _render(result.body, result.status)
            return _render(result, code)
        return wrapper
    return decorator


# {controller class: {action name: [(function, min, max, status)]}},
# declared from the route table.
_ACTIONS = {}


def declare_actions(controller, actions):
    """Make ``actions`` (the route table's Action entries) the actions
    of ``controller``, the class serving their route."""
    table = _ACTIONS.setdefault(controller, {})
    for entry in actions:
        table.setdefault(entry.name, []).append(
            (entry.handler, entry.min_version, entry.max_version,
             entry.status))


def find_action(controller, name):
    """(bound handler, status) of action ``name`` at this request's
    microversion, or None if the controller has none."""
    version = api_version()
    for fn, low, high, status in _ACTIONS.get(type(controller), {}).get(
            name, ()):
        if version.matches(low, high):
            return functools.partial(fn, controller), status
    return None


def action_name(body):
    """The one key of an action body: the action's name (400 otherwise)."""
    if not isinstance(body, dict) or len(body) != 1:
        raise exception.MalformedRequestBody(
            reason='an action body has exactly one key, the action name')
    return next(iter(body))


class ActionController(object):
    """``POST /{resource}/{id}/action``: runs the handler the route
    table lists for the body's one key; an unknown key is a 400, one
    the table lists at other microversions only a 404 (as in Nova)."""

    def post(self):
        body = request_body()
        name = action_name(body)
        found = find_action(self, name)
        if found is None:
            if name in _ACTIONS.get(type(self), {}):
                # An action of other microversions only (trigger_crash_dump
                # before 2.17, os-getVNCConsole from 2.6): 404, as Nova.
                raise exception.ResourceNotFound()
            raise exception.InvalidInput(
                reason='There is no such action: %s' % name)
        handler, status = found
        return _render(handler(body=body), status)
