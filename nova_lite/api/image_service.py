"""The embedded image service as Glance's v2 API shows it, read only.

Mounted at /image so that clients configured with
``OS_IMAGE_ENDPOINT_OVERRIDE=<endpoint>/image`` (README.rst) find images
by name or id as they would in Glance: ``openstack image list|show`` and
``openstack server create --image NAME``. Serves the version document,
``GET /v2/images`` (filters name, status, visibility, owner; limit and
marker, newest first, with a ``next`` link when the page is full) and
``GET /v2/images/{id}``. Anything else is a 404. Errors are in the
Compute API's fault format.
"""
import json
import re
from urllib import parse

import webob
import webob.dec

from nova_lite.api import auth
from nova_lite.api.openstack import wsgi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api

VERSION = 'v2.16'
_IMAGE_PATH = re.compile(r'^/v2/images/([^/]+)$')
_FIXED = ('id', 'name', 'status', 'visibility', 'owner', 'min_disk',
          'min_ram', 'size', 'disk_format', 'container_format', 'checksum')


def _json(body, status=200):
    response = webob.Response(content_type=wsgi.JSON, charset='UTF-8',
                              status=status)
    response.text = json.dumps(body)
    return response


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value else None


def image_body(image):
    """An image dict of nova_lite.image.api as Glance v2 shows it: fixed
    fields, then the properties flattened in."""
    body = dict(image['properties'])
    body.update({name: image[name] for name in _FIXED})
    body.update({
        'created_at': _date(image['created_at']),
        'updated_at': _date(image['updated_at'] or image['created_at']),
        'protected': False, 'tags': [],
        'virtual_size': None, 'os_hash_algo': None, 'os_hash_value': None,
        'self': '/v2/images/%s' % image['id'],
        'file': '/v2/images/%s/file' % image['id'],
        'schema': '/v2/schemas/image'})
    return body


def _last(req, name):
    values = req.GET.getall(name)
    return values[-1] if values else None


def _list(req, ctxt):
    limit = _last(req, 'limit')
    try:
        limit = min(int(limit), CONF.api.max_limit) if limit else \
            CONF.api.max_limit
    except ValueError:
        raise exception.InvalidInput(reason='limit must be an integer')
    if limit < 0:
        raise exception.InvalidInput(reason='limit must not be negative')
    visibility = _last(req, 'visibility')
    images = image_api.API().get_all(
        ctxt, filters={'name': _last(req, 'name'),
                       'status': _last(req, 'status')},
        limit=limit, marker=_last(req, 'marker'))
    owner = _last(req, 'owner')
    images = [i for i in images
              if (visibility in (None, 'all')
                  or i['visibility'] == visibility)
              and (owner is None or i['owner'] == owner)]
    body = {'images': [image_body(i) for i in images],
            'first': '/v2/images', 'schema': '/v2/schemas/images'}
    if limit and len(images) == limit:
        params = [(k, v) for k, v in req.GET.items() if k != 'marker']
        params.append(('marker', images[-1]['id']))
        body['next'] = '/v2/images?%s' % parse.urlencode(params)
    return _json(body)


@webob.dec.wsgify
def _image_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if req.method not in ('GET', 'HEAD'):
        raise exception.MethodNotAllowed()
    if path in ('', '/v2'):
        return _json({'versions': [{
            'id': VERSION, 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': base + '/v2/'}]}]})
    ctxt = req.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    if path == '/v2/images':
        return _list(req, ctxt)
    match = _IMAGE_PATH.match(path)
    if match:
        return _json(image_body(image_api.API().get(ctxt, match.group(1))))
    raise exception.ResourceNotFound()


def image_app_factory(global_conf, **local_conf):
    """The image service at /image (paste app factory)."""
    return _image_app
