"""Copying an instance's rows from one cell database to another (a
cross-cell move: the super conductor holds both).

read_instance() reads, in one transaction of the source cell, the
instance row and every row keyed by its uuid (instance_extra, info
cache, metadata, system metadata, faults, block device mappings, tags),
the migration being made and the instance's earlier migrations (its
history, which os-migrations shows: it moves with the instance, so a
copy left behind and hard-deleted later takes none of it along);
write_instance() inserts them, in one transaction of the target cell,
with new ids. Actions and their events are merged rather than copied
(read_actions / merge_actions): an action is the one of the same
request id, an event the one of the same action, name and start time,
so copying twice adds nothing and later events (and a finish time) are
carried over.
"""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as inst_db
from nova_lite import exception

INST = inst_db.INST
ACTIONS = inst_db.ACTIONS
EVENTS = inst_db.EVENTS
MIGRATIONS = inst_db.MIGRATIONS
TAGS = inst_db.TAGS
# Rows keyed by instance_uuid copied as they are (their ids are new).
KEYED = {'extra': inst_db.EXTRA, 'cache': inst_db.CACHE,
         'metadata': inst_db.META, 'system_metadata': inst_db.SYSMETA,
         'faults': inst_db.FAULTS, 'bdms': inst_db.BDM}


def _rows(session, table, *where):
    return [dict(r._mapping) for r in session.execute(
        sa.select(table).where(*where)).all()]


def _no_id(row):
    return {k: v for k, v in row.items() if k != 'id'}


@main_db.reader
def read_instance(context, uuid, migration_uuid=None):
    """{'instance': row, 'tags': [...], 'shares': [share mapping
    rows...], <KEYED name>: [rows...], 'migration': row or None} of a
    live instance (InstanceNotFound)."""
    session = context.session
    found = _rows(session, INST, INST.c.uuid == uuid, INST.c.deleted == 0)
    if not found:
        raise exception.InstanceNotFound(instance_id=uuid)
    data = {'instance': found[0],
            'tags': _rows(session, TAGS, TAGS.c.resource_id == uuid),
            'shares': _rows(session, inst_db.SHARES,
                            inst_db.SHARES.c.instance_uuid == uuid)}
    for name, table in KEYED.items():
        data[name] = _rows(session, table, table.c.instance_uuid == uuid,
                           table.c.deleted == 0)
    data['migration'] = None
    data['history'] = []
    for row in _rows(session, MIGRATIONS, MIGRATIONS.c.instance_uuid == uuid,
                     MIGRATIONS.c.deleted == 0):
        if row['uuid'] == migration_uuid:
            data['migration'] = row
        else:
            data['history'].append(row)
    if migration_uuid is not None and data['migration'] is None:
        rows = _rows(session, MIGRATIONS, MIGRATIONS.c.uuid == migration_uuid)
        data['migration'] = rows[0] if rows else None
    return data


@main_db.retry_on_deadlock
@main_db.writer
def write_instance(context, data, instance_values=None,
                   migration_values=None):
    """Insert what read_instance() read (instance_values and
    migration_values override columns). Any row of the instance (or of
    the migration) already there is removed first: a copy replaces an
    earlier, abandoned one."""
    session = context.session
    uuid = data['instance']['uuid']
    if _present(session, uuid):
        _delete_rows(session, uuid)
    session.execute(INST.insert().values(
        **dict(_no_id(data['instance']), **(instance_values or {}))))
    for name, table in KEYED.items():
        for row in data[name]:
            session.execute(table.insert().values(**_no_id(row)))
    for row in data['tags']:
        session.execute(TAGS.insert().values(**row))
    for row in data.get('shares', ()):
        session.execute(inst_db.SHARES.insert().values(**_no_id(row)))
    for row in data.get('history', ()):
        session.execute(MIGRATIONS.delete().where(
            MIGRATIONS.c.uuid == row['uuid']))
        session.execute(MIGRATIONS.insert().values(**_no_id(row)))
    migration = data.get('migration')
    if migration is not None:
        session.execute(MIGRATIONS.delete().where(
            MIGRATIONS.c.uuid == migration['uuid']))
        session.execute(MIGRATIONS.insert().values(
            **dict(_no_id(migration), **(migration_values or {}))))


def _present(session, uuid):
    """Whether the cell holds a row of the instance (its rows are written
    and removed in one transaction, so the instance row says it)."""
    return session.execute(sa.select(INST.c.id).where(
        INST.c.uuid == uuid)).first() is not None


