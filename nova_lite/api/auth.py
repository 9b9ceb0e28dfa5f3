"""Authentication filters: who is asking becomes a RequestContext.

``[api] auth_strategy`` picks the pipeline (see api-paste.ini):
``keystone`` runs keystonemiddleware's auth_token then KeystoneContext;
``noauth2`` trusts an ``X-Auth-Token: user:project`` header (testing and the
all-in-one only).
"""
import webob.dec

from nova_lite.api import middleware
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception

CONTEXT_KEY = 'nova_lite.context'
ADMIN_USER = 'admin'
ADMIN_ROLES = ['admin', 'member', 'reader']
MEMBER_ROLES = ['member', 'reader']


def pipeline_factory(loader, global_conf, **local_conf):
    """A paste composite whose pipeline is chosen by [api] auth_strategy."""
    pipeline = local_conf[CONF.api.auth_strategy].split()
    filters = [loader.get_filter(name) for name in pipeline[:-1]]
    app = loader.get_app(pipeline[-1])
    for _filter in reversed(filters):
        app = _filter(app)
    return app


def _is_version_document(req):
    # The version document of the API root answers without credentials, so
    # that clients can discover versions before they authenticate.
    return req.method == 'GET' and req.path_info in ('', '/')


class NoAuthMiddleware(middleware.Middleware):
    """Token ``user:project`` (or ``user``) → context; ``admin`` is admin."""

    @webob.dec.wsgify
    def __call__(self, req):
        token = req.headers.get('X-Auth-Token') or req.headers.get(
            'X-Storage-Token')
        if not token:
            if not _is_version_document(req):
                raise exception.Unauthorized()
            user_id = project_id = None
            roles = []
        else:
            user_id, _sep, project_id = token.partition(':')
            project_id = project_id or user_id
            roles = ADMIN_ROLES if user_id == ADMIN_USER else MEMBER_ROLES
        req.environ[CONTEXT_KEY] = nova_context.RequestContext(
            user_id=user_id, project_id=project_id, roles=list(roles),
            user_name=user_id, project_name=project_id, auth_token=token,
            request_id=req.environ.get('openstack.request_id'),
            global_request_id=req.environ.get('openstack.global_request_id'))
        return self.application


class KeystoneContext(middleware.Middleware):
    """Build a RequestContext from the headers auth_token left behind."""

    @webob.dec.wsgify
    def __call__(self, req):
        if req.headers.get('X-Identity-Status', 'Confirmed') != 'Confirmed':
            if not _is_version_document(req):
                raise exception.Unauthorized()
        ctxt = nova_context.RequestContext.from_environ(req.environ)
        req.environ[CONTEXT_KEY] = ctxt
        return self.application
