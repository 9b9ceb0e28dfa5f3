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
.../volumes/{id}`` (202; 400 while attached), ``POST
.../volumes/{id}/action`` with ``os-set_bootable`` (200; any other
action 400) and ``GET .../limits`` (no limits; the caller's volumes
counted: ``openstack limits show`` asks for them). The project id in
the path is optional, as from Cinder's microversion 3.67; the caller's
token decides what is visible. Anything else is a 404. Errors are in
the Compute API's fault format.
"""
import re

import jsonschema
import webob
import webob.dec
import webob.exc

from oslo_utils import strutils

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
_ACTION_PATH = re.compile(r'^/v3(?:/[^/]+)?/volumes/(?P<volume>[^/]+)/action$')

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
    return wsgi.json_response(body, status,
                              {'OpenStack-API-Version': 'volume 3.0'})


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


def _boolean(value, field):
    """Cinder's boolean parameter: a JSON boolean or one of oslo.utils'
    true and false strings."""
    try:
        return strutils.bool_from_string(value, strict=True)
    except (TypeError, ValueError):
        raise exception.ValidationError(
            field=field, detail='%r is not a valid boolean' % (value,))


def _action(req, ctxt, volume_id):
    """POST .../volumes/{id}/action: ``os-set_bootable`` (200, no
    body), as Cinder; any other action is a 400."""
    if req.method != 'POST':
        raise exception.MethodNotAllowed()
    try:
        body = req.json_body if req.body else None
    except ValueError:
        body = None
    if not isinstance(body, dict) or len(body) != 1:
        raise exception.InvalidInput(
            reason='The request body must name exactly one action.')
    (name, args), = body.items()
    api = volume_api.API()
    if name != 'os-set_bootable':
        # (The volume is looked up first: 404 for a missing one.)
        api.get(ctxt, volume_id)
        raise exception.InvalidInput(
            reason='There is no such action: %s' % name)
    if (not isinstance(args, dict) or 'bootable' not in args
            or set(args) - {'bootable'}):
        raise exception.ValidationError(
            field='os-set_bootable',
            detail="'bootable' is a required property and the only one")
    api.set_bootable(ctxt, volume_id,
                     _boolean(args['bootable'], 'os-set_bootable.bootable'))
    return webob.Response(status=200)


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
    action = _ACTION_PATH.match(path)
    if action is not None:
        return _action(req, ctxt, action.group('volume'))
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


def _requested_version(req):
    """The microversion the request asked for, as Cinder negotiates it:
    none is 3.0, ``latest`` the maximum; 406 outside 3.0-MAX."""
    header = req.headers.get('OpenStack-API-Version', '')
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != 'volume':
        return '3.0'
    if parts[1] == 'latest':
        return MAX_MICROVERSION

    def key(version):
        major, minor = version.split('.')
        return int(major), int(minor)
    try:
        wanted = key(parts[1])
    except ValueError:
        raise exception.InvalidInput(
            reason='Invalid API version %s' % parts[1])
    if not key('3.0') <= wanted <= key(MAX_MICROVERSION):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Version %s is not supported by the API. Minimum '
                        'is 3.0 and maximum is %s.' % (parts[1],
                                                      MAX_MICROVERSION))
    return '%d.%d' % wanted


@webob.dec.wsgify
def _negotiated(req):
    """_volume_app, its answer naming the microversion it was given (as
    Cinder's, which clients such as Tempest's check)."""
    version = _requested_version(req)
    response = req.get_response(_volume_app)
    response.headers['OpenStack-API-Version'] = 'volume %s' % version
    return response


def volume_app_factory(global_conf, **local_conf):
    """The volume service at /volume (paste app factory)."""
    return _negotiated