def _delete_rows(session, uuid):
    action_ids = sa.select(ACTIONS.c.id).where(
        ACTIONS.c.instance_uuid == uuid).scalar_subquery()
    session.execute(EVENTS.delete().where(EVENTS.c.action_id.in_(
        action_ids)))
    for table in list(KEYED.values()) + [ACTIONS, MIGRATIONS]:
        session.execute(table.delete().where(table.c.instance_uuid == uuid))
    session.execute(TAGS.delete().where(TAGS.c.resource_id == uuid))
    session.execute(inst_db.SHARES.delete().where(
        inst_db.SHARES.c.instance_uuid == uuid))
    session.execute(INST.delete().where(INST.c.uuid == uuid))


@main_db.reader
def read_actions(context, uuid):
    """[(action row, [event rows])] of the instance, oldest first."""
    session = context.session
    actions = _rows(session, ACTIONS, ACTIONS.c.instance_uuid == uuid)
    events = _rows(session, EVENTS, EVENTS.c.action_id.in_(
        [a['id'] for a in actions])) if actions else []
    by_action = {}
    for event in events:
        by_action.setdefault(event['action_id'], []).append(event)
    return [(a, by_action.get(a['id'], []))
            for a in sorted(actions, key=lambda a: a['id'])]


_ACTION_KEEP = ('finish_time', 'message', 'updated_at')
_EVENT_KEEP = ('finish_time', 'result', 'traceback', 'details', 'host',
               'updated_at')


@main_db.retry_on_deadlock
@main_db.writer
def merge_actions(context, uuid, actions):
    """Make the instance's actions here carry actions (read_actions()
    of another cell): missing actions and events are added, the ones
    whose finish (or other kept fields) differ updated. Two reads
    however long the history, and a write only per row that changed."""
    session = context.session
    here = {(a['request_id'], a['action']): a
            for a in _rows(session, ACTIONS, ACTIONS.c.instance_uuid == uuid)}
    known = {(e['action_id'], e['event'], e['start_time']): e
             for e in _rows(session, EVENTS, EVENTS.c.action_id.in_(
                 sa.select(ACTIONS.c.id).where(
                     ACTIONS.c.instance_uuid == uuid)))} if here else {}
    for action, events in actions:
        mine = here.get((action['request_id'], action['action']))
        if mine is None:
            action_id = session.execute(ACTIONS.insert().values(
                **_no_id(action))).inserted_primary_key[0]
        else:
            action_id = mine['id']
            _update_changed(session, ACTIONS, mine, action, _ACTION_KEEP)
        for event in events:
            same = known.get((action_id, event['event'],
                              event['start_time']))
            if same is None:
                session.execute(EVENTS.insert().values(
                    **dict(_no_id(event), action_id=action_id)))
            else:
                _update_changed(session, EVENTS, same, event, _EVENT_KEEP)


def _update_changed(session, table, row, source, keep):
    """Set on row (a row of table) the fields of keep that differ in
    source."""
    changed = {k: source[k] for k in keep if row[k] != source[k]}
    if changed:
        session.execute(table.update().where(
            table.c.id == row['id']).values(**changed))


@main_db.retry_on_deadlock
@main_db.writer
def set_hidden(context, uuid, hidden, migration_uuid=None):
    """Hide or show the instance (and its migration) in this cell."""
    session = context.session
    count = session.execute(INST.update().where(
        INST.c.uuid == uuid, INST.c.deleted == 0).values(
        hidden=hidden)).rowcount
    if migration_uuid is not None:
        session.execute(MIGRATIONS.update().where(
            MIGRATIONS.c.uuid == migration_uuid).values(hidden=hidden))
    return bool(count)


@main_db.retry_on_deadlock
@main_db.writer
def hard_delete(context, uuid):
    """Remove the instance and every row keyed by its uuid here
    (actions, events and migrations included)."""
    _delete_rows(context.session, uuid)


@main_db.reader
def exists(context, uuid):
    """Whether a live instance row of uuid is here (hidden or not)."""
    return context.session.execute(sa.select(INST.c.id).where(
        INST.c.uuid == uuid, INST.c.deleted == 0)).first() is not None


@main_db.reader
def states(context, uuid):
    """(vm_state, task_state) of the live instance row of uuid here, or
    None when there is none."""
    row = context.session.execute(sa.select(
        INST.c.vm_state, INST.c.task_state).where(
        INST.c.uuid == uuid, INST.c.deleted == 0)).first()
    return None if row is None else (row.vm_state, row.task_state)


@main_db.reader
def cross_cell_migrations(context, statuses):
    """The uuids of this cell's cross-cell migrations in statuses."""
    return [r[0] for r in context.session.execute(
        sa.select(MIGRATIONS.c.uuid).where(
            MIGRATIONS.c.cross_cell_move == sa.true(),
            MIGRATIONS.c.deleted == 0,
            MIGRATIONS.c.status.in_(list(statuses)))).all()]
