"""Instances in a cell database, read and written as plain dicts.

A *record* is an instance row (COLUMNS) plus what hangs off it:
metadata and system_metadata ({key: value}), flavor (the instance_extra
JSON of its flavor snapshots, {"cur": .., "old": .., "new": ..} as
primitives), migration_context, keypairs, network_info (the info cache,
a list), tags ([str]) and fault (the newest, or None).

Invariants: every write of one instance is one transaction; a listing
reads a page with a constant number of statements whatever its size
(the instance row joined to its 1:1 rows, then one IN query per kind of
related row; instance_pages.py pages and filters listings);
hard_delete() removes the instance and every row keyed by
its uuid, in one transaction.
"""
import json

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import driver_sql
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

INST = models.Instance.__table__
EXTRA = models.InstanceExtra.__table__
CACHE = models.InstanceInfoCache.__table__
META = models.InstanceMetadata.__table__
SYSMETA = models.InstanceSystemMetadata.__table__
TAGS = models.Tag.__table__
FAULTS = models.InstanceFault.__table__
ACTIONS = models.InstanceAction.__table__
EVENTS = models.InstanceActionEvent.__table__
BDM = models.BlockDeviceMapping.__table__
MIGRATIONS = models.Migration.__table__
SHARES = models.ShareMapping.__table__

COLUMNS = tuple(c.name for c in INST.columns)
EXTRA_COLUMNS = ('flavor', 'migration_context', 'keypairs')
RELATED = ('metadata', 'system_metadata', 'tags', 'fault')
UNSET = object()


def _json(value):
    return None if value is None else jsonutils.dumps(value)


def _unjson(value, default=None):
    # The stdlib parser: these columns only ever hold what _json wrote.
    return default if value is None else json.loads(value)


def select_page():
    """Instance columns with the 1:1 instance_extra and info cache.

    Those rows are soft deleted with their instance; a deleted instance
    (listed with changes-since, or deleted=true) still shows its own
    flavor copy and addresses, so the join takes them live or deleted
    alike (there is one per instance: instance_uuid is unique)."""
    return (sa.select(*INST.columns,
                      *[EXTRA.c[c] for c in EXTRA_COLUMNS],
                      CACHE.c.network_info)
            .select_from(INST.outerjoin(
                EXTRA, EXTRA.c.instance_uuid == INST.c.uuid)
                .outerjoin(CACHE, CACHE.c.instance_uuid == INST.c.uuid)))


def decode(rec):
    """A raw record (list_records(raw=True)) as every other reader gets
    it: booleans, and the JSON columns parsed. Returns rec."""
    rec['deleted'] = bool(rec['deleted'])
    rec['locked'] = bool(rec['locked'])
    rec['hidden'] = bool(rec['hidden'])
    rec['flavor'] = _unjson(rec['flavor'], {})
    rec['migration_context'] = _unjson(rec['migration_context'])
    keypairs = rec['keypairs']
    rec['keypairs'] = [] if keypairs in (None, '[]') else json.loads(keypairs)
    info = rec['network_info']
    rec['network_info'] = [] if info in (None, '[]') else json.loads(info)
    return rec


def records(result, raw=False, rows=None):
    keys = tuple(result.keys())
    rows = result.fetchall() if rows is None else rows
    if raw:
        return [dict(zip(keys, row)) for row in rows]
    return [decode(dict(zip(keys, row))) for row in rows]


