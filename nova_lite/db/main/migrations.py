"""The write side of a cell's migrations table (resize and cold
migration records), as plain dicts. The read queries of GET
/os-migrations live in migrations_list.py.

A migration record is created by the super conductor in the instance's
cell (status pre-migrating) and moved on by the computes through their
cell conductor. Its uuid is also the placement consumer that holds the
source host's allocation for the length of the move.
"""
import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import instance_lock
from nova_lite.db.main import models
from nova_lite import exception

MIGRATIONS = models.Migration.__table__

COLUMNS = ('id', 'uuid', 'source_compute', 'dest_compute', 'source_node',
           'dest_node', 'dest_host', 'old_instance_type_id',
           'new_instance_type_id', 'instance_uuid', 'status',
           'migration_type', 'hidden', 'cross_cell_move', 'user_id',
           'project_id', 'created_at', 'updated_at', 'deleted_at',
           'deleted', 'memory_total', 'memory_processed',
           'memory_remaining', 'disk_total', 'disk_processed',
           'disk_remaining')
_WRITABLE = frozenset(COLUMNS) - {'id', 'created_at', 'updated_at',
                                  'deleted_at', 'deleted'}


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


def _select():
    return sa.select(*[MIGRATIONS.c[c] for c in COLUMNS])


def _record(row):
    rec = dict(zip(COLUMNS, row))
    rec['deleted'] = bool(rec['deleted'])
    return rec


def _get(session, where, missing):
    row = session.execute(_select().where(where)).first()
    if row is None:
        raise missing
    return _record(row)


# What every step of a move runs, built once with bound parameters
# (building a statement costs SQLAlchemy more than running it).
_BY_ID = _select().where(MIGRATIONS.c.id == sa.bindparam('migration_id'))
# Executed with {'migration_id': .., column: value, ...} (and 'expected',
# a list, for the second): the columns given are the ones set.
_UPDATE = MIGRATIONS.update().where(
    MIGRATIONS.c.id == sa.bindparam('migration_id'))
_UPDATE_IF_STATUS = _UPDATE.where(
    MIGRATIONS.c.status.in_(sa.bindparam('expected', expanding=True)))


def _get_by_id(connection, migration_id):
    row = connection.execute(_BY_ID, {'migration_id': migration_id}).first()
    if row is None:
        raise exception.MigrationNotFound(migration_id=migration_id)
    return _record(row)


@main_db.writer
def create(context, values):
    """Insert a migration of a live instance; returns it. Holds the
    instance row's write lock while it inserts, so a migration is never
    recorded for an instance deleted before (InstanceNotFound) and a
    delete coming after waits for it."""
    values = {k: v for k, v in values.items() if k in _WRITABLE}
    instance_lock.lock_row(context.session, values['instance_uuid'])
    now = _now()
    new_id = context.session.execute(MIGRATIONS.insert().values(
        created_at=now, updated_at=now, deleted=0, **values)
    ).inserted_primary_key[0]
    return _get(context.session, MIGRATIONS.c.id == new_id,
                exception.MigrationNotFound(migration_id=new_id))


@main_db.connection_writer
def update(context, migration_id, values, expected_status=None):
    """Write values on the migration; with expected_status (a list) only
    while its status is one of them (MigrationStatusConflict otherwise,
    nothing written). Returns it."""
    params = {k: v for k, v in values.items() if k in _WRITABLE}
    params.update(updated_at=_now(), migration_id=migration_id)
    if expected_status is None:
        stmt = _UPDATE
    else:
        stmt = _UPDATE_IF_STATUS
        params['expected'] = list(expected_status)
    conn = context.connection
    if not conn.execute(stmt, params).rowcount:
        current = _get_by_id(conn, migration_id)
        raise exception.MigrationStatusConflict(
            migration_id=migration_id, expected=expected_status,
            actual=current['status'])
    return _get_by_id(conn, migration_id)


@main_db.connection_reader
def get_by_id(context, migration_id):
    return _get_by_id(context.connection, migration_id)


@main_db.reader
def get_by_uuid(context, uuid):
    return _get(context.session, MIGRATIONS.c.uuid == uuid,
                exception.MigrationNotFound(migration_id=uuid))


@main_db.reader
def get_in_progress_by_instance(context, instance_uuid, statuses):
    """The newest migration of the instance in one of statuses, or
    MigrationNotFoundByStatus."""
    row = context.session.execute(
        _select().where(MIGRATIONS.c.instance_uuid == instance_uuid,
                        MIGRATIONS.c.deleted == 0,
                        MIGRATIONS.c.status.in_(list(statuses)))
        .order_by(MIGRATIONS.c.id.desc()).limit(1)).first()
    if row is None:
        raise exception.MigrationNotFoundByStatus(
            instance_id=instance_uuid, status=', '.join(statuses))
    return _record(row)


@main_db.reader
def get_unconfirmed_by_age(context, status, older_than_seconds, limit=None):
    """Resizes (and migrations) in status, not updated for
    older_than_seconds, oldest first: auto-confirm's work in this cell.
    One query."""
    cutoff = _now() - datetime.timedelta(seconds=older_than_seconds)
    query = (_select().where(MIGRATIONS.c.deleted == 0,
                             MIGRATIONS.c.status == status,
                             MIGRATIONS.c.updated_at <= cutoff)
             .order_by(MIGRATIONS.c.updated_at, MIGRATIONS.c.id))
    if limit:
        query = query.limit(limit)
    return [_record(r) for r in context.session.execute(query)]


@main_db.reader
def get_by_host_and_status(context, host, statuses):
    """This cell's migrations in one of statuses with host as source or
    destination: what a compute restarted mid-move looks at. One
    query (indexed on each side)."""
    query = _select().where(
        MIGRATIONS.c.deleted == 0,
        MIGRATIONS.c.status.in_(list(statuses)),
        sa.or_(MIGRATIONS.c.source_compute == host,
               MIGRATIONS.c.dest_compute == host)).order_by(MIGRATIONS.c.id)
    return [_record(r) for r in context.session.execute(query)]
