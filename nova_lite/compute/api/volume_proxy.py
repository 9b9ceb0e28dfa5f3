"""The compute API of the volume proxies below 2.36 (os-volumes,
os-snapshots): the volume service's volumes and snapshots the caller
sees (its project's; every one for an administrator), created and
deleted on its behalf, as Nova calls Cinder. Errors are the volume
service's: VolumeNotFound and SnapshotNotFound (404), InvalidVolume
and InvalidInput (400: a size below 1, an unknown volume type, a
volume with attachments or snapshots deleted, a snapshot without
force of a volume that is not available)."""
from nova_lite.volume import api as volume_api


def _api():
    return volume_api.API()


def _page(items, limit, offset, max_limit):
    limit = max_limit if limit is None else min(limit, max_limit)
    return items[offset:offset + limit]


def list_volumes(context, limit=None, offset=0, max_limit=1000):
    return _page(_api().get_all(context), limit, offset, max_limit)


def get_volume(context, volume_id):
    return _api().get(context, volume_id)


def create_volume(context, size, name=None, description=None,
                  snapshot_id=None, volume_type=None, metadata=None,
                  availability_zone=None):
    if snapshot_id is not None:
        _api().get_snapshot(context, snapshot_id)
    return _api().create(context, size, name, description=description,
                         availability_zone=availability_zone,
                         volume_type=volume_type, snapshot_id=snapshot_id,
                         metadata=metadata)


def delete_volume(context, volume_id):
    _api().delete(context, volume_id)


def list_snapshots(context, limit=None, offset=0, max_limit=1000):
    return _page(_api().get_all_snapshots(context), limit, offset,
                 max_limit)


def get_snapshot(context, snapshot_id):
    return _api().get_snapshot(context, snapshot_id)


def create_snapshot(context, volume_id, name=None, description=None,
                    force=False):
    create = _api().create_snapshot_force if force else \
        _api().create_snapshot
    return create(context, volume_id, name, description)


def delete_snapshot(context, snapshot_id):
    _api().delete_snapshot(context, snapshot_id)
