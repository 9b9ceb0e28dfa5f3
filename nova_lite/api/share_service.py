"""The embedded shares service as Manila's Shared File Systems API v2
shows it: the minimum a user needs to make a share and attach it to a
server (2.97).

Mounted at /share (catalog type ``shared-file-system``). Serves the
version document, ``GET /v2[/{project_id}]/shares[/detail]`` (filters
name, status), ``GET .../shares/{id}``, ``POST .../shares``
(share_proto, size, name, description, availability_zone; 200 as
Manila), ``DELETE .../shares/{id}`` (202; 400 while it has access
rules, that is while a server uses it), ``GET .../shares/{id}/
export_locations`` and ``GET .../share-access-rules?share_id=`` (the
rules a server attachment granted). The project id in the path is
optional, as from Manila's 2.60. Anything else is a 404; errors are in
the Compute API's fault format.
"""
import re

import jsonschema
import webob
import webob.dec

from nova_lite.api import auth
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite import exception
from nova_lite.share import api as share_api

VERSION = 'v2.0'
MAX_MICROVERSION = '2.84'
_PATH = re.compile(r'^/v2(?:/(?P<project>[^/]+))?/shares'
                   r'(?:/(?P<share>[^/]+))?(?P<exports>/export_locations)?$')
_RULES_PATH = re.compile(r'^/v2(?:/[^/]+)?/share-access-rules$')

CREATE = {
    'type': 'object',
    'properties': {
        'share': {
            'type': 'object',
            'properties': {
                'share_proto': {'type': 'string', 'minLength': 1,
                                'maxLength': 255},
                'size': {'type': ['integer', 'string'],
                         'pattern': '^[0-9]+$', 'minimum': 1},
                'name': {'type': ['string', 'null'], 'maxLength': 255},
                'description': {'type': ['string', 'null'],
                                'maxLength': 255},
                'availability_zone': {'type': ['string', 'null'],
                                      'maxLength': 255},
                'share_type': {'type': ['string', 'null']},
                'metadata': {'type': ['object', 'null']},
                'is_public': {'type': 'boolean'},
            },
            'required': ['share_proto', 'size'],
            'additionalProperties': True,
        },
    },
    'required': ['share'],
    'additionalProperties': False,
}


def _json(body, status=200):
    return wsgi.json_response(body, status,
                              {'X-OpenStack-Manila-API-Version': '2.0'})


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.000000') if value else None


def _links(share, base):
    return [{'rel': 'self', 'href': '%s/v2/shares/%s' % (base, share['id'])},
            {'rel': 'bookmark',
             'href': '%s/shares/%s' % (base, share['id'])}]


def share_summary(share, base):
    return {'id': share['id'], 'name': share['name'],
            'links': _links(share, base)}


def share_body(share, base):
    """A share dict of nova_lite.share.api as Manila v2 shows it."""
    body = {name: share[name] for name in (
        'id', 'name', 'description', 'size', 'share_proto', 'status',
        'availability_zone', 'project_id', 'user_id', 'export_location')}
    body.update({
        'export_locations': [share['export_location']],
        'created_at': _date(share['created_at']),
        'updated_at': _date(share['updated_at']),
        'share_type': None, 'share_type_name': None, 'is_public': False,
        'metadata': {}, 'snapshot_id': None, 'share_network_id': None,
        'share_group_id': None, 'snapshot_support': False,
        'has_replicas': False, 'replication_type': None,
        'task_state': None, 'access_rules_status': 'active',
        'volume_type': None, 'links': _links(share, base)})
    return body


def _rule_body(rule):
    return {'id': rule['id'], 'share_id': rule['share_id'],
            'access_type': rule['access_type'],
            'access_to': rule['access_to'],
            'access_level': rule['access_level'], 'state': rule['state'],
            'access_key': None, 'metadata': {},
            'created_at': _date(rule['created_at']),
            'updated_at': _date(rule['updated_at'])}


def _create(req, ctxt, base):
    body = req.json_body if req.body else None
    try:
        jsonschema.validate(body, CREATE)
    except jsonschema.ValidationError as exc:
        raise exception.ValidationError(
            field='.'.join(str(p) for p in exc.path) or 'share',
            detail=exc.message)
    spec = body['share']
    share = share_api.API().create(
        ctxt, spec['share_proto'], int(spec['size']),
        name=spec.get('name'), description=spec.get('description'),
        availability_zone=spec.get('availability_zone'))
    return _json({'share': share_body(share, base)})


def _list(req, ctxt, base, detail):
    query = req.GET.dict_of_lists()
    shares = share_api.API().get_all(ctxt, {
        'name': validation.last(query, 'name'),
        'status': validation.last(query, 'status')})
    view = share_body if detail else share_summary
    return _json({'shares': [view(s, base) for s in shares]})


def _rules(req, ctxt):
    share_id = validation.last(req.GET.dict_of_lists(), 'share_id')
    if not share_id:
        raise exception.InvalidInput(reason='share_id is required.')
    rules = share_api.API().access_list(ctxt, share_id)
    return _json({'access_list': [_rule_body(r) for r in rules]})


def _versions(base):
    return _json({'versions': [{
        'id': VERSION, 'status': 'CURRENT', 'version': MAX_MICROVERSION,
        'min_version': '2.0', 'updated': '2026-11-28T00:00:00Z',
        'links': [{'rel': 'self', 'href': base + '/v2/'}]}]})


def _share(req, ctxt, base, share_id, exports):
    api = share_api.API()
    if exports:
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        share = api.get(ctxt, share_id)
        return _json({'export_locations': [{
            'id': share['id'], 'share_instance_id': share['id'],
            'path': share['export_location'], 'preferred': True,
            'is_admin_only': False}]})
    if req.method in ('GET', 'HEAD'):
        return _json({'share': share_body(api.get(ctxt, share_id), base)})
    if req.method == 'DELETE':
        api.delete(ctxt, share_id)
        return webob.Response(status=202)
    raise exception.MethodNotAllowed()


@webob.dec.wsgify
def _share_app(req):
    base = req.host_url + req.script_name
    path = req.path_info.rstrip('/')
    if path in ('', '/v2'):
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _versions(base)
    ctxt = req.environ.get(auth.CONTEXT_KEY)
    if ctxt is None:
        raise exception.Unauthorized()
    if _RULES_PATH.match(path):
        if req.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed()
        return _rules(req, ctxt)
    match = _PATH.match(path)
    if match is None:
        raise exception.ResourceNotFound()
    share_id = match.group('share')
    if share_id is not None and share_id != 'detail':
        return _share(req, ctxt, base, share_id, match.group('exports'))
    if match.group('exports'):
        raise exception.ResourceNotFound()
    if req.method == 'POST' and share_id is None:
        return _create(req, ctxt, base)
    if req.method not in ('GET', 'HEAD'):
        raise exception.MethodNotAllowed()
    return _list(req, ctxt, base, detail=share_id == 'detail')


def share_app_factory(global_conf, **local_conf):
    """The shares service at /share (paste app factory)."""
    return _share_app
