"""The quota tables of the API database (limits per project, per user of
a project and per quota class; a lock row per project) and the one read
a boot's quota check makes there.

A boot's check adds two statements to the transaction that writes its
build requests: lock() (an upsert of the project's lock row: the row's
write lock is held until the transaction ends, so two boots of a project
check one after the other, each seeing what the other wrote) and
check_rows() (the project's limits and the servers it has not yet put
in a cell -- and, counting from placement, its instance mappings and
allocations; counting from the cells, how many of its servers went into
a cell since the cells were counted -- in one UNION ALL).
"""
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models

Q = models.Quota.__table__
PUQ = models.ProjectUserQuota.__table__
QC = models.QuotaClass.__table__
LOCK = models.QuotaLock.__table__
BR = models.BuildRequest.__table__
IM = models.InstanceMapping.__table__
KP = models.KeyPair.__table__
ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
RC = models.ResourceClass.__table__
RS = models.RequestSpec.__table__
GROUPS = models.InstanceGroup.__table__

_INSERTS = {'mysql': mysql.insert, 'postgresql': postgresql.insert,
            'sqlite': sqlite.insert}


# --- limits ------------------------------------------------------------

@api_db.reader
def class_limits(context, class_name):
    rows = context.session.execute(sa.select(QC.c.resource, QC.c.hard_limit)
                                   .where(QC.c.class_name == class_name))
    return {r.resource: r.hard_limit for r in rows}


@api_db.reader
def project_limits(context, project_id, user_id=None):
    """({resource: limit} of the project, {resource: limit} of the user
    in it (empty without user_id), {resource: limit} of class default)."""
    rows = context.session.execute(sa.union_all(*_limit_rows(project_id,
                                                             user_id)))
    return _split_limits(rows)


def _limit_rows(project_id, user_id):
    """The UNION ALL parts of the limits (kinds p, c and, with user_id,
    u): project_id and user_id are values or bind parameters."""
    def kind(k):
        return sa.literal_column("'%s'" % k, sa.String).label('kind')

    parts = [
        sa.select(kind('p'), Q.c.resource.label('name'),
                  Q.c.hard_limit.label('a'),
                  sa.literal_column('0', sa.Integer).label('b'),
                  sa.literal_column("''", sa.String).label('owner'))
        .where(Q.c.project_id == project_id),
        sa.select(kind('c'), QC.c.resource, QC.c.hard_limit,
                  sa.literal_column('0', sa.Integer),
                  sa.literal_column("''", sa.String))
        .where(QC.c.class_name == 'default'),
    ]
    if user_id is not None:
        parts.append(
            sa.select(kind('u'), PUQ.c.resource, PUQ.c.hard_limit,
                      sa.literal_column('0', sa.Integer),
                      sa.literal_column("''", sa.String))
            .where(PUQ.c.project_id == project_id,
                   PUQ.c.user_id == user_id))
    return parts


def _split_limits(rows):
    out = {'p': {}, 'u': {}, 'c': {}}
    for row in rows:
        out[row.kind][row.name] = row.a
    return out['p'], out['u'], out['c']


@api_db.writer
def set_project_limits(context, project_id, limits, user_id=None):
    """Create or update the project's (or its user's) limits."""
    _upsert(context, PUQ if user_id else Q, limits,
            {'project_id': project_id,
             **({'user_id': user_id} if user_id else {})})


@api_db.writer
def set_class_limits(context, class_name, limits):
    _upsert(context, QC, limits, {'class_name': class_name})


def _upsert(context, table, limits, keys):
    session = context.session
    where = [table.c[k] == v for k, v in keys.items()]
    existing = {r.resource for r in session.execute(
        sa.select(table.c.resource).where(*where))}
    now = sa.func.now()
    for resource, limit in limits.items():
        if resource in existing:
            session.execute(table.update().where(
                *where, table.c.resource == resource).values(
                hard_limit=limit, updated_at=now))
        else:
            session.execute(table.insert().values(
                resource=resource, hard_limit=limit, created_at=now,
                **keys))


@api_db.writer
def delete_project_limits(context, project_id, user_id=None):
    """Back to the defaults: the project's and all its users' limits
    (with user_id: that user's only)."""
    session = context.session
    if user_id is None:
        session.execute(Q.delete().where(Q.c.project_id == project_id))
        session.execute(PUQ.delete().where(PUQ.c.project_id == project_id))
    else:
        session.execute(PUQ.delete().where(PUQ.c.project_id == project_id,
                                           PUQ.c.user_id == user_id))


