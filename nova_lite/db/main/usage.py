"""The servers of one cell database that ran in a time window, read for
usage reports (os-simple-tenant-usage).

A server counts when it was launched before the window's end and was
not terminated before its start, deleted or not (a deleted server that
ran in the window is billed for it). Rows come sorted by (project_id,
uuid), the order a report pages in; a hidden row (the other cell's copy
of a cross-cell move) never comes. Every function is one statement
whatever the number of rows.
"""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

INSTANCES = models.Instance.__table__
EXTRA = models.InstanceExtra.__table__

COLUMNS = ('uuid', 'project_id', 'display_name', 'vm_state', 'launched_at',
           'terminated_at', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb')
# The sort of a report: (project_id, uuid), as read.
SORT = (1, 0)


def sort_key(row):
    return (row[1] or '', row[0])


def _in_window(start, end):
    c = INSTANCES.c
    return sa.and_(
        c.launched_at.is_not(None), c.launched_at < end,
        sa.or_(c.terminated_at.is_(None), c.terminated_at > start),
        c.hidden == sa.false())


@main_db.reader
def in_window(context, start, end, project_id=None, limit=None,
              after=None):
    """Rows (COLUMNS, then the instance_extra flavor text) of the
    servers that ran in [start, end) (naive UTC datetimes), sorted by
    (project_id, uuid), after (project_id, uuid) if given, at most
    limit (None: all). One statement."""
    c = INSTANCES.c
    query = sa.select(*[c[name] for name in COLUMNS], EXTRA.c.flavor) \
        .select_from(INSTANCES.outerjoin(
            EXTRA, EXTRA.c.instance_uuid == c.uuid)) \
        .where(_in_window(start, end))
    if project_id is not None:
        query = query.where(c.project_id == project_id)
    if after is not None:
        after_project, after_uuid = after
        query = query.where(sa.or_(
            c.project_id > after_project,
            sa.and_(c.project_id == after_project, c.uuid > after_uuid)))
    query = query.order_by(c.project_id, c.uuid)
    if limit is not None:
        query = query.limit(limit)
    return context.session.execute(query).all()


@main_db.reader
def marker(context, uuid):
    """(project_id, uuid) of server uuid (deleted or not) in this cell,
    or None. One statement."""
    row = context.session.execute(
        sa.select(INSTANCES.c.project_id, INSTANCES.c.uuid).where(
            INSTANCES.c.uuid == uuid)).first()
    return None if row is None else (row[0] or '', row[1])