def attach_related(session, records, related=RELATED):
    """Fill the related rows of records: one statement per kind (per
    IN_CHUNK records), plain driver SQL (no per-uuid bind processing).
    session: an ORM session or a Core connection."""
    if not records:
        return records
    by_uuid = {r['uuid']: r for r in records}
    uuids = list(by_uuid)
    conn = (session if isinstance(session, sa.engine.Connection)
            else session.connection())
    sql = driver_sql.Sql(conn.dialect)
    # metadata, system metadata and tags in ONE statement (a UNION ALL,
    # kind first), per IN_CHUNK records.
    kinds = [(kind, name) for kind, name in enumerate(
        ('metadata', 'system_metadata', 'tags')) if name in related]
    for _, name in kinds:
        for rec in records:
            rec[name] = [] if name == 'tags' else {}
    if kinds:
        selects = {
            0: 'SELECT 0, instance_uuid, %s, value FROM instance_metadata '
               'WHERE deleted = 0 AND instance_uuid IN (%%(marks)s)',
            1: 'SELECT 1, instance_uuid, %s, value FROM '
               'instance_system_metadata WHERE deleted = 0 AND '
               'instance_uuid IN (%%(marks)s)',
            2: 'SELECT 2, resource_id, tag, NULL FROM tags WHERE '
               'resource_id IN (%%(marks)s)'}
        text = ' UNION ALL '.join(
            selects[kind] % ((sql.quote('key'),) if kind < 2 else ())
            for kind, _ in kinds)
        names = dict(kinds)
        for part in driver_sql.chunks(uuids):
            for kind, uuid, key, value in driver_sql.fetch(
                    conn, text % {'marks': sql.marks(len(part))},
                    list(part) * len(kinds)):
                if kind == 2:
                    by_uuid[uuid]['tags'].append(key)
                else:
                    by_uuid[uuid][names[kind]][key] = value
        if 'tags' in related:
            for rec in records:
                rec['tags'].sort()
    if 'fault' in related:
        for rec in records:
            rec['fault'] = None
        # Only instances in ERROR show a fault: look those up only.
        faulty = [r['uuid'] for r in records if r['vm_state'] == 'error']
        if faulty:
            for uuid, code, message, details, host, created in \
                    session.execute(
                        sa.select(FAULTS.c.instance_uuid, FAULTS.c.code,
                                  FAULTS.c.message, FAULTS.c.details,
                                  FAULTS.c.host, FAULTS.c.created_at)
                        .where(FAULTS.c.instance_uuid.in_(faulty),
                               FAULTS.c.deleted == 0)
                        .order_by(FAULTS.c.created_at, FAULTS.c.id)):
                # Ascending order: the newest is written last.
                by_uuid[uuid]['fault'] = {
                    'code': code, 'message': message, 'details': details,
                    'host': host, 'created_at': created}
    return records


def _read_deleted_filter(read_deleted):
    if read_deleted == 'yes':
        return []
    if read_deleted == 'only':
        return [INST.c.deleted != 0]
    return [INST.c.deleted == 0]


# Statements run once or more per server action, built once with bound
# parameters: building a statement and computing its cache key costs
# SQLAlchemy several times what running the cached one does.
_RECORD_BY_UUID = {}


def _record_by_uuid(read_deleted):
    stmt = _RECORD_BY_UUID.get(read_deleted)
    if stmt is None:
        stmt = _RECORD_BY_UUID[read_deleted] = select_page().where(
            INST.c.uuid == sa.bindparam('uuid'),
            *_read_deleted_filter(read_deleted))
    return stmt


_ROW_FOR_UPDATE = sa.select(*INST.columns).where(
    INST.c.uuid == sa.bindparam('uuid'),
    INST.c.deleted == 0).with_for_update()
# Executed with {'row_id': id, column: value, ...}: the columns given
# are the ones set.
_UPDATE_ROW = INST.update().where(INST.c.id == sa.bindparam('row_id'))
# The same for an instance's instance_extra and info cache rows, with
# {'of_uuid': its uuid, column: value, ...}.
_UPDATE_EXTRA = EXTRA.update().where(
    EXTRA.c.instance_uuid == sa.bindparam('of_uuid'))
_UPDATE_CACHE = CACHE.update().where(
    CACHE.c.instance_uuid == sa.bindparam('of_uuid'))


@main_db.connection_reader
def get_record(context, uuid, read_deleted='no', related=RELATED):
    row = context.connection.execute(_record_by_uuid(read_deleted),
                                     {'uuid': uuid}).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return attach_related(context.connection,
                          [decode(dict(row._mapping))], related)[0]