@api_db.reader
def user_limit_sums(context, project_id, exclude_user=None):
    """{resource: sum of the limits set for the project's users (other
    than exclude_user)} -- a project's limit may not go below them."""
    query = sa.select(PUQ.c.resource, sa.func.sum(PUQ.c.hard_limit)).where(
        PUQ.c.project_id == project_id, PUQ.c.hard_limit >= 0).group_by(
        PUQ.c.resource)
    if exclude_user:
        query = query.where(PUQ.c.user_id != exclude_user)
    return {r[0]: int(r[1] or 0) for r in context.session.execute(query)}


# --- the check of a boot -------------------------------------------------

def lock(context, project_id):
    """Take the project's quota lock in context's API DB transaction
    (one statement: insert the row or bump its generation)."""
    session = context.session
    insert = _INSERTS.get(session.bind.dialect.name, sqlite.insert)(LOCK)
    stmt = insert.values(project_id=project_id, generation=1)
    if session.bind.dialect.name == 'mysql':
        stmt = stmt.on_duplicate_key_update(
            generation=LOCK.c.generation + 1)
    else:
        stmt = stmt.on_conflict_do_update(
            index_elements=['project_id'],
            set_={'generation': LOCK.c.generation + 1})
    session.execute(stmt)


# (from_placement, with a user, with moved, all_classes, groups) ->
# the UNION ALL of check_rows, built once with bound parameters (its
# cache key is memoized: a boot or a /limits does not build and key it).
_CHECK_STATEMENTS = {}


def _check_statement(from_placement, with_user, with_moved, all_classes,
                     groups):
    key = (from_placement, with_user, with_moved, all_classes, groups)
    statement = _CHECK_STATEMENTS.get(key)
    if statement is not None:
        return statement

    def kind(k):
        return sa.literal_column("'%s'" % k, sa.String)

    project_id = sa.bindparam('project_id', type_=sa.String)
    user_id = sa.bindparam('user_id', type_=sa.String)
    zero = sa.literal_column('0', sa.Integer)
    blank = sa.literal_column("''", sa.String)
    pending = sa.select(kind('b'), BR.c.instance_uuid,
                        sa.func.coalesce(BR.c.vcpus, 0),
                        sa.func.coalesce(BR.c.memory_mb, 0),
                        sa.func.coalesce(BR.c.user_id, ''))
    if from_placement:
        pending = pending.where(
            BR.c.project_id == project_id,
            ~sa.exists().where(ALLOC.c.consumer_id == BR.c.instance_uuid))
    else:
        pending = pending.select_from(BR.join(
            IM, IM.c.instance_uuid == BR.c.instance_uuid)).where(
            BR.c.project_id == project_id, IM.c.cell_id.is_(None))
    parts = _limit_rows(project_id, user_id if with_user else None) + [
        pending]
    if from_placement:
        im_mine = sa.case((IM.c.user_id == user_id, 1), else_=0)
        parts.append(sa.select(
            kind('i'), blank, sa.func.count(),
            sa.func.coalesce(sa.func.sum(im_mine), zero), blank).where(
            IM.c.project_id == project_id,
            sa.or_(IM.c.queued_for_delete.is_(None),
                   IM.c.queued_for_delete == sa.false())))
        al_mine = sa.case((CONSUMER.c.user_id == user_id, ALLOC.c.used),
                          else_=0)
        parts.append(sa.select(
            kind('a'), RC.c.name, sa.func.sum(ALLOC.c.used),
            sa.func.sum(al_mine), blank)
            .select_from(ALLOC.join(
                CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id).join(
                RC, RC.c.id == ALLOC.c.resource_class_id))
            .where(CONSUMER.c.project_id == project_id,
                   *(() if all_classes else
                     (RC.c.name.in_(['VCPU', 'MEMORY_MB']),)))
            .group_by(RC.c.name))
    if with_moved:
        changed = sa.func.coalesce(IM.c.updated_at, IM.c.created_at)
        recent = sa.case((IM.c.created_at >= sa.bindparam(
            'created_since', type_=sa.DateTime), 1), else_=0)
        mapped_since = sa.bindparam('mapped_since', type_=sa.DateTime)
        parts.append(sa.select(
            kind('m'), IM.c.instance_uuid, recent, zero,
            sa.cast(RS.c.spec, sa.String)).select_from(IM.outerjoin(
                RS, RS.c.instance_uuid == IM.c.instance_uuid)).where(
            IM.c.project_id == project_id, IM.c.cell_id.isnot(None),
            sa.or_(IM.c.queued_for_delete.is_(None),
                   IM.c.queued_for_delete == sa.false()),
            sa.or_(changed.is_(None), changed >= mapped_since),
            IM.c.instance_uuid.notin_(sa.bindparam('known',
                                                   expanding=True))))
    if groups:
        parts.append(sa.select(
            kind('g'), blank, sa.func.count(), zero, blank).where(
            GROUPS.c.project_id == project_id))
    statement = _CHECK_STATEMENTS[key] = sa.union_all(*parts)
    return statement


