"""No identity service: what OpenStack clients that look projects up are
told under noauth2.

With noauth2 there is no Keystone: a project is whatever the token names.
The OpenStack clients still look a project up before they use it (e.g.
``openstack flavor set --project P``): they discover an identity v3
endpoint, ask it for the project and, when refused with a 403, use the
value they were given as the project id. Mounted at /identity, this app
answers the version discovery and refuses every lookup. With
``[api] auth_strategy = keystone`` the real identity service is elsewhere
and everything here is a 404.
"""
import json

import webob
import webob.dec

from nova_lite.api.openstack import wsgi
from nova_lite.conf import CONF
from nova_lite import exception

VERSION_ID = 'v3.14'
UPDATED = '2020-04-07T00:00:00Z'


def _version(url):
    return {'id': VERSION_ID, 'status': 'stable', 'updated': UPDATED,
            'links': [{'rel': 'self', 'href': url}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.identity-'
                                     'v3+json'}]}


def _json(body):
    response = webob.Response(content_type=wsgi.JSON, charset='UTF-8')
    response.text = json.dumps(body)
    return response


@webob.dec.wsgify
def _identity_app(req):
    if CONF.api.auth_strategy != 'noauth2':
        raise exception.ResourceNotFound()
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if req.method in ('GET', 'HEAD') and path == '':
        return _json({'versions': {'values': [_version(base + '/v3/')]}})
    if req.method in ('GET', 'HEAD') and path == '/v3':
        return _json({'version': _version(base + '/v3/')})
    raise exception.Forbidden(
        message='There is no identity service under noauth2: projects are '
                'the ones tokens name; use project ids as they are.')


def identity_app_factory(global_conf, **local_conf):
    """The identity stand-in at /identity (paste app factory)."""
    return _identity_app