@main_db.reader
def get_records(context, uuids, read_deleted='no', related=RELATED):
    """Records of the uuids found in this cell, in no particular order."""
    if not uuids:
        return []
    result = context.session.execute(select_page().where(
        INST.c.uuid.in_(list(uuids)), *_read_deleted_filter(read_deleted)))
    return attach_related(context.session, records(result), related)


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


@main_db.writer
def create(context, values, flavor=None, network_info=None, metadata=None,
           system_metadata=None, tags=None, keypairs=None):
    """Insert an instance (values: instance columns, uuid included) and
    its related rows; returns its record."""
    session = context.session
    now = _now()
    values = dict(values, created_at=values.get('created_at') or now,
                  deleted=0)
    values.setdefault('hidden', False)
    uuid = values['uuid']
    session.execute(INST.insert().values(**values))
    session.execute(EXTRA.insert().values(
        instance_uuid=uuid, created_at=now, deleted=0,
        flavor=_json(flavor or {}), keypairs=_json(keypairs or [])))
    session.execute(CACHE.insert().values(
        instance_uuid=uuid, created_at=now, deleted=0,
        network_info=_json(network_info or [])))
    for table, data in ((META, metadata), (SYSMETA, system_metadata)):
        if data:
            session.execute(table.insert(), [
                {'instance_uuid': uuid, 'key': k, 'value': v,
                 'created_at': now, 'deleted': 0}
                for k, v in data.items()])
    if tags:
        session.execute(TAGS.insert(), [{'resource_id': uuid, 'tag': t}
                                        for t in sorted(set(tags))])
    return get_record(context, uuid)


def _check_states(row, uuid, expected_task_state, expected_vm_state):
    """Raise unless the row (its task_state and vm_state) is in the
    expected states (UNSET: any)."""
    for expected, actual, name in (
            (expected_task_state, row['task_state'], 'task'),
            (expected_vm_state, row['vm_state'], 'vm')):
        if expected is UNSET:
            continue
        allowed = (list(expected) if isinstance(expected, (list, tuple,
                                                          set))
                   else [expected])
        if actual not in allowed:
            if name == 'task' and actual == 'deleting':
                raise exception.UnexpectedDeletingTaskStateError(
                    instance_uuid=uuid, expected=allowed, actual=actual)
            if name == 'task':
                raise exception.UnexpectedTaskStateError(
                    instance_uuid=uuid, expected=allowed, actual=actual)
            raise exception.InstanceInvalidState(
                action='update', instance_uuid=uuid, attr='vm_state',
                state=actual)


def _replace_kv(session, table, uuid, data, now):
    current = dict(session.execute(
        sa.select(table.c.key, table.c.value).where(
            table.c.instance_uuid == uuid, table.c.deleted == 0)).all())
    gone = [k for k in current if k not in data]
    if gone:
        session.execute(table.delete().where(
            table.c.instance_uuid == uuid, table.c.key.in_(gone)))
    for key, value in data.items():
        if key not in current:
            session.execute(table.insert().values(
                instance_uuid=uuid, key=key, value=value, created_at=now,
                deleted=0))
        elif current[key] != value:
            session.execute(table.update().where(
                table.c.instance_uuid == uuid, table.c.key == key,
                table.c.deleted == 0).values(value=value, updated_at=now))


