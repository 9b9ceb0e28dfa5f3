"""WSGI application assembly: paste pipelines around the pecan app.

load_app() is what nova-lite-api (and tests) call.
"""
import json
import os

from oslo_config import cfg
from paste import deploy
from pecan import hooks
import webob
import webob.dec

from nova_lite.api.openstack import root
from nova_lite.api.openstack import versions
from nova_lite.api.openstack import wsgi
from nova_lite.conf import CONF
from nova_lite import exception

PASTE_FILE = 'api-paste.ini'
APP_NAME = 'osapi_compute'


class JSONOnlyHook(hooks.PecanHook):
    """Every answer is JSON, whatever Accept says (as in the Compute API):
    skip pecan's content negotiation and extension guessing."""

    def on_route(self, state):
        state.request.pecan['content_type'] = wsgi.JSON


def v21_app_factory(global_conf, **local_conf):
    """The pecan app serving /v2.1 (paste app factory)."""
    return root.make_app(
        hooks=[JSONOnlyHook()],
        force_canonical=False,
        guess_content_type_from_ext=False,
        use_context_locals=True,
        debug=False,
    )


def _version_app(document):
    """A WSGI app answering GET (and HEAD) of its own root with
    document(base URL) and nothing else: 404 below it, 405 otherwise."""
    @webob.dec.wsgify
    def app(req):
        if req.path_info not in ('', '/'):
            raise exception.ResourceNotFound()
        if req.method not in ('GET', 'HEAD'):
            exc = exception.MethodNotAllowed()
            exc.headers = {'Allow': 'GET'}
            raise exc
        response = webob.Response(content_type=wsgi.JSON, charset='UTF-8')
        response.text = json.dumps(document(req.host_url + req.script_name))
        return response
    return app


_versions_app = _version_app(versions.version_list)


def versions_app_factory(global_conf, **local_conf):
    """The version list at / (paste app factory)."""
    return _versions_app


def _v20_document(base):
    if base.endswith('/v2'):
        base = base[:-len('/v2')]
    return versions.v20_document(base)


# /v2 and /v2/: the legacy v2.0 version document.
_legacy_v2_app = _version_app(_v20_document)


class LegacyV2(object):
    """/v2: Nova's "v2 compatible" endpoint. Below its root (the v2.0
    version document), the Compute API of /v2.1 at microversion 2.1
    whatever a request asks: no version is negotiated or echoed, and a
    body's properties that its schema does not know are dropped instead
    of refused (validation.validate), as the v2.0 API ignored them."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '') in ('', '/'):
            return _legacy_v2_app(environ, start_response)
        environ[wsgi.LEGACY_V2_KEY] = True
        return self.application(environ, start_response)


def legacy_v2_filter_factory(global_conf, **local_conf):
    """The /v2 filter (paste filter factory)."""
    return LegacyV2


class URLMap(object):
    """Dispatch on the longest matching path prefix; the prefix moves to
    SCRIPT_NAME. Paths nothing claims go to the '/' app."""

    def __init__(self, apps):
        self.apps = sorted(apps.items(), key=lambda kv: len(kv[0]),
                           reverse=True)

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '') or '/'
        for prefix, app in self.apps:
            if prefix == '/':
                return app(environ, start_response)
            if path == prefix or path.startswith(prefix + '/'):
                environ = dict(environ)
                environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + \
                    prefix
                environ['PATH_INFO'] = path[len(prefix):]
                return app(environ, start_response)
        raise AssertionError('URLMap needs a "/" entry')


def urlmap_factory(loader, global_conf, **local_conf):
    """A paste composite: ``/prefix = app`` lines."""
    apps = {}
    for prefix, name in local_conf.items():
        if prefix.startswith('/'):
            apps[prefix.rstrip('/') or '/'] = loader.get_app(name)
    return URLMap(apps)


def find_paste_config():
    """[api] api_paste_config next to the config files, else the packaged
    copy."""
    configured = CONF.api.api_paste_config
    if os.path.isabs(configured) and os.path.exists(configured):
        return configured
    try:
        found = CONF.find_file(configured)
    except cfg.NotInitializedError:
        # No configuration parsed (library use, tests): no config dirs.
        found = None
    if found:
        return os.path.abspath(found)
    packaged = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            PASTE_FILE)
    if os.path.exists(packaged):
        return packaged
    raise exception.NovaLiteException(
        'Cannot find paste configuration %s' % configured)


def load_app(name=APP_NAME, paste_config=None):
    """The API's WSGI application, as assembled by api-paste.ini."""
    path = paste_config or find_paste_config()
    return deploy.loadapp('config:%s' % path, name=name)
