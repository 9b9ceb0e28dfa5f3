"""/os-assisted-volume-snapshots (administrators; every microversion):
the volume service's file-based drivers ask the hypervisor of the
server a volume is attached to for a snapshot of its file, or to delete
one, as Cinder asks Nova.

- ``POST /os-assisted-volume-snapshots``: ``{"snapshot": {"volume_id",
  "create_info": {"snapshot_id", "type": "qcow2", "new_file", "id"?}}}``
  -> 200 ``{"snapshot": {"id", "volumeId"}}``;
- ``DELETE /os-assisted-volume-snapshots/{snapshot_id}?delete_info=
  {"volume_id": ...}`` -> 204.

400 for a volume no single server has attached, a server without a host
or busy with a task (as Nova answers them), and a missing or malformed
``delete_info``.
"""
from oslo_serialization import jsonutils

from nova_lite.api.openstack.compute.schemas import \
    assisted_volume_snapshots as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import assisted_snapshots
from nova_lite import exception
from nova_lite.policies import assisted_volume_snapshots as policies


class AssistedVolumeSnapshotsController(object):
    """/os-assisted-volume-snapshots"""

    @wsgi.expose()
    @validation.schema(schemas.create)
    def post(self, body=None):
        ctxt = wsgi.authorize(policies.CREATE)
        snapshot = body['snapshot']
        return {'snapshot': assisted_snapshots.create(
            ctxt, snapshot['volume_id'], snapshot['create_info'])}


class AssistedVolumeSnapshotController(object):
    """/os-assisted-volume-snapshots/{snapshot_id}"""

    def __init__(self, snapshot_id):
        self.snapshot_id = snapshot_id

    @wsgi.expose(status=204)
    @validation.query_schema(schemas.delete_query)
    def delete(self, query=None):
        ctxt = wsgi.authorize(policies.DELETE)
        raw = validation.last(query, 'delete_info')
        try:
            delete_info = jsonutils.loads(raw)
            volume_id = delete_info['volume_id']
        except (TypeError, ValueError, KeyError):
            raise exception.Invalid(
                reason='delete_info must be a JSON object naming '
                       'volume_id')
        if not isinstance(volume_id, str) or not volume_id:
            raise exception.Invalid(
                reason='delete_info must be a JSON object naming '
                       'volume_id')
        assisted_snapshots.delete(ctxt, volume_id, self.snapshot_id,
                                  delete_info)
