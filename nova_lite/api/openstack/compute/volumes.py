"""The volume proxies Nova 34 still serves below 2.36 (404 from 2.36),
answered from the volume service as Nova answers them from Cinder:

- ``GET /os-volumes``, ``GET /os-volumes/detail`` (the same bodies),
  ``GET /os-volumes/{id}``, ``POST /os-volumes`` (200, with a
  ``Location``), ``DELETE /os-volumes/{id}`` (202);
- ``GET /os-snapshots``, ``GET /os-snapshots/detail``,
  ``GET /os-snapshots/{id}``, ``POST /os-snapshots`` (200),
  ``DELETE /os-snapshots/{id}`` (202).

A volume shows Nova's camelCase fields (``displayName``,
``availabilityZone``, ``createdAt``, ``volumeType``, ``snapshotId``,
``metadata``) and ``attachments``: the server it is attached to
(``id``/``volumeId`` the volume, ``serverId``, ``device``), or ``[{}]``
when it is attached to none. Lists take ``limit`` and ``offset``.
"""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import volume_proxy \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import volume_proxy as vp_api
from nova_lite.conf import CONF
from nova_lite.policies import volumes as policies

LAST = av.before(av.QUOTA_NETWORK_REMOVED)


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value else None


def _attachments(volume):
    attached = volume['attachments']
    if not attached:
        return [{}]
    first = attached[0]
    body = {'id': volume['id'], 'volumeId': volume['id'],
            'serverId': first['server_id']}
    if first['device']:
        body['device'] = first['device']
    return [body]


def volume_view(volume):
    return {'id': volume['id'], 'status': volume['status'],
            'size': volume['size'],
            'availabilityZone': volume['availability_zone'],
            'createdAt': _date(volume['created_at']),
            'attachments': _attachments(volume),
            'displayName': volume['name'],
            'displayDescription': volume['description'],
            'volumeType': volume.get('volume_type'),
            'snapshotId': volume.get('snapshot_id'),
            'metadata': volume.get('metadata') or {}}


def snapshot_view(snapshot):
    return {'id': snapshot['id'], 'volumeId': snapshot['volume_id'],
            'status': snapshot['status'], 'size': snapshot['size'],
            'createdAt': _date(snapshot['created_at']),
            'displayName': snapshot['name'],
            'displayDescription': snapshot['description']}


def _paging(query):
    limit = validation.last(query, 'limit')
    return {'limit': None if limit is None else int(limit),
            'offset': int(validation.last(query, 'offset') or 0),
            'max_limit': CONF.api.max_limit}


class VolumesController(object):
    """/os-volumes and /os-volumes/detail"""

    def _list(self, rule, query):
        ctxt = wsgi.authorize(rule, own_project=True)
        return {'volumes': [volume_view(v) for v in vp_api.list_volumes(
            ctxt, **_paging(query))]}

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def index(self, query=None):
        return self._list(policies.LIST, query)

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def detail(self, query=None):
        return self._list(policies.DETAIL, query)

    @wsgi.expose()
    @validation.schema(schemas.create_volume)
    def post(self, body=None):
        ctxt = wsgi.authorize(policies.CREATE, own_project=True)
        spec = body['volume']
        volume = vp_api.create_volume(
            ctxt, int(spec['size']), name=spec.get('display_name'),
            description=spec.get('display_description'),
            snapshot_id=spec.get('snapshot_id'),
            volume_type=spec.get('volume_type'),
            metadata=spec.get('metadata'),
            availability_zone=spec.get('availability_zone'))
        pecan.response.headers['Location'] = '%s/%s' % (
            pecan.request.path_url, volume['id'])
        return {'volume': volume_view(volume)}


class VolumeController(object):
    """/os-volumes/{volume_id}"""

    def __init__(self, volume_id):
        self.volume_id = volume_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SHOW, own_project=True)
        return {'volume': volume_view(vp_api.get_volume(ctxt,
                                                        self.volume_id))}

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(policies.DELETE, own_project=True)
        vp_api.delete_volume(ctxt, self.volume_id)


class SnapshotsController(object):
    """/os-snapshots and /os-snapshots/detail"""

    def _list(self, rule, query):
        ctxt = wsgi.authorize(rule, own_project=True)
        return {'snapshots': [snapshot_view(s) for s in
                              vp_api.list_snapshots(ctxt, **_paging(query))]}

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def index(self, query=None):
        return self._list(policies.SNAPSHOTS_LIST, query)

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def detail(self, query=None):
        return self._list(policies.SNAPSHOTS_DETAIL, query)

    @wsgi.expose()
    @validation.schema(schemas.create_snapshot)
    def post(self, body=None):
        ctxt = wsgi.authorize(policies.SNAPSHOTS_CREATE, own_project=True)
        spec = body['snapshot']
        force = validation.to_bool(spec.get('force', False))
        snapshot = vp_api.create_snapshot(
            ctxt, spec['volume_id'], name=spec.get('display_name'),
            description=spec.get('display_description'), force=force)
        return {'snapshot': snapshot_view(snapshot)}


class SnapshotController(object):
    """/os-snapshots/{snapshot_id}"""

    def __init__(self, snapshot_id):
        self.snapshot_id = snapshot_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SNAPSHOTS_SHOW, own_project=True)
        return {'snapshot': snapshot_view(vp_api.get_snapshot(
            ctxt, self.snapshot_id))}

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(policies.SNAPSHOTS_DELETE, own_project=True)
        vp_api.delete_snapshot(ctxt, self.snapshot_id)
