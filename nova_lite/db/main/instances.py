"""Instances in a cell database, read and written as plain dicts.

A *record* is an instance row (COLUMNS) plus what hangs off it:
metadata and system_metadata ({key: value}), flavor (the instance_extra
JSON of its flavor snapshots, {"cur": .., "old": .., "new": ..} as
primitives), migration_context, keypairs, network_info (the info cache,
a list), tags ([str]) and fault (the newest, or None).

Invariants: every write of one instance is one transaction; a listing
reads a page with a constant number of statements whatever its size
(the instance row joined to its 1:1 rows, then one IN query per kind of
related row); hard_delete() removes the instance and every row keyed by
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

COLUMNS = tuple(c.name for c in INST.columns)
EXTRA_COLUMNS = ('flavor', 'migration_context', 'keypairs')
RELATED = ('metadata', 'system_metadata', 'tags', 'fault')
# Columns the API filters by regular expression (administrators, and
# everyone for some from microversion 2.83).
REGEX_FILTERS = ('power_state', 'progress', 'launch_index', 'config_drive',
                 'hostname', 'display_description', 'locked_by',
                 'access_ip_v4', 'access_ip_v6', 'root_device_name',
                 'created_at', 'launched_at', 'terminated_at')
SORT_KEYS = ('access_ip_v4', 'access_ip_v6', 'availability_zone',
             'config_drive', 'created_at', 'display_description',
             'display_name', 'host', 'hostname', 'image_ref',
             'instance_type_id', 'kernel_id', 'key_name', 'launch_index',
             'launched_at', 'locked', 'locked_by', 'node', 'power_state',
             'progress', 'project_id', 'ramdisk_id', 'root_device_name',
             'task_state', 'terminated_at', 'updated_at', 'user_id',
             'uuid', 'vm_state')
UNSET = object()


def _json(value):
    return None if value is None else jsonutils.dumps(value)


def _unjson(value, default=None):
    # The stdlib parser: these columns only ever hold what _json wrote.
    return default if value is None else json.loads(value)


def _select_page():
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


def _records(result, raw=False):
    keys = tuple(result.keys())
    if raw:
        return [dict(zip(keys, row)) for row in result.fetchall()]
    return [decode(dict(zip(keys, row))) for row in result.fetchall()]


def attach_related(session, records, related=RELATED):
    """Fill the related rows of records: one statement per kind (per
    IN_CHUNK records), plain driver SQL (no per-uuid bind processing)."""
    if not records:
        return records
    by_uuid = {r['uuid']: r for r in records}
    uuids = list(by_uuid)
    conn = session.connection()
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


@main_db.reader
def get_record(context, uuid, read_deleted='no', related=RELATED):
    row = context.session.execute(_select_page().where(
        INST.c.uuid == uuid, *_read_deleted_filter(read_deleted))).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return attach_related(context.session, [decode(dict(row._mapping))],
                          related)[0]


@main_db.reader
def get_records(context, uuids, read_deleted='no', related=RELATED):
    """Records of the uuids found in this cell, in no particular order."""
    if not uuids:
        return []
    result = context.session.execute(_select_page().where(
        INST.c.uuid.in_(list(uuids)), *_read_deleted_filter(read_deleted)))
    return attach_related(context.session, _records(result), related)


def _filters(filters):
    """SQL criteria for the filters a listing understands (all optional):
    uuid (list), project_id, user_id, host, node, vm_state (list),
    task_state (list; None matches NULL), image_ref, instance_type_id,
    name (regular expression), the REGEX_FILTERS columns (regular
    expressions), changes_since, changes_before, locked,
    tags / tags_any / not_tags / not_tags_any (lists), deleted
    (True/False; default live only), hidden (default False)."""
    crit = []
    deleted = filters.get('deleted')
    if deleted is None or deleted is False:
        crit.append(INST.c.deleted == 0)
    elif deleted is True:
        crit.append(INST.c.deleted != 0)
    crit.append(INST.c.hidden == sa.sql.expression.literal(
        bool(filters.get('hidden', False))))
    for key in ('project_id', 'user_id', 'host', 'node', 'image_ref',
                'instance_type_id', 'availability_zone', 'key_name',
                'reservation_id'):
        if filters.get(key) is not None:
            crit.append(INST.c[key] == filters[key])
    for key in REGEX_FILTERS:
        if filters.get(key) is not None:
            # As Nova's other filters: a regular expression searched in
            # the column's text.
            crit.append(sa.cast(INST.c[key], sa.String).regexp_match(
                str(filters[key])))
    if filters.get('uuid') is not None:
        crit.append(INST.c.uuid.in_(list(filters['uuid'])))
    if filters.get('vm_state') is not None:
        crit.append(INST.c.vm_state.in_(list(filters['vm_state'])))
    if 'task_state' in filters:
        states = list(filters['task_state'])
        named = [s for s in states if s is not None]
        either = [INST.c.task_state.in_(named)] if named else []
        if None in states:
            either.append(INST.c.task_state.is_(None))
        crit.append(sa.or_(*either))
    if filters.get('name'):
        crit.append(INST.c.display_name.regexp_match(filters['name']))
    if filters.get('locked') is not None:
        crit.append(sa.func.coalesce(INST.c.locked, False)
                    == bool(filters['locked']))
    if filters.get('changes_since') is not None:
        crit.append(INST.c.updated_at >= filters['changes_since'])
    if filters.get('changes_before') is not None:
        crit.append(INST.c.updated_at <= filters['changes_before'])
    if filters.get('ip') or filters.get('ip6'):
        # The info cache holds the fixed IPs as JSON text; a substring of
        # it narrows the rows, the caller checks the pattern exactly.
        crit.append(CACHE.c.network_info.like(
            '%' + (filters.get('ip') or filters.get('ip6')).strip('^$')
            .replace('\\.', '.') + '%'))
    crit.extend(_tag_filters(filters))
    return crit


def _tag_filters(filters):
    crit = []

    def having(tags):
        return (sa.select(TAGS.c.resource_id)
                .where(TAGS.c.tag.in_(tags))
                .group_by(TAGS.c.resource_id)
                .having(sa.func.count(sa.distinct(TAGS.c.tag))
                        == len(set(tags))))

    def anyof(tags):
        return sa.select(TAGS.c.resource_id).where(TAGS.c.tag.in_(tags))

    if filters.get('tags'):
        crit.append(INST.c.uuid.in_(having(filters['tags'])))
    if filters.get('tags_any'):
        crit.append(INST.c.uuid.in_(anyof(filters['tags_any'])))
    if filters.get('not_tags'):
        crit.append(INST.c.uuid.not_in(having(filters['not_tags'])))
    if filters.get('not_tags_any'):
        crit.append(INST.c.uuid.not_in(anyof(filters['not_tags_any'])))
    return crit


def _after(keys, dirs, marker):
    """Keyset condition: rows strictly after marker ({key: value}) in
    the order (keys, dirs). NULLs sort first ascending (as a value
    smaller than any other), on every backend."""
    either = []
    for i, key in enumerate(keys):
        col, value = INST.c[key], marker.get(key)
        same = [(INST.c[k].is_(None) if marker.get(k) is None
                 else INST.c[k] == marker.get(k)) for k in keys[:i]]
        if dirs[i] == 'asc':
            step = (col.is_not(None) if value is None
                    else col > value)
        else:
            if value is None:
                continue
            step = sa.or_(col < value, col.is_(None))
        either.append(sa.and_(*same, step))
    return sa.or_(*either)


# Sort keys never NULL in a row (written by create()): ordered without
# the NULLs-first term, so the (deleted, created_at, id) index can serve
# the default order instead of a sort of the whole cell.
NOT_NULL = frozenset(['created_at', 'uuid', 'id'])


def _order(keys, dirs):
    order = []
    for key, direction in zip(keys, dirs):
        col = INST.c[key]
        if key not in NOT_NULL:
            order.append(col.is_not(None) if direction == 'asc'
                         else col.is_(None))
        order.append(col.asc() if direction == 'asc' else col.desc())
    return order


@main_db.reader
def list_records(context, filters, sort_keys, sort_dirs, limit=None,
                 marker=None, related=RELATED, raw=False):
    """One page of records in (sort_keys, sort_dirs) order, the last key
    being uuid (the tie-breaker across cells); marker: the sort key
    values of the row to start after. A constant number of statements.
    raw: rows as read (JSON text, integer flags; no related rows) for a
    caller that keeps only some of them and decode()s those."""
    query = _select_page().where(*_filters(filters))
    if marker is not None:
        query = query.where(_after(sort_keys, sort_dirs, marker))
    query = query.order_by(*_order(sort_keys, sort_dirs))
    if limit is not None:
        query = query.limit(limit)
    records = _records(context.session.execute(query), raw=raw)
    if raw:
        return records
    return attach_related(context.session, records, related)


# --- writes ---------------------------------------------------------------

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


def _check_states(session, uuid, expected_task_state, expected_vm_state):
    row = session.execute(sa.select(INST.c.task_state, INST.c.vm_state).where(
        INST.c.uuid == uuid, INST.c.deleted == 0)).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    for expected, actual, name in ((expected_task_state, row[0], 'task'),
                                   (expected_vm_state, row[1], 'vm')):
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


@main_db.writer
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
    task_state the row had before this write. Returns the updated
    record."""
    session = context.session
    now = _now()
    # Take the row's write lock first (a no-op update), so the state
    # check and the write see the same row.
    if not session.execute(INST.update().where(
            INST.c.uuid == uuid, INST.c.deleted == 0).values(
                uuid=INST.c.uuid)).rowcount:
        raise exception.InstanceNotFound(instance_id=uuid)
    if expected_task_state is not UNSET or expected_vm_state is not UNSET:
        _check_states(session, uuid, expected_task_state, expected_vm_state)
    if previous is not None:
        previous.update(session.execute(sa.select(
            INST.c.vm_state, INST.c.task_state).where(
                INST.c.uuid == uuid)).one()._asdict())
    session.execute(INST.update().where(INST.c.uuid == uuid).values(
        updated_at=now, **values))
    if extra:
        session.execute(EXTRA.update().where(
            EXTRA.c.instance_uuid == uuid).values(
                updated_at=now, **{k: _json(v) for k, v in extra.items()}))
    if network_info is not UNSET:
        session.execute(CACHE.update().where(
            CACHE.c.instance_uuid == uuid).values(
                updated_at=now, network_info=_json(network_info)))
    if metadata is not None:
        _replace_kv(session, META, uuid, metadata, now)
    if system_metadata is not None:
        _replace_kv(session, SYSMETA, uuid, system_metadata, now)
    if tags is not None:
        session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
        if tags:
            session.execute(TAGS.insert(), [{'resource_id': uuid, 'tag': t}
                                            for t in sorted(set(tags))])
    return get_record(context, uuid)


@main_db.writer
def soft_delete(context, uuid, values=None):
    """Mark the instance deleted (deleted = id) with its 1:1 and
    metadata rows; values: columns to set with it (vm_state, ...)."""
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
    for table in (EXTRA, CACHE, META, SYSMETA):
        session.execute(table.update().where(
            table.c.instance_uuid == uuid, table.c.deleted == 0).values(
                deleted=table.c.id, deleted_at=now))
    session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
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
                  MIGRATIONS):
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
