"""Flavors in the API database (flavors, flavor_extra_specs,
flavor_projects): reads and the only writes of flavors.

Rows are plain dicts of flavor_queries.COLUMNS plus extra_specs and
projects. Name and flavorid are unique among live flavors here (the
tables' unique constraints); uniqueness against the legacy tables is
flavor_union's job.
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models
from nova_lite.db import flavor_queries as queries
from nova_lite import exception

FLAVORS = models.Flavors.__table__
EXTRA_SPECS = models.FlavorExtraSpecs.__table__
PROJECTS = models.FlavorProjects.__table__
GEN = queries.Generation('api', FLAVORS, EXTRA_SPECS, PROJECTS)


@api_db.reader
def get(context, column, value):
    """The live flavor whose column is value, or None."""
    return queries.get_one(context.session, GEN, column, value)


@api_db.reader
def flavorids_present(context, flavorids):
    """The flavorids among these that are live in the API DB."""
    return queries.flavorids_present(context.session, GEN, flavorids)


# --- writes ---------------------------------------------------------------

def raise_exists(name, flavorid, clash_flavorid):
    """FlavorIdExists when the clash is on flavorid, else FlavorExists."""
    if clash_flavorid == flavorid:
        raise exception.FlavorIdExists(flavor_id=flavorid)
    raise exception.FlavorExists(name=name)


# Built once: SQLAlchemy keeps a statement's cache key on the statement,
# so each create only binds its values.
_INSERT = FLAVORS.insert()
_INSERT_RETURNING = FLAVORS.insert().returning(
    *[FLAVORS.c[c] for c in queries.COLUMNS])


@api_db.connection_writer
def _create(context, values, extra_specs, projects):
    conn = context.connection
    values = dict({k: v for k, v in values.items()
                   if k in queries.COLUMNS and k != 'id'},
                  deleted=0, created_at=timeutils.utcnow())
    for (clash,) in queries.named_or_numbered(
            conn, GEN, ('flavorid',), values.get('name'),
            values['flavorid']):
        raise_exists(values.get('name'), values['flavorid'], clash)
    row = None
    if conn.dialect.insert_returning:
        # The stored row, column defaults and all, comes back at once.
        row = dict(conn.execute(_INSERT_RETURNING, values).mappings().one())
        flavor_id = row['id']
    else:
        flavor_id = conn.execute(_INSERT, values).inserted_primary_key[0]
    _add_specs(conn, flavor_id, extra_specs)
    if projects:
        conn.execute(PROJECTS.insert(), [
            {'flavor_id': flavor_id, 'project_id': project_id, 'deleted': 0,
             'created_at': values['created_at']} for project_id in projects])
    if row is None:
        row = queries.select_flavors(conn, GEN,
                                     [FLAVORS.c.id == flavor_id])[0]
    # The related rows are those just inserted.
    return dict(row, extra_specs=dict(extra_specs), projects=list(projects))


def create(context, values, extra_specs=None, projects=None):
    """Insert a flavor (values: columns; flavorid required) with its extra
    specs and projects; FlavorExists / FlavorIdExists on a clash here.
    Returns its row."""
    try:
        return _create(context, values, extra_specs or {}, projects or [])
    except db_exc.DBDuplicateEntry as e:
        if 'flavorid' in (e.columns or []):
            raise exception.FlavorIdExists(flavor_id=values['flavorid'])
        raise exception.FlavorExists(name=values.get('name'))


def _add_specs(session, flavor_id, specs):
    """Set specs of a flavor; session: an ORM Session or a Core
    Connection."""
    if not specs:
        return
    t = EXTRA_SPECS
    now = timeutils.utcnow()
    existing = {k: i for i, k in session.execute(
        sa.select(t.c.id, t.c.key).where(t.c.flavor_id == flavor_id,
                                         t.c.deleted == 0,
                                         t.c.key.in_(list(specs))))}
    for key, value in specs.items():
        if key in existing:
            session.execute(t.update().where(t.c.id == existing[key])
                            .values(value=value, updated_at=now))
    new = [{'flavor_id': flavor_id, 'key': k, 'value': v, 'deleted': 0,
            'created_at': now} for k, v in specs.items() if k not in existing]
    if new:
        session.execute(t.insert(), new)


def _require_id(session, flavorid):
    flavor_id = queries.id_of(session, GEN, flavorid)
    if flavor_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    return flavor_id


@api_db.writer
def update(context, flavorid, values, add_specs=None, delete_specs=None):
    """Set values (description) and add, change or delete extra specs of
    the flavor with this flavorid (FlavorNotFound if it is not in the API
    DB). Returns its row."""
    session = context.session
    flavor_id = _require_id(session, flavorid)
    if values:
        session.execute(FLAVORS.update().where(FLAVORS.c.id == flavor_id)
                        .values(updated_at=timeutils.utcnow(), **values))
    if delete_specs:
        s = EXTRA_SPECS
        session.execute(s.delete().where(s.c.flavor_id == flavor_id,
                                         s.c.key.in_(list(delete_specs))))
    _add_specs(session, flavor_id, add_specs)
    return queries.get_one(session, GEN, 'id', flavor_id)


@api_db.writer
def _add_project(context, flavorid, project_id):
    flavor_id = _require_id(context.session, flavorid)
    context.session.execute(PROJECTS.insert().values(
        flavor_id=flavor_id, project_id=project_id, deleted=0,
        created_at=timeutils.utcnow()))
    return queries.get_one(context.session, GEN, 'id', flavor_id)


def add_project(context, flavorid, project_id):
    """Let project_id use the flavor (FlavorAccessExists if it may
    already). Returns its row."""
    try:
        return _add_project(context, flavorid, project_id)
    except db_exc.DBDuplicateEntry:
        raise exception.FlavorAccessExists(flavor_id=flavorid,
                                           project_id=project_id)


@api_db.writer
def remove_project(context, flavorid, project_id):
    """FlavorAccessNotFound if project_id had no access. Returns its
    row."""
    p = PROJECTS
    flavor_id = _require_id(context.session, flavorid)
    count = context.session.execute(p.delete().where(
        p.c.flavor_id == flavor_id, p.c.project_id == project_id)).rowcount
    if not count:
        raise exception.FlavorAccessNotFound(flavor_id=flavorid,
                                             project_id=project_id)
    return queries.get_one(context.session, GEN, 'id', flavor_id)


@api_db.writer
def destroy(context, flavorid):
    """Delete the flavor and its related rows; False if it was not
    here."""
    session = context.session
    flavor_id = queries.id_of(session, GEN, flavorid)
    if flavor_id is None:
        return False
    for related in (EXTRA_SPECS, PROJECTS):
        session.execute(related.delete().where(
            related.c.flavor_id == flavor_id))
    session.execute(FLAVORS.delete().where(FLAVORS.c.id == flavor_id))
    return True
