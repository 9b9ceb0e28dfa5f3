"""What the API database knows of servers, read for listings: instance
mappings, build requests (servers not yet in a cell) and request specs,
as plain rows. One statement per call, whatever the number of rows.
"""
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models

IM = models.InstanceMapping.__table__
CM = models.CellMapping.__table__
BR = models.BuildRequest.__table__
RS = models.RequestSpec.__table__


@api_db.reader
def get_mapping(context, instance_uuid):
    """{instance_uuid, project_id, user_id, created_at, queued_for_delete,
    cell_uuid (None before scheduling)} or None."""
    row = context.session.execute(
        sa.select(IM.c.instance_uuid, IM.c.project_id, IM.c.user_id,
                  IM.c.created_at, IM.c.queued_for_delete,
                  CM.c.uuid.label('cell_uuid'))
        .select_from(IM.outerjoin(CM, CM.c.id == IM.c.cell_id))
        .where(IM.c.instance_uuid == instance_uuid)).first()
    return None if row is None else dict(row._mapping)


@api_db.reader
def build_requests(context, project_id=None, uuids=None, newest=None,
                   before=None):
    """Rows (instance_uuid, project_id, user_id, created_at, instance,
    tags) of the build requests of project_id (every project if None).
    newest: only that many, newest first (created_at, then
    instance_uuid, descending) -- a list in the default order reads no
    more than its page however many servers are being built; before:
    (created_at, instance_uuid) of the marker to start after."""
    query = sa.select(BR.c.instance_uuid, BR.c.project_id, BR.c.user_id,
                      BR.c.created_at, BR.c.instance, BR.c.tags)
    if project_id is not None:
        query = query.where(BR.c.project_id == project_id)
    if uuids is not None:
        query = query.where(BR.c.instance_uuid.in_(list(uuids)))
    if newest is not None:
        if before is not None:
            created, uuid = before
            query = query.where(sa.or_(
                BR.c.created_at < created,
                sa.and_(BR.c.created_at == created,
                        BR.c.instance_uuid < uuid)))
        query = query.order_by(BR.c.created_at.desc(),
                               BR.c.instance_uuid.desc()).limit(newest)
    return [dict(r._mapping) for r in context.session.execute(query)]


@api_db.writer
def update_build_request(context, instance_uuid, instance_json):
    """Replace a build request's instance; False if it is gone."""
    return bool(context.session.execute(
        BR.update().where(BR.c.instance_uuid == instance_uuid)
        .values(instance=instance_json)).rowcount)


@api_db.reader
def request_spec(context, instance_uuid):
    """The request spec's JSON of an instance, or None."""
    return context.session.execute(sa.select(RS.c.spec).where(
        RS.c.instance_uuid == instance_uuid)).scalar()


@api_db.reader
def request_specs(context, instance_uuids):
    """{instance_uuid: request spec JSON} of instance_uuids, in one
    query."""
    if not instance_uuids:
        return {}
    return dict(context.session.execute(
        sa.select(RS.c.instance_uuid, RS.c.spec).where(
            RS.c.instance_uuid.in_(sorted(set(instance_uuids))))).all())


@api_db.reader
def mappings_in_cells(context, cell_uuids, project_id=None, limit=None,
                      after=None):
    """Instance mappings (as get_mapping) of live servers mapped to
    cell_uuids, ordered by (created_at, instance_uuid); after: the
    (created_at, instance_uuid) to start after."""
    query = (sa.select(IM.c.instance_uuid, IM.c.project_id, IM.c.user_id,
                       IM.c.created_at, IM.c.queued_for_delete,
                       CM.c.uuid.label('cell_uuid'))
             .select_from(IM.join(CM, CM.c.id == IM.c.cell_id))
             .where(CM.c.uuid.in_(list(cell_uuids)),
                    sa.func.coalesce(IM.c.queued_for_delete,
                                     sa.false()) == sa.false()))
    if project_id is not None:
        query = query.where(IM.c.project_id == project_id)
    if after is not None:
        created, uuid = after
        query = query.where(sa.or_(
            IM.c.created_at > created,
            sa.and_(IM.c.created_at == created, IM.c.instance_uuid > uuid)))
    query = query.order_by(IM.c.created_at, IM.c.instance_uuid)
    if limit is not None:
        query = query.limit(limit)
    return [dict(r._mapping) for r in context.session.execute(query)]
