"""The embedded image service as Glance's v2 API shows it: images
listed, shown, created, uploaded and downloaded, patched, deleted.

Mounted at /image so that clients configured with
``OS_IMAGE_ENDPOINT_OVERRIDE=<endpoint>/image`` (README.rst) find images
by name or id as they would in Glance: ``openstack image list|show`` and
``openstack server create --image NAME``. Serves the version document,
``GET /v2/images`` (filters name, status, visibility, owner; limit and
marker, newest first, with a ``next`` link when the page is full) and
``GET /v2/images/{id}``, ``GET /v2/images/{id}/file`` (the data
uploaded with ``PUT``; 204 for an image without data),
``GET /v2/images/{id}/tasks`` (always empty:
no import or location tasks run here) and ``DELETE /v2/images/{id}``
(204; the image's owner or an administrator, 403 otherwise). Anything
else is a 404 (another method 405). Errors are in the Compute API's
fault format.
"""
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
_NOT_PROPERTY_FILTERS = ('limit', 'marker', 'name', 'status', 'visibility',
                         'owner', 'sort_key', 'sort_dir', 'member_status',
                         'os_hidden', 'tag', 'created_at', 'updated_at',
                         'size_min', 'size_max', 'disk_format',
                         'container_format', 'id', 'protected')
_TASKS_PATH = re.compile(r'^/v2/images/([^/]+)/tasks$')
_FILE_PATH = re.compile(r'^/v2/images/([^/]+)/file$')
# Glance's create body: these are columns, any other string is a
# property; the read-only fields are refused (403 in Glance).
_COLUMNS = ('name', 'visibility', 'disk_format', 'container_format',
            'min_disk', 'min_ram')
_READ_ONLY = ('status', 'owner', 'size', 'checksum', 'created_at',
              'updated_at', 'self', 'file', 'schema', 'virtual_size',
              'os_hash_algo', 'os_hash_value', 'direct_url', 'locations')
_IGNORED = ('id', 'tags', 'protected', 'os_hidden')
_FIXED = ('id', 'name', 'status', 'visibility', 'owner', 'min_disk',
          'min_ram', 'size', 'disk_format', 'container_format', 'checksum')

# As the Compute API answers (nova_lite.api.openstack.wsgi).
_json = wsgi.json_response


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
    # Any other parameter filters on a property (Glance v2 flattens
    # them), e.g. Tempest's image_type=backup&instance_uuid=...; those
    # and sort_dir=asc (by created_at) apply to the images the marker
    # leaves, before the limit.
    properties = {k: v for k, v in req.GET.items()
                  if k not in _NOT_PROPERTY_FILTERS}
    sort_dir = _last(req, 'sort_dir') or 'desc'
    if sort_dir not in ('asc', 'desc') or (
            _last(req, 'sort_key') or 'created_at') != 'created_at':
        raise exception.InvalidInput(
            reason='images sort by created_at, asc or desc')
    in_python = bool(properties) or sort_dir == 'asc'
    images = image_api.API().get_all(
        ctxt, filters={'name': _last(req, 'name'),
                       'status': _last(req, 'status')},
        limit=None if in_python else limit, marker=_last(req, 'marker'))
    owner = _last(req, 'owner')
    images = [i for i in images
              if (visibility in (None, 'all')
                  or i['visibility'] == visibility)
              and (owner is None or i['owner'] == owner)
              and all(str(i['properties'].get(k)) == v
                      for k, v in properties.items())]
    if sort_dir == 'asc':
        images.reverse()
    if in_python and limit is not None:
        images = images[:limit]
    body = {'images': [image_body(i) for i in images],
            'first': '/v2/images', 'schema': '/v2/schemas/images'}
    if limit and len(images) == limit:
        params = [(k, v) for k, v in req.GET.items() if k != 'marker']
        params.append(('marker', images[-1]['id']))
        body['next'] = '/v2/images?%s' % parse.urlencode(params)
    return _json(body)


def _json_body(req):
    try:
        return req.json_body
    except ValueError:
        raise exception.ValidationError(field='body',
                                        detail='The body is not JSON.')


def _create(req, ctxt):
    """POST /v2/images: a queued image record (its data comes with PUT
    .../file)."""
    body = _json_body(req)
    if not isinstance(body, dict):
        raise exception.ValidationError(field='body',
                                        detail='An image is an object.')
    bad = sorted(set(body) & set(_READ_ONLY))
    if bad:
        raise exception.Forbidden(
            message='Attribute %s is read-only.' % bad[0])
    visibility = body.get('visibility', 'shared')
    if visibility == 'shared':
        visibility = 'private'
    if visibility == 'public' and not ctxt.is_admin:
        raise exception.Forbidden(
            message='You are not authorized to publicize images.')
    columns = {k: body[k] for k in _COLUMNS if body.get(k) is not None}
    properties = {k: v for k, v in body.items()
                  if k not in _COLUMNS and k not in _IGNORED}
    for key, value in properties.items():
        if not isinstance(value, str):
            raise exception.ValidationError(
                field=key, detail='A property is a string.')
    for key in ('min_disk', 'min_ram'):
        if key in columns and (not isinstance(columns[key], int)
                               or columns[key] < 0):
            raise exception.ValidationError(
                field=key, detail='A non-negative integer.')
    image = image_api.API().create(
        ctxt, columns.pop('name', None), status='queued',
        visibility=visibility, properties=properties,
        image_id=body.get('id'),
        **{k: v for k, v in columns.items() if k != 'visibility'})
    return _json(image_body(image), 201)