def check_rows(context, project_id, user_id, from_placement,
               mapped_since=None, known=(), created_since=None,
               all_classes=False, groups=False, connection=None):
    """One statement: the limits (as project_limits) and usage not in
    any cell yet. Returns (project, user, class limits, pending, mapped,
    allocated, moved): pending {instance_uuid: (vcpus, memory_mb,
    user_id)} of build requests not yet in a cell (from placement: with
    no allocation yet); mapped (instances, the user's instances) from the
    instance mappings and allocated {'VCPU'|'MEMORY_MB': (project, user)}
    from placement (both None unless from_placement); moved (with
    mapped_since, a naive UTC datetime): {instance_uuid: (created since
    created_since?, its request spec's JSON or None)} of the project's
    live instance mappings pointed at a cell since then, but those of
    the instance uuids in known -- servers that may have gone into a
    cell after the cells were counted. all_classes: allocated holds
    every resource class (unified limits), not only VCPU and
    MEMORY_MB. groups: an eighth value, the project's server groups.
    connection: run on it (a connection_reader's), not on context's
    session (a boot's transaction)."""
    with_moved = mapped_since is not None
    statement = _check_statement(from_placement, user_id is not None,
                                 with_moved, all_classes, groups)
    params = {'project_id': project_id, 'user_id': user_id}
    if with_moved:
        params.update(mapped_since=mapped_since,
                      created_since=created_since, known=sorted(known))
    rows = (connection or context.session).execute(
        statement, params).fetchall()
    limits = {'p': {}, 'u': {}, 'c': {}}
    pending_rows, mapped, allocated, moved = {}, None, None, {}
    group_count = 0
    for row in rows:
        kind_, name, a, b, owner = tuple(row)
        if kind_ in limits:
            limits[kind_][name] = a
        elif kind_ == 'b':
            pending_rows[name] = (int(a or 0), int(b or 0), owner or None)
        elif kind_ == 'i':
            mapped = (int(a or 0), int(b or 0))
        elif kind_ == 'a':
            allocated = allocated or {}
            allocated[name] = (int(a or 0), int(b or 0))
        elif kind_ == 'm':
            moved[name] = (bool(a), owner or None)
        elif kind_ == 'g':
            group_count = int(a or 0)
    if from_placement:
        mapped = mapped or (0, 0)
        allocated = allocated or {}
    result = (limits['p'], limits['u'], limits['c'], pending_rows, mapped,
              allocated, moved)
    return result + (group_count,) if groups else result


# --- reads for usage reports ---------------------------------------------

@api_db.connection_reader
def pending_usage(context, project_id, user_id, from_placement):
    """check_rows in its own (reader) transaction, without the lock:
    (project, user, class limits, pending, mapped, allocated, the
    project's server groups)."""
    rows = check_rows(context, project_id, user_id, from_placement,
                      groups=True, connection=context.connection)
    return rows[:6] + rows[7:]


@api_db.reader
def key_pair_count(context, user_id):
    return context.session.execute(sa.select(sa.func.count()).where(
        KP.c.user_id == user_id, KP.c.deleted == 0)).scalar()


@api_db.reader
def known_projects(context):
    """The project ids that have limits or servers here (one UNION)."""
    return sorted(row[0] for row in context.session.execute(sa.union(
        sa.select(Q.c.project_id), sa.select(IM.c.project_id).where(
            IM.c.project_id.isnot(None)))))
