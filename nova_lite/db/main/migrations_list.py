"""Migration records of one cell database, read for listings.

The read side of the ``migrations`` table (the resize and migrate flows
write it): a page of records newest first, the sort values of a marker,
and the in-progress live migrations of an instance. Rows are returned
as read (tuples in COLUMNS order): a listing merged across cells keeps
a page of them and decodes only those (``decode``).

Invariants: a ``hidden`` record (the other cell's copy of a cross-cell
move) and a deleted one are never returned (a marker's sort values
excepted); every function is one statement whatever the number of
rows.
"""
import datetime

import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

MIGRATIONS = models.Migration.__table__

COLUMNS = ('id', 'uuid', 'source_compute', 'dest_compute', 'source_node',
           'dest_node', 'dest_host', 'old_instance_type_id',
           'new_instance_type_id', 'instance_uuid', 'status',
           'migration_type', 'user_id', 'project_id', 'cross_cell_move',
           'created_at', 'updated_at', 'memory_total', 'memory_processed',
           'memory_remaining', 'disk_total', 'disk_processed',
           'disk_remaining')
# The sort of every listing: newest first, the cell's id then the uuid
# (unique across cells) breaking ties.
SORT_COLUMNS = ('created_at', 'id', 'uuid')
SORT_INDEXES = tuple(COLUMNS.index(c) for c in SORT_COLUMNS)
UUID_INDEX = COLUMNS.index('uuid')
CROSS_CELL_INDEX = COLUMNS.index('cross_cell_move')

LIVE_MIGRATION = 'live-migration'
# Statuses of a live migration that has not ended (as the Compute API
# counts them for /servers/{id}/migrations).
LIVE_IN_PROGRESS = ('queued', 'preparing', 'running', 'post-migrating')

# Equality filters: {filter name: column}.
_EQUAL = {'status': 'status', 'source_compute': 'source_compute',
          'migration_type': 'migration_type',
          'instance_uuid': 'instance_uuid', 'user_id': 'user_id',
          'project_id': 'project_id'}


def decode(row):
    """A row as read -> a record {column: value}."""
    return dict(zip(COLUMNS, row))


_NEVER = datetime.datetime.min


def sort_values(row):
    """(created_at, id, uuid) of a row as read (a record without a
    creation time sorts as the oldest rather than breaking the merge)."""
    return values_key(tuple(row[i] for i in SORT_INDEXES))


def values_key(values):
    """sort_values of (created_at, id, uuid) as marker_values reads
    them."""
    created, row_id, uuid = values
    return (created or _NEVER, row_id, uuid or '')


def _select():
    return sa.select(*[MIGRATIONS.c[c] for c in COLUMNS]).where(
        MIGRATIONS.c.deleted == 0, MIGRATIONS.c.hidden == sa.false())


def _filtered(query, filters):
    """query narrowed by filters: status, source_compute, migration_type,
    instance_uuid, user_id, project_id (equality); host (source or
    destination compute; source_compute is then ignored, as in the
    Compute API); changes_since / changes_before (updated_at, inclusive;
    naive UTC datetimes)."""
    for name, column in _EQUAL.items():
        if name == 'source_compute' and filters.get('host') is not None:
            continue
        if filters.get(name) is not None:
            query = query.where(MIGRATIONS.c[column] == filters[name])
    host = filters.get('host')
    if host is not None:
        query = query.where(sa.or_(MIGRATIONS.c.source_compute == host,
                                   MIGRATIONS.c.dest_compute == host))
    if filters.get('changes_since') is not None:
        query = query.where(
            MIGRATIONS.c.updated_at >= filters['changes_since'])
    if filters.get('changes_before') is not None:
        query = query.where(
            MIGRATIONS.c.updated_at <= filters['changes_before'])
    return query


def _after(values):
    """Rows after (created_at, id, uuid) in the newest-first order."""
    created, row_id, uuid = values
    c = MIGRATIONS.c
    return sa.or_(
        c.created_at < created,
        sa.and_(c.created_at == created, c.id < row_id),
        sa.and_(c.created_at == created, c.id == row_id, c.uuid < uuid))


@main_db.reader
def page(context, filters, limit=None, after=None):
    """Rows (as read) matching filters (see _filtered), newest first
    (created_at, id, uuid descending), at most limit (None: all),
    after: the sort values of the record to start after (the marker:
    no copy of it in this cell is returned either). One statement."""
    query = _filtered(_select(), filters or {})
    if after is not None:
        query = query.where(_after(after), MIGRATIONS.c.uuid != after[2])
    query = query.order_by(*[MIGRATIONS.c[c].desc() for c in SORT_COLUMNS])
    if limit is not None:
        query = query.limit(limit)
    return context.session.execute(query).all()


@main_db.reader
def marker_values(context, uuid):
    """(sort values (created_at, id, uuid), hidden) of the migration
    record uuid (a hidden one too: either copy of a cross-cell move's
    record may be a marker), or None. One statement."""
    row = context.session.execute(
        sa.select(*[MIGRATIONS.c[c] for c in SORT_COLUMNS],
                  MIGRATIONS.c.hidden).where(
            MIGRATIONS.c.uuid == uuid, MIGRATIONS.c.deleted == 0)).first()
    return None if row is None else (tuple(row[:3]), bool(row[3]))


@main_db.reader
def listed_copies(context, uuids, filters=None):
    """The sort values (created_at, id, uuid) of the records of uuids in
    this cell that a listing with filters shows (not hidden, not
    deleted). One statement."""
    query = _filtered(
        sa.select(*[MIGRATIONS.c[c] for c in SORT_COLUMNS]).where(
            MIGRATIONS.c.uuid.in_(uuids), MIGRATIONS.c.deleted == 0,
            MIGRATIONS.c.hidden == sa.false()), filters or {})
    return [tuple(row) for row in context.session.execute(query)]


@main_db.reader
def of_instance(context, instance_uuid, migration_id=None,
                migration_type=None, statuses=None):
    """Records (decoded) of an instance's migrations, oldest first;
    migration_id / migration_type / statuses narrow them. One
    statement."""
    query = _select().where(MIGRATIONS.c.instance_uuid == instance_uuid)
    if migration_id is not None:
        query = query.where(MIGRATIONS.c.id == migration_id)
    if migration_type is not None:
        query = query.where(MIGRATIONS.c.migration_type == migration_type)
    if statuses is not None:
        query = query.where(MIGRATIONS.c.status.in_(list(statuses)))
    query = query.order_by(MIGRATIONS.c.created_at, MIGRATIONS.c.id)
    return [decode(r) for r in context.session.execute(query)]
