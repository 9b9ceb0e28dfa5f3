"""The shares attached to servers (share_mappings) of one cell database.

A mapping is unique per server and share and per server and tag (two
unique keys, so racing attaches of one share give one mapping and one
ShareMappingAlreadyExists). Rows go with their server (instances
soft_delete and hard_delete). Every function is one or two statements.
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

SHARES = models.ShareMapping.__table__
COLUMNS = ('uuid', 'instance_uuid', 'share_id', 'status', 'tag',
           'export_location', 'share_proto', 'created_at', 'updated_at')


def _select():
    return sa.select(*[SHARES.c[name] for name in COLUMNS])


@main_db.reader
def get_by_instance(context, instance_uuid):
    """The server's mappings, oldest first. One statement."""
    return [dict(r._mapping) for r in context.session.execute(
        _select().where(SHARES.c.instance_uuid == instance_uuid).order_by(
            SHARES.c.id))]


@main_db.reader
def get(context, instance_uuid, share_id):
    """The mapping of share_id on the server, or ShareNotFound. One
    statement."""
    row = context.session.execute(_select().where(
        SHARES.c.instance_uuid == instance_uuid,
        SHARES.c.share_id == share_id)).first()
    if row is None:
        raise exception.ShareNotFound(share_id=share_id)
    return dict(row._mapping)


@main_db.writer
def create(context, values):
    """Insert a mapping (values: COLUMNS but the timestamps);
    ShareMappingAlreadyExists when the server has that share or tag."""
    session = context.session
    try:
        session.execute(SHARES.insert().values(
            created_at=timeutils.utcnow(), **values))
        session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ShareMappingAlreadyExists(
            share_id=values['share_id'], tag=values['tag'])


@main_db.writer
def set_status(context, instance_uuid, share_id, status,
               from_statuses=None):
    """Move the mapping to status (only from from_statuses when given);
    whether it moved. One statement."""
    query = SHARES.update().where(SHARES.c.instance_uuid == instance_uuid,
                                  SHARES.c.share_id == share_id)
    if from_statuses:
        query = query.where(SHARES.c.status.in_(list(from_statuses)))
    return bool(context.session.execute(query.values(
        status=status, updated_at=timeutils.utcnow())).rowcount)


@main_db.writer
def delete(context, instance_uuid, share_id):
    """Forget the mapping. One statement."""
    context.session.execute(SHARES.delete().where(
        SHARES.c.instance_uuid == instance_uuid,
        SHARES.c.share_id == share_id))