def _upload(req, ctxt, image_id):
    """PUT /v2/images/{id}/file: the data (as much as the API takes in a
    request body) is kept with its size and checksum; the image goes
    active. 409 for an image that is not queued."""
    image_api.API().upload(ctxt, image_id, req.body)
    return webob.Response(status=204)


def _download(req, ctxt, image_id):
    """GET /v2/images/{id}/file: the data uploaded, or a 204 for an image
    that has none (a shipped image or a snapshot is a record only), as
    Glance answers for an image without data."""
    api = image_api.API()
    data = api.download(ctxt, image_id)
    if data is None:
        # A Content-Type all the same, as Glance sends: clients that read
        # the answer as a stream (Tempest's) look for one.
        # (webob leaves a 204's out unless it is set after.)
        resp = webob.Response(status=204)
        resp.headers['Content-Type'] = 'application/octet-stream'
        return resp
    checksum = api.get(ctxt, image_id)['checksum']
    resp = webob.Response(status=200, body=data,
                          content_type='application/octet-stream')
    if checksum:
        resp.headers['Content-MD5'] = checksum
    return resp


def _patch(req, ctxt, image_id):
    """PATCH /v2/images/{id} (JSON patch): properties added, replaced or
    removed; the image as it is then."""
    ops = _json_body(req)
    if not isinstance(ops, list):
        raise exception.ValidationError(field='body',
                                        detail='A JSON patch is a list.')
    api = image_api.API()
    properties = dict(api.get(ctxt, image_id)['properties'])
    for op in ops:
        if isinstance(op, dict) and 'op' not in op:
            # The v2.0 draft form: {"add": "/key", "value": ...}.
            named = [k for k in ('add', 'replace', 'remove') if k in op]
            if len(named) == 1:
                op = dict(op, op=named[0], path=op[named[0]])
        if not (isinstance(op, dict) and op.get('op') in (
                'add', 'replace', 'remove') and isinstance(
                op.get('path'), str) and op['path'].startswith('/')):
            raise exception.ValidationError(
                field='body', detail='Invalid JSON patch operation.')
        key = op['path'][1:]
        if key in _READ_ONLY or key in _COLUMNS or key in _IGNORED:
            raise exception.Forbidden(
                message='Attribute %s cannot be changed here.' % key)
        if op['op'] == 'remove':
            if key not in properties:
                raise exception.ResourceNotFound(
                    message='Property %s does not exist.' % key)
            del properties[key]
        elif not isinstance(op.get('value'), str):
            raise exception.ValidationError(
                field=key, detail='A property is a string.')
        else:
            properties[key] = op['value']
    return _json(image_body(api.update_properties(ctxt, image_id,
                                                  properties, purge=True)))


@webob.dec.wsgify
def _image_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if req.method not in ('GET', 'HEAD', 'DELETE', 'POST', 'PUT',
                          'PATCH'):
        raise exception.MethodNotAllowed()
    if path in ('', '/v2'):
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _json({'versions': [{
            'id': VERSION, 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': base + '/v2/'}]}]})
    ctxt = req.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    api = image_api.API()
    match = _IMAGE_PATH.match(path)
    upload = _FILE_PATH.match(path)
    if req.method == 'POST':
        if path != '/v2/images':
            raise exception.MethodNotAllowed()
        return _create(req, ctxt)
    if req.method == 'PUT':
        if not upload:
            raise exception.MethodNotAllowed()
        return _upload(req, ctxt, upload.group(1))
    if req.method == 'PATCH':
        if not match:
            raise exception.MethodNotAllowed()
        return _patch(req, ctxt, match.group(1))
    if req.method == 'DELETE':
        if not match:
            raise exception.MethodNotAllowed()
        api.delete(ctxt, match.group(1))
        return webob.Response(status=204)
    if path == '/v2/images':
        return _list(req, ctxt)
    if upload:
        return _download(req, ctxt, upload.group(1))
    if match:
        return _json(image_body(api.get(ctxt, match.group(1))))
    match = _TASKS_PATH.match(path)
    if match:
        # The tasks of an image (Glance 2.12): the embedded service runs
        # no import or location tasks, so an image it shows has none.
        api.get(ctxt, match.group(1))
        return _json({'tasks': []})
    raise exception.ResourceNotFound()


def image_app_factory(global_conf, **local_conf):
    """The image service at /image (paste app factory)."""
    return _image_app
