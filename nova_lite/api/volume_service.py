"""The embedded volume service as Cinder's Block Storage API v3 shows
it: the minimum clients need to find, create and delete volumes.

Mounted at /volume so that clients configured with
``OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE=<endpoint>/volume/v3`` (README.rst)
find volumes by name or id as they would in Cinder (``openstack volume
create|list|show|delete``, ``openstack server add volume``, ``server
create --volume``). Serves the version document, ``GET
/v3[/{project_id}]/volumes[/detail]`` (filters name, status),
``GET .../volumes/{id}``, ``POST .../volumes`` (size, name,
description, imageRef, availability_zone; 202), ``DELETE
.../volumes/{id}`` (202; 400 while attached) and ``GET .../limits``
(no limits; the caller's volumes counted: ``openstack limits show``
asks for them). The project id in the
path is optional, as from Cinder's microversion 3.67; the caller's
token decides what is visible. Anything else is a 404. Errors are in
the Compute API's fault format.
"""
import json
import re

import jsonschema
import webob
import webob.dec

from nova_lite.api import auth
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.volume import api as volume_api

VERSION = 'v3.0'
MAX_MICROVERSION = '3.70'
_PATH = re.compile(r'^/v3(?:/(?P<project>[^/]+))?/volumes'
                   r'(?:/(?P<volume>[^/]+))?$')
_LIMITS_PATH = re.compile(r'^/v3(?:/[^/]+)?/limits$')

CREATE = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'size': {'type': ['integer', 'string'],
                         'pattern': '^[0-9]+$', 'minimum': 1},
                'name': {'type': ['string', 'null'], 'maxLength': 255},
                'description': {'type': ['string', 'null'],
                                'maxLength': 255},
                'imageRef': {'type': ['string', 'null']},
                'availability_zone': {'type': ['string', 'null'],
                                      'maxLength': 255},
                'volume_type': {'type': ['string', 'null']},
                'metadata': {'type': ['object', 'null']},
                'multiattach': {'type': 'boolean', 'enum': [False]},
            },
            'required': ['size'],
            'additionalProperties': True,
        },
    },
    'required': ['volume'],
    'additionalProperties': False,
}


def _json(body, status=200):
    response = webob.Response(content_type=wsgi.JSON, charset='UTF-8',
                              status=status)
    response.headers['OpenStack-API-Version'] = 'volume 3.0'
    response.text = json.dumps(body)
    return response


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.000000') if value else None


_ATTACHMENT_FIELDS = ('id', 'attachment_id', 'volume_id', 'server_id',
                      'host_name', 'device')


def _links(volume, base):
    return [{'rel': 'self',
             'href': '%s/v3/volumes/%s' % (base, volume['id'])},
            {'rel': 'bookmark',
             'href': '%s/volumes/%s' % (base, volume['id'])}]


def volume_summary(volume, base):
    """A volume as Cinder's non-detailed list shows it."""
    return {'id': volume['id'], 'name': volume['name'],
            'links': _links(volume, base)}


def volume_body(volume, base, created=False):
    """A volume dict of nova_lite.volume.api as Cinder v3 shows it: in
    show and the detailed list, or (created) in the answer to a create,
    which has neither the owning project nor the image metadata."""
    body = {name: volume[name] for name in (
        'id', 'name', 'description', 'size', 'status', 'availability_zone',
        'user_id', 'multiattach')}
    body.update({
        'bootable': 'true' if volume['bootable'] else 'false',
        'created_at': _date(volume['created_at']),
        'updated_at': _date(volume['updated_at']),
        'attachments': [
            dict({name: a[name] for name in _ATTACHMENT_FIELDS},
                 attached_at=None)
            for a in volume['attachments']],
        'encrypted': False, 'metadata': {}, 'volume_type': None,
        'snapshot_id': None, 'source_volid': None,
        'replication_status': None, 'consistencygroup_id': None,
        'migration_status': None, 'links': _links(volume, base)})
    if created:
        return body
    body['os-vol-tenant-attr:tenant_id'] = volume['project_id']
    if volume['volume_image_metadata']:
        body['volume_image_metadata'] = dict(volume['volume_image_metadata'])
    return body


def _create(req, ctxt, base):
    body = req.json_body if req.body else None
    try:
        jsonschema.validate(body, CREATE)
    except jsonschema.ValidationError as exc:
        raise exception.ValidationError(
            field='.'.join(str(p) for p in exc.path) or 'volume',
            detail=exc.message)
    spec = body['volume']
    volume = volume_api.API().create(
        ctxt, int(spec['size']), spec.get('name'),
        description=spec.get('description'),
        image_id=_image(ctxt, spec.get('imageRef')),
        availability_zone=spec.get('availability_zone'),
        volume_type=spec.get('volume_type'))
    return _json({'volume': volume_body(volume, base, created=True)}, 202)


def _image(ctxt, image_ref):
    if not image_ref:
        return None
    try:
        return image_api.API().get(ctxt, image_ref)['id']
    except exception.ImageNotFound:
        raise exception.InvalidInput(
            reason='Image %s could not be found.' % image_ref)


def _list(req, ctxt, base, detail):
    volumes = volume_api.API().get_all(ctxt, {
        'name': validation.last(req.GET.dict_of_lists(), 'name'),
        'status': validation.last(req.GET.dict_of_lists(), 'status')})
    view = volume_body if detail else volume_summary
    return _json({'volumes': [view(v, base) for v in volumes]})


def _limits(ctxt):
    """Cinder's absolute limits: the embedded service sets none (-1);
    the caller's volumes and their size are counted."""
    volumes = volume_api.API().get_all(ctxt, {})
    return _json({'limits': {'rate': [], 'absolute': {
        'maxTotalVolumes': -1, 'maxTotalVolumeGigabytes': -1,
        'maxTotalSnapshots': -1, 'maxTotalBackups': -1,
        'maxTotalBackupGigabytes': -1, 'totalVolumesUsed': len(volumes),
        'totalGigabytesUsed': sum(v['size'] or 0 for v in volumes),
        'totalSnapshotsUsed': 0, 'totalBackupsUsed': 0,
        'totalBackupGigabytesUsed': 0}}})


@webob.dec.wsgify
def _volume_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if path in ('', '/v3'):
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _json({'versions': [{
            'id': VERSION, 'status': 'CURRENT', 'version': MAX_MICROVERSION,
            'min_version': '3.0', 'updated': '2026-11-25T00:00:00Z',
            'links': [{'rel': 'self', 'href': base + '/v3/'}]}]})
    ctxt = req.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    if _LIMITS_PATH.match(path):
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _limits(ctxt)
    match = _PATH.match(path)
    if match is None:
        raise exception.ResourceNotFound()
    api = volume_api.API()
    volume_id = match.group('volume')
    if volume_id in (None, 'detail'):
        if req.method == 'POST' and volume_id is None:
            return _create(req, ctxt, base)
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _list(req, ctxt, base, detail=volume_id == 'detail')
    if req.method in ('GET', 'HEAD'):
        return _json({'volume': volume_body(api.get(ctxt, volume_id),
                                            base)})
    if req.method == 'DELETE':
        api.delete(ctxt, volume_id)
        return webob.Response(status=202)
    raise exception.MethodNotAllowed()


def volume_app_factory(global_conf, **local_conf):
    """The volume service at /volume (paste app factory)."""
    return _volume_app
