"""Volume snapshots of the embedded volume service (Cinder's
/v3/{project}/snapshots as far as Nova uses them: create_snapshot_force,
get_snapshot, delete_snapshot; create_snapshot, get_all_snapshots for
the os-snapshots proxy; and volumes created from a snapshot).

A snapshot is taken at once (there are no volume bits): it is
``available`` when its create returns. It records the volume's size and
the image the volume came from, which a volume made from it inherits.
A volume with snapshots cannot be deleted (Cinder's 400 "Volume still
has dependent snapshots"), and a snapshot is seen by its project and by
admins only. Snapshots are dicts::

    {'id', 'volume_id', 'name', 'description', 'size', 'status',
     'project_id', 'user_id', 'created_at', 'updated_at', 'image_id'}
"""
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

SNAPSHOTS = models.VolumeSnapshot.__table__
VOLUMES = models.Volume.__table__
AVAILABLE = 'available'
DELETED = 'deleted'
_FIELDS = ('id', 'volume_id', 'name', 'description', 'size', 'status',
           'project_id', 'user_id', 'created_at', 'updated_at', 'image_id')


def _visible(context, row):
    return context.is_admin or row['project_id'] == context.project_id


@ls_db.writer
def create(context, volume_id, name, description, force):
    """A snapshot of volume_id (VolumeNotFound); without force only of
    an available volume (InvalidVolume), as Cinder."""
    session = context.session
    volume = session.execute(sa.select(VOLUMES).where(
        VOLUMES.c.id == volume_id,
        VOLUMES.c.deleted == sa.false())).first()
    if volume is None or not _visible(context, volume._mapping):
        raise exception.VolumeNotFound(volume_id=volume_id)
    if not force and volume.status != 'available':
        raise exception.InvalidVolume(
            reason="Volume %s status must be available, but current status "
                   "is: %s." % (volume_id, volume.status))
    row = {'id': uuidutils.generate_uuid(), 'volume_id': volume_id,
           'name': name, 'description': description, 'size': volume.size,
           'status': AVAILABLE, 'project_id': context.project_id,
           'user_id': context.user_id, 'image_id': volume.image_id,
           'created_at': timeutils.utcnow(), 'deleted': False}
    session.execute(SNAPSHOTS.insert().values(**row))
    return dict({k: row[k] for k in _FIELDS if k in row}, updated_at=None)


@ls_db.reader
def get(context, snapshot_id):
    row = context.session.execute(sa.select(
        *[SNAPSHOTS.c[f] for f in _FIELDS]).where(
        SNAPSHOTS.c.id == snapshot_id,
        SNAPSHOTS.c.deleted == sa.false())).first()
    if row is None or not _visible(context, row._mapping):
        raise exception.SnapshotNotFound(snapshot_id=snapshot_id)
    return dict(row._mapping)


@ls_db.reader
def get_all(context):
    query = sa.select(*[SNAPSHOTS.c[f] for f in _FIELDS]).where(
        SNAPSHOTS.c.deleted == sa.false())
    if not context.is_admin:
        query = query.where(SNAPSHOTS.c.project_id == context.project_id)
    return [dict(row._mapping) for row in context.session.execute(
        query.order_by(SNAPSHOTS.c.created_at.desc(),
                       SNAPSHOTS.c.id.desc()))]


@ls_db.writer
def delete(context, snapshot_id):
    session = context.session
    row = session.execute(sa.select(SNAPSHOTS).where(
        SNAPSHOTS.c.id == snapshot_id,
        SNAPSHOTS.c.deleted == sa.false())).first()
    if row is None or not _visible(context, row._mapping):
        raise exception.SnapshotNotFound(snapshot_id=snapshot_id)
    session.execute(SNAPSHOTS.update().where(
        SNAPSHOTS.c.id == snapshot_id).values(
        status=DELETED, deleted=True, updated_at=timeutils.utcnow()))


def has_snapshots(session, volume_id):
    return session.execute(sa.select(SNAPSHOTS.c.id).where(
        SNAPSHOTS.c.volume_id == volume_id,
        SNAPSHOTS.c.deleted == sa.false()).limit(1)).first() is not None
