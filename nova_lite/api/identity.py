"""No identity service: what OpenStack clients that look projects up are
told under noauth2.

With noauth2 there is no Keystone: a project is whatever the token names.
The OpenStack clients still look a project up before they use it (e.g.
``openstack flavor set --project P``): they discover an identity v3
endpoint, ask it for the project and, when refused with a 403, use the
value they were given as the project id. Mounted at /identity, this app
answers the version discovery and the project look-ups (a project named
by id is the project of that id: ``GET /v3/projects/{id}`` and ``GET
/v3/projects?name={id}``, as ``openstack quota show|set|delete PROJECT``
asks; ``GET /v3/projects`` lists the projects with limits or servers
here, and the caller's own, for ``openstack quota list``) and refuses
every other look-up. With
``[api] auth_strategy = keystone`` the real identity service is elsewhere
and everything here is a 404.
"""
import json

import webob
import webob.dec

from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import quotas as quotas_api
from nova_lite.conf import CONF
from nova_lite import context as nova_context
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
    if req.method in ('GET', 'HEAD') and path.startswith('/v3/projects/'):
        project_id = path[len('/v3/projects/'):]
        if project_id and '/' not in project_id:
            return _json({'project': _project(base, project_id)})
    if req.method in ('GET', 'HEAD') and path == '/v3/projects':
        if req.GET.get('name'):
            names = [req.GET['name']]
        else:
            names = set(quotas_api.known_projects(
                nova_context.get_admin_context()))
            token = req.headers.get('X-Auth-Token') or ''
            if ':' in token:
                names.add(token.split(':', 1)[1])
            names = sorted(names)
        return _json({'projects': [_project(base, n) for n in names],
                      'links': {'self': base + '/v3/projects',
                                'previous': None, 'next': None}})
    raise exception.Forbidden(
        message='There is no identity service under noauth2: projects are '
                'the ones tokens name; use project ids as they are.')


def _project(base, project_id):
    """A project under noauth2: its id is its name."""
    return {'id': project_id, 'name': project_id, 'domain_id': 'default',
            'description': '', 'enabled': True, 'is_domain': False,
            'parent_id': 'default', 'tags': [], 'options': {},
            'links': {'self': base + '/v3/projects/' + project_id}}


def identity_app_factory(global_conf, **local_conf):
    """The identity stand-in at /identity (paste app factory)."""
    return _identity_app
