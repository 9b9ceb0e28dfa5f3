"""Block device mappings in a cell database, read and written as plain
dicts (one per row; COLUMNS). Every server has them: the image root disk
(source image, destination local, boot index 0) of an image-backed one,
the volumes of a volume-backed one, and every volume attached later.
Soft-deleted with their instance (instances.soft_delete), removed with
it by hard_delete."""
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

BDM = models.BlockDeviceMapping.__table__
COLUMNS = tuple(c.name for c in BDM.columns)


def _rec(row):
    rec = dict(row._mapping)
    rec['deleted'] = bool(rec['deleted'])
    return rec


def _live():
    return BDM.c.deleted == 0


@main_db.writer
def create_many(context, values_list):
    """Insert every mapping of values_list in one transaction; returns
    them as rows, in order."""
    now = timeutils.utcnow()
    session = context.session
    uuids = []
    for values in values_list:
        row = dict(values, created_at=now, deleted=0)
        row.pop('id', None)
        session.execute(BDM.insert().values(**row))
        uuids.append(row['uuid'])
    rows = {r.uuid: _rec(r) for r in session.execute(
        sa.select(BDM).where(BDM.c.uuid.in_(uuids)))}
    return [rows[u] for u in uuids]


@main_db.reader
def get_by_instance(context, instance_uuid):
    """The live mappings of the instance, in boot order (no boot index
    last), then in creation order."""
    return [_rec(r) for r in context.session.execute(
        sa.select(BDM).where(BDM.c.instance_uuid == instance_uuid, _live())
        .order_by(BDM.c.boot_index.is_(None), BDM.c.boot_index, BDM.c.id))]


@main_db.reader
def get_by_volume_and_instance(context, volume_id, instance_uuid):
    row = context.session.execute(sa.select(BDM).where(
        BDM.c.volume_id == volume_id, BDM.c.instance_uuid == instance_uuid,
        _live())).first()
    if row is None:
        raise exception.VolumeNotAttached(volume_id=volume_id)
    return _rec(row)


@main_db.writer
def update(context, bdm_id, values):
    session = context.session
    if not session.execute(BDM.update().where(
            BDM.c.id == bdm_id, _live()).values(
            updated_at=timeutils.utcnow(), **values)).rowcount:
        raise exception.NotFound(
            message='Block device mapping %s could not be found.' % bdm_id)
    return _rec(session.execute(sa.select(BDM).where(
        BDM.c.id == bdm_id)).first())


@main_db.writer
def destroy(context, bdm_id):
    """Soft delete (deleted = id): a volume detached stays on record."""
    context.session.execute(BDM.update().where(
        BDM.c.id == bdm_id, _live()).values(
        deleted=BDM.c.id, deleted_at=timeutils.utcnow()))