@main_db.connection_writer
def update(context, uuid, values, expected_task_state=UNSET,
           expected_vm_state=UNSET, extra=None, network_info=UNSET,
           metadata=None, system_metadata=None, tags=None, previous=None):
    """Update an instance and its related rows in one transaction.

    expected_task_state / expected_vm_state (a state or a list): the
    update happens only if the instance is in one of them, checked
    under the row's write lock, else UnexpectedTaskStateError (or its
    Deleting subclass) / InstanceInvalidState and nothing is written.
    extra: instance_extra columns (flavor, migration_context, keypairs)
    as Python values. previous (a dict): filled with the vm_state and
    task_state the row had before this write. Returns the instances
    row as written (its columns only: the related rows are what the
    caller passed); two statements for a write of columns alone."""
    session = context.connection
    now = _now()
    # The row under its write lock (SELECT ... FOR UPDATE; SQLite's
    # writer holds the database's), so the state check and the write
    # see the same row.
    row = session.execute(_ROW_FOR_UPDATE, {'uuid': uuid}).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    rec = dict(row._mapping)
    _check_states(rec, uuid, expected_task_state, expected_vm_state)
    if previous is not None:
        previous.update(vm_state=rec['vm_state'],
                        task_state=rec['task_state'])
    session.execute(_UPDATE_ROW, dict(values, updated_at=now,
                                      row_id=rec['id']))
    rec.update(values, updated_at=now)
    for name in ('deleted', 'locked', 'hidden'):
        rec[name] = bool(rec[name])
    if extra:
        session.execute(_UPDATE_EXTRA, dict(
            {k: _json(v) for k, v in extra.items()}, of_uuid=uuid,
            updated_at=now))
    if network_info is not UNSET:
        session.execute(_UPDATE_CACHE, {
            'of_uuid': uuid, 'updated_at': now,
            'network_info': _json(network_info)})
    if metadata is not None:
        _replace_kv(session, META, uuid, metadata, now)
    if system_metadata is not None:
        _replace_kv(session, SYSMETA, uuid, system_metadata, now)
    if tags is not None:
        session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
        if tags:
            session.execute(TAGS.insert(), [{'resource_id': uuid, 'tag': t}
                                            for t in sorted(set(tags))])
    return rec


@main_db.writer
def soft_delete(context, uuid, values=None):
    """Mark the instance deleted (deleted = id) with its 1:1,
    metadata and block device mapping rows, and forget its share
    mappings; values: columns to set with it (vm_state, ...)."""
    session = context.session
    now = _now()
    row_id = session.execute(sa.select(INST.c.id).where(
        INST.c.uuid == uuid, INST.c.deleted == 0)).scalar()
    if row_id is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    session.execute(INST.update().where(INST.c.id == row_id).values(
        deleted=row_id, deleted_at=now, updated_at=now,
        terminated_at=sa.func.coalesce(INST.c.terminated_at, now),
        **(values or {})))
    for table in (EXTRA, CACHE, META, SYSMETA, BDM):
        session.execute(table.update().where(
            table.c.instance_uuid == uuid, table.c.deleted == 0).values(
                deleted=table.c.id, deleted_at=now))
    session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
    session.execute(SHARES.delete().where(SHARES.c.instance_uuid == uuid))
    return get_record(context, uuid, read_deleted='yes')


@main_db.writer
def hard_delete(context, uuid):
    """Remove the instance and every row keyed by its uuid (deleted or
    not), in one transaction. Returns whether there was an instance."""
    session = context.session
    action_ids = sa.select(ACTIONS.c.id).where(
        ACTIONS.c.instance_uuid == uuid).scalar_subquery()
    session.execute(EVENTS.delete().where(EVENTS.c.action_id.in_(
        action_ids)))
    for table in (ACTIONS, EXTRA, CACHE, META, SYSMETA, FAULTS, BDM,
                  MIGRATIONS, SHARES):
        session.execute(table.delete().where(
            table.c.instance_uuid == uuid))
    session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
    return bool(session.execute(INST.delete().where(
        INST.c.uuid == uuid)).rowcount)


@main_db.writer
def add_fault(context, uuid, code, message, details=None, host=None):
    context.session.execute(FAULTS.insert().values(
        instance_uuid=uuid, code=code, message=(message or '')[:255],
        details=details, host=host, created_at=_now(), deleted=0))


@main_db.reader
def fill_related(context, records, related=RELATED):
    """attach_related in a read transaction of its own: a listing reads
    its pages without related rows, merges them across cells, then
    fills only the records that made the page."""
    return attach_related(context.session, records, related)
