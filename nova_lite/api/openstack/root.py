"""The v2.1 router: the root controller pecan serves, dispatching every
request from the route table (compute/routes.py).

The table is compiled once, at import, into a tree of path segments; a
request walks it once and runs the route's controller method directly
(a plain callable with no arguments). The app (TableRoutedPecan) asks
the root's ``_route`` for every path and calls what it returns itself:
pecan's object traversal and its per-request reading of signatures
(``getargspec`` building a namedtuple class, about 0.2 ms of CPU per
call here) never run; its hooks, request/response locals and error
handling do.
"""
import re

import pecan

from nova_lite.api import auth
from nova_lite.api.openstack.compute import routes
from nova_lite.api.openstack import wsgi
from nova_lite.conf import CONF
from nova_lite import exception


class _Node(object):
    """One path segment: its literal children, its ``{name}`` child, and
    the routes of the path ending here ({method: [compiled route]})."""

    __slots__ = ('literals', 'param', 'methods')

    def __init__(self):
        self.literals = {}
        self.param = None
        self.methods = {}


class _Compiled(object):
    """A route ready to run: the controller's class and the plain
    function of the method serving it."""

    __slots__ = ('route', 'controller', 'function')

    def __init__(self, route):
        self.route = route
        self.controller = route.controller
        self.function = getattr(route.controller, route.handler)


def _segments(path):
    return [s for s in path.split('/') if s]


def compile_routes(table):
    """The tree of a route table; declares each route's actions."""
    root = _Node()
    for route in table:
        node = root
        for segment in _segments(route.path):
            if segment.startswith('{') and segment.endswith('}'):
                if node.param is None:
                    node.param = _Node()
                node = node.param
            else:
                node = node.literals.setdefault(segment, _Node())
        node.methods.setdefault(route.method, []).append(_Compiled(route))
        if route.actions:
            wsgi.declare_actions(route.controller, route.actions)
    return root


TREE = compile_routes(routes.ROUTES)


def match(segments, method, version):
    """(compiled route, path parameters) serving ``method`` on the path
    of ``segments`` at ``version``; the fault otherwise (see routes)."""
    node = TREE
    params = []
    for index, segment in enumerate(segments):
        if not segment:
            # An empty segment: /v2.1/ is /v2.1, but a path with a
            # trailing (or doubled) slash, /servers/ or /os-volumes/,
            # is a 404, as in Nova (its router matches no such path).
            if index or any(segments[index + 1:]):
                raise exception.ResourceNotFound()
            break
        child = node.literals.get(segment)
        if child is None:
            child = node.param
            if child is None:
                raise exception.ResourceNotFound()
            params.append(segment)
        node = child
    if not node.methods:
        raise exception.ResourceNotFound()
    candidates = node.methods.get('GET' if method == 'HEAD' else method)
    if candidates is None:
        raise wsgi.method_not_allowed(*node.methods)
    for compiled in candidates:
        if version.matches(compiled.route.min_version,
                           compiled.route.max_version):
            return compiled, params
    raise exception.ResourceNotFound()


class _Call(object):
    """One request's route: builds the controller from the path
    parameters and runs its method (which renders the response)."""

    def __init__(self, compiled, params):
        self.compiled = compiled
        self.params = params

    @pecan.expose(content_type=wsgi.JSON)
    def serve(self):
        compiled = self.compiled
        return compiled.function(compiled.controller(*self.params))


# Nova's pattern of a project id in the URL when [api] project_id_regex
# is unset: hex digits and dashes (Keystone's ids).
DEFAULT_PROJECT_ID_REGEX = r'[0-9a-f\-]+'
_PROJECT_PATTERNS = {}


def _project_pattern():
    source = CONF.api.project_id_regex or DEFAULT_PROJECT_ID_REGEX
    pattern = _PROJECT_PATTERNS.get(source)
    if pattern is None:
        pattern = _PROJECT_PATTERNS[source] = re.compile(source)
    return pattern


def split_project(segments):
    """(project id or None, the rest): every route also answers under
    ``/{project_id}/...`` (the form of older Keystone catalogs). A first
    segment that is a literal of the table is a resource, never a
    project id."""
    if segments and segments[0] and segments[0] not in TREE.literals \
            and _project_pattern().fullmatch(segments[0]):
        return segments[0], segments[1:]
    return None, segments


def check_project(ctxt, project_id):
    """As Nova: the project in the URL must be the token's (400)."""
    if ctxt is not None and project_id != ctxt.project_id:
        raise exception.Invalid(
            message="Malformed request URL: URL's project_id '%s' doesn't "
                    "match Context's project_id '%s'"
                    % (project_id, ctxt.project_id))


class V21Controller(object):
    """/v2.1: every path is matched against the route table, once;
    ``/v2.1/{project_id}/...`` serves the same table, the project id
    moving to the script name (links then carry it, as Nova's do)."""

    @pecan.expose()
    def _route(self, args, request):
        project_id, args = split_project(args)
        compiled, params = match(args, request.method, wsgi.api_version())
        if project_id is not None:
            check_project(request.environ.get(auth.CONTEXT_KEY), project_id)
            request.script_name = request.script_name + '/' + project_id
            request.path_info = '/' + '/'.join(args)
        return _Call(compiled, params).serve, []


class TableRoutedPecan(pecan.Pecan):
    """A pecan app whose root routes every path (``_route``) and whose
    routes are plain callables taking no arguments."""

    def route(self, req, node, path):
        return node._route(path.split('/')[1:], req)

    def invoke_controller(self, controller, args, kwargs, state):
        # Every route fills this request's response itself (wsgi._render)
        # and returns it.
        result = controller()
        if result is not pecan.response:
            state.response = result


def make_app(**kw):
    """The WSGI app of /v2.1: pecan serving V21Controller."""
    return TableRoutedPecan(V21Controller(), **kw)
