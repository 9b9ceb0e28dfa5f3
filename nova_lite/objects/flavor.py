"""Flavors: global, so they live in the API DB; older ones may still sit in
the legacy tables of the top-level cell DB ([database] connection) until
the online migration moves them (nova_lite.online_migrations.flavors).

Callers never know where a flavor lives:
- reads look in the API DB first, then in the legacy tables;
- lists are the union (legacy rows whose flavorid is already in the API DB
  are hidden), filtered, sorted and paginated across both;
- writes go to the API DB only: writing to a legacy flavor moves it first;
- destroy removes the flavor from both.

A flavor is identified across generations by its flavorid (unique in the
union); the integer id is per database.
"""
import collections
import copy
import datetime
import heapq

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import driver_sql
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite import exception
from nova_lite.objects import base

Generation = collections.namedtuple('Generation',
                                    'name flavors extra_specs projects')
API = Generation('api', api_flavors.FLAVORS, api_flavors.EXTRA_SPECS,
                 api_flavors.PROJECTS)
LEGACY = Generation('legacy', legacy_flavors.FLAVORS,
                    legacy_flavors.EXTRA_SPECS, legacy_flavors.PROJECTS)

COLUMNS = ('id', 'name', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb',
           'flavorid', 'swap', 'rxtx_factor', 'vcpu_weight', 'disabled',
           'is_public', 'description', 'created_at', 'updated_at',
           'deleted_at', 'deleted')
SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb',
             'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb',
             'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight', 'vcpus')
MUTABLE = ('description', 'extra_specs', 'projects')
# What lists may leave out (FlavorList.get_all expected_attrs); a Flavor
# without one loads it on first use.
RELATED = ('extra_specs', 'projects')
# Keep IN (...) lists under every backend's bound-parameter limit.
IN_CHUNK = driver_sql.IN_CHUNK
chunks = driver_sql.chunks


def legacy_context(context):
    """A copy of context aimed at the top-level cell DB, or None if this
    host has none (then there are no legacy flavors to see)."""
    if not CONF.database.connection:
        return None
    lctx = copy.copy(context)
    lctx.db_connection = None
    return lctx


# --- reads, shared by both generations ---------------------------------

def select_flavors(session, gen, criteria=(), order_by=(), limit=None,
                   columns=COLUMNS):
    """Flavor rows as dicts (without related rows)."""
    t = gen.flavors
    query = sa.select(*[t.c[c] for c in columns]).where(
        t.c.deleted == 0, *criteria)
    if order_by:
        query = query.order_by(*order_by)
    if limit is not None:
        query = query.limit(limit)
    result = session.execute(query)
    keys = tuple(result.keys())
    # fetchall(): iterating a result fetches (and wraps) one row at a time.
    return [dict(zip(keys, r)) for r in result.fetchall()]


def _in_chunks(session, sql_text, values):
    """Rows of sql_text (with one IN (%(marks)s)) per chunk of values, as
    the driver's tuples."""
    return driver_sql.fetch_in_chunks(session.connection(), sql_text,
                                      values)


def attach_related(session, gen, rows, related=RELATED):
    """Fill extra_specs and projects of rows (those of them named in
    related): one query each per 500 rows."""
    by_id = {row['id']: row for row in rows}
    if 'extra_specs' in related:
        for row in rows:
            row['extra_specs'] = {}
        quote = session.connection().dialect.identifier_preparer.quote
        for fid, key, value in _in_chunks(
                session, 'SELECT flavor_id, %s, value FROM %s WHERE '
                'deleted = 0 AND flavor_id IN (%%(marks)s)' % (
                    quote('key'), gen.extra_specs.name), by_id):
            by_id[fid]['extra_specs'][key] = value
    if 'projects' in related:
        for row in rows:
            row['projects'] = []
        for fid, project in _in_chunks(
                session, 'SELECT flavor_id, project_id FROM %s WHERE '
                'deleted = 0 AND flavor_id IN (%%(marks)s) ORDER BY id'
                % gen.projects.name, by_id):
            by_id[fid]['projects'].append(project)
    return rows


def _get_one(session, gen, column, value):
    rows = select_flavors(session, gen, [gen.flavors.c[column] == value],
                          order_by=[gen.flavors.c.id], limit=1)
    return attach_related(session, gen, rows)[0] if rows else None


@api_db.reader
def _api_get(context, column, value):
    return _get_one(context.session, API, column, value)


@main_db.reader
def _legacy_get(context, column, value):
    return _get_one(context.session, LEGACY, column, value)


def get_flavor_dict(context, column, value):
    """API DB first, then the legacy tables; None if in neither."""
    row = _api_get(context, column, value)
    if row is None:
        lctx = legacy_context(context)
        row = _legacy_get(lctx, column, value) if lctx else None
    return row


@api_db.reader
def api_flavorids_present(context, flavorids):
    return {fid for (fid,) in _in_chunks(
        context.session, 'SELECT flavorid FROM flavors WHERE deleted = 0 '
        'AND flavorid IN (%(marks)s)', flavorids)}


# --- list: filters, order and keyset pagination over one generation ----

def _criteria(gen, context, filters):
    t = gen.flavors
    crit = []
    if filters.get('min_memory_mb') is not None:
        crit.append(t.c.memory_mb >= filters['min_memory_mb'])
    if filters.get('min_root_gb') is not None:
        crit.append(t.c.root_gb >= filters['min_root_gb'])
    if filters.get('disabled') is not None:
        crit.append(t.c.disabled == bool(filters['disabled']))
    if filters.get('is_public') is not None:
        public = t.c.is_public == bool(filters['is_public'])
        if filters['is_public'] and context.project_id is not None:
            p = gen.projects
            public = sa.or_(public, sa.exists().where(
                p.c.flavor_id == t.c.id, p.c.deleted == 0,
                p.c.project_id == context.project_id))
        crit.append(public)
    return crit


def _is_nullable(sort_key):
    return sort_key != 'flavorid' and API.flavors.c[sort_key].nullable


def _order(gen, sort_key, asc):
    """ORDER BY with NULLs first ascending (last descending) on every
    backend, and flavorid (unique in the union) as the tie-breaker."""
    t = gen.flavors
    fid = t.c.flavorid
    if sort_key == 'flavorid':
        return [fid.asc() if asc else fid.desc()]
    col = t.c[sort_key]
    order = []
    if _is_nullable(sort_key):
        not_null = sa.case((col.is_(None), 0), else_=1)
        order.append(not_null.asc() if asc else not_null.desc())
    order += [col.asc() if asc else col.desc(),
              fid.asc() if asc else fid.desc()]
    return order


def _after(gen, sort_key, asc, marker):
    """Rows strictly after marker in _order()'s order."""
    t = gen.flavors
    fid, mfid = t.c.flavorid, marker['flavorid']

    def beyond(a, b):
        return a > b if asc else a < b

    if sort_key == 'flavorid':
        return beyond(fid, mfid)
    col, value = t.c[sort_key], marker[sort_key]
    if value is None:
        if asc:
            return sa.or_(col.isnot(None), sa.and_(col.is_(None),
                                                   fid > mfid))
        return sa.and_(col.is_(None), fid < mfid)
    value = sa.literal(value, col.type)  # booleans compare too
    cond = sa.or_(beyond(col, value), sa.and_(col == value,
                                              beyond(fid, mfid)))
    if _is_nullable(sort_key) and not asc:
        cond = sa.or_(cond, col.is_(None))
    return cond


def sort_tuple(sort_key):
    """Python key matching _order() (ascending)."""
    if sort_key == 'flavorid':
        return lambda r: (r['flavorid'],)
    return lambda r: (r[sort_key] is not None, r[sort_key], r['flavorid'])


def _page(session, gen, context, filters, sort_key, asc, limit, marker,
          columns=COLUMNS):
    """Rows of one generation in order after marker, at most limit."""
    crit = _criteria(gen, context, filters)
    if marker is not None:
        crit.append(_after(gen, sort_key, asc, marker))
    return select_flavors(session, gen, crit, _order(gen, sort_key, asc),
                          limit, columns)


@main_db.reader
def _merge_legacy(lctx, context, rows, filters, sort_key, asc, limit,
                  marker, related=RELATED):
    """Merge into rows (API rows, in order) the legacy rows not yet in
    the API DB, cut to limit. Returns (page, ids of its legacy rows).

    The legacy candidates are read with only what ordering needs (id,
    flavorid, sort key); whole rows, specs and projects are then read for
    the ones that made the page.
    """
    keys = ('id', 'flavorid', sort_key)
    legacy = []
    while limit is None or len(legacy) < limit:
        want = None if limit is None else limit - len(legacy)
        found = _page(lctx.session, LEGACY, context, filters, sort_key, asc,
                      want, marker, columns=keys)
        if not found:
            break
        migrated = api_flavorids_present(context,
                                         [r['flavorid'] for r in found])
        legacy += [r for r in found if r['flavorid'] not in migrated]
        if want is None or len(found) < want:
            break
        marker = found[-1]
    if not legacy:
        return rows, set()
    page = list(heapq.merge(rows, legacy, key=sort_tuple(sort_key),
                            reverse=not asc))[:limit]
    candidates = {id(r) for r in legacy}
    wanted = [r['id'] for r in page if id(r) in candidates]
    full = {}
    if wanted:
        t = LEGACY.flavors
        for part in chunks(wanted):
            full.update((r['id'], r) for r in select_flavors(
                lctx.session, LEGACY, [t.c.id.in_(part)]))
        attach_related(lctx.session, LEGACY, list(full.values()), related)
    # A candidate missing now was migrated meanwhile (only possible where
    # reads in one transaction are not one snapshot); it is left out of
    # this page rather than shown twice or failing the listing.
    page = [full.get(r['id']) if id(r) in candidates else r for r in page]
    return [r for r in page if r is not None], {id(r) for r in full.values()}


@api_db.reader
def _list_union(context, lctx, filters, sort_key, asc, limit, marker,
                related=RELATED):
    """One API DB transaction around the page; the legacy part (if any)
    in one cell DB transaction inside it."""
    page = _page(context.session, API, context, filters, sort_key, asc,
                 limit, marker)
    from_legacy = set()
    if lctx is not None:
        page, from_legacy = _merge_legacy(lctx, context, page, filters,
                                          sort_key, asc, limit, marker,
                                          related)
    attach_related(context.session, API,
                   [r for r in page if id(r) not in from_legacy], related)
    return page


def list_flavor_dicts(context, filters=None, sort_key='flavorid',
                      sort_dir='asc', limit=None, marker=None,
                      related=RELATED):
    """One page of the union of both generations.

    Each generation gives at most `limit` rows in order; the page is their
    merge, cut to `limit`, and only then are extra specs and projects
    loaded (one query each per generation), for the rows on the page; only
    those of them named in related (the others' keys are left out).
    """
    filters = filters or {}
    if sort_key not in SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidInput(reason='sort_dir must be asc or desc')
    marker_row = None
    if marker is not None:
        marker_row = get_flavor_dict(context, 'flavorid', marker)
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    return _list_union(context, legacy_context(context), filters, sort_key,
                       sort_dir == 'asc', limit, marker_row, related)


# --- writes: API DB only ------------------------------------------------

def _flavor_values(values):
    return {k: v for k, v in values.items() if k in COLUMNS and k != 'id'}


@main_db.reader
def _legacy_clash(lctx, name, flavorid):
    t = LEGACY.flavors
    rows = lctx.session.execute(sa.select(t.c.name, t.c.flavorid).where(
        t.c.deleted == 0,
        sa.or_(t.c.name == name, t.c.flavorid == flavorid))).all()
    migrated = api_flavorids_present(lctx, [r.flavorid for r in rows])
    return [r for r in rows if r.flavorid not in migrated]


def _raise_exists(name, flavorid, clash_flavorid):
    if clash_flavorid == flavorid:
        raise exception.FlavorIdExists(flavor_id=flavorid)
    raise exception.FlavorExists(name=name)


@api_db.writer
def _api_create(context, values, extra_specs, projects):
    session = context.session
    t = API.flavors
    values = dict(_flavor_values(values), deleted=0,
                  created_at=timeutils.utcnow())
    for clash in session.execute(sa.select(t.c.flavorid).where(
            t.c.deleted == 0, sa.or_(t.c.name == values.get('name'),
                                     t.c.flavorid == values['flavorid']))):
        _raise_exists(values.get('name'), values['flavorid'],
                      clash.flavorid)
    flavor_id = session.execute(t.insert().values(**values)) \
        .inserted_primary_key[0]
    _api_add_specs(session, flavor_id, extra_specs)
    for project_id in projects:
        session.execute(API.projects.insert().values(
            flavor_id=flavor_id, project_id=project_id, deleted=0,
            created_at=values['created_at']))
    return _get_one(session, API, 'id', flavor_id)


def create_flavor(context, values, extra_specs=None, projects=None):
    """Insert into the API DB; name and flavorid unique across both
    generations (a not-yet-migrated legacy flavor counts)."""
    lctx = legacy_context(context)
    if lctx is not None:
        for clash in _legacy_clash(lctx, values.get('name'),
                                   values['flavorid']):
            _raise_exists(values.get('name'), values['flavorid'],
                          clash.flavorid)
    try:
        return _api_create(context, values, extra_specs or {},
                           projects or [])
    except db_exc.DBDuplicateEntry as e:
        if 'flavorid' in (e.columns or []):
            raise exception.FlavorIdExists(flavor_id=values['flavorid'])
        raise exception.FlavorExists(name=values.get('name'))


def _api_add_specs(session, flavor_id, specs):
    if not specs:
        return
    t = API.extra_specs
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


@api_db.writer
def _api_update(context, flavorid, values, add_specs, delete_specs):
    session = context.session
    t = API.flavors
    flavor_id = session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()
    if flavor_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    if values:
        session.execute(t.update().where(t.c.id == flavor_id).values(
            updated_at=timeutils.utcnow(), **values))
    if delete_specs:
        s = API.extra_specs
        session.execute(s.delete().where(s.c.flavor_id == flavor_id,
                                         s.c.key.in_(list(delete_specs))))
    _api_add_specs(session, flavor_id, add_specs)
    return _get_one(session, API, 'id', flavor_id)


@api_db.writer
def _api_add_project(context, flavorid, project_id):
    t = API.flavors
    flavor_id = context.session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()
    if flavor_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    context.session.execute(API.projects.insert().values(
        flavor_id=flavor_id, project_id=project_id, deleted=0,
        created_at=timeutils.utcnow()))
    return _get_one(context.session, API, 'id', flavor_id)


@api_db.writer
def _api_remove_project(context, flavorid, project_id):
    t, p = API.flavors, API.projects
    flavor_id = context.session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()
    if flavor_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    count = context.session.execute(p.delete().where(
        p.c.flavor_id == flavor_id, p.c.project_id == project_id)).rowcount
    if not count:
        raise exception.FlavorAccessNotFound(flavor_id=flavorid,
                                             project_id=project_id)
    return _get_one(context.session, API, 'id', flavor_id)


@api_db.writer
def _api_destroy(context, flavorid):
    session = context.session
    t = API.flavors
    flavor_id = session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()
    if flavor_id is None:
        return False
    for related in (API.extra_specs, API.projects):
        session.execute(related.delete().where(
            related.c.flavor_id == flavor_id))
    session.execute(t.delete().where(t.c.id == flavor_id))
    return True


def legacy_soft_delete(lctx, ids):
    """Soft-delete legacy flavors (by id) with their specs and projects;
    returns the flavors soft-deleted."""
    return legacy_flavors.destroy(lctx, ids)


@main_db.reader
def _legacy_id(lctx, flavorid):
    t = LEGACY.flavors
    return lctx.session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()


def destroy_flavor(context, flavorid):
    """Legacy row first, API row second: a crash in between leaves the
    flavor in the API DB only, never a stale legacy copy resurfacing. A
    legacy flavor that a migration batch holds makes the legacy
    soft-delete wait for the batch to commit; it then finds nothing and
    the API row, the batch's copy, goes."""
    lctx = legacy_context(context)
    legacy = False
    if lctx is not None:
        legacy_id = _legacy_id(lctx, flavorid)
        if legacy_id is not None:
            legacy = bool(legacy_soft_delete(lctx, [legacy_id]))
    if not _api_destroy(context, flavorid) and not legacy:
        raise exception.FlavorNotFound(flavor_id=flavorid)


def ensure_in_api(context, flavorid):
    """Move a legacy flavor to the API DB (no-op if already there)."""
    if api_flavorids_present(context, [flavorid]):
        return
    from nova_lite.online_migrations import flavors as flavor_migration
    lctx = legacy_context(context)
    legacy_id = _legacy_id(lctx, flavorid) if lctx else None
    if legacy_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    found, done = flavor_migration.move_legacy_flavors(
        context, lctx, [legacy_id])
    if not done:
        legacy = _legacy_get(lctx, 'id', legacy_id)
        raise exception.FlavorExists(name=legacy['name'])


# --- objects ------------------------------------------------------------

# Building 1,000 objects for a list page spent most of its time in field
# coercion of values that are already what coercion returns. A value of
# exactly the type below (or None where the field is nullable) is stored
# as is; anything else goes through the field's coerce() as usual.
_DRIVER_TYPED = {'id': int, 'memory_mb': int, 'vcpus': int, 'root_gb': int,
                 'ephemeral_gb': int, 'swap': int, 'vcpu_weight': int,
                 'disabled': bool, 'is_public': bool, 'deleted': bool,
                 'name': str, 'flavorid': str, 'description': str,
                 'rxtx_factor': float}
_NOT_NULL = ('id', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb', 'swap',
             'disabled', 'is_public', 'deleted', 'flavorid')
_DATETIMES = ('created_at', 'updated_at', 'deleted_at')
# oslo.versionedobjects keeps a field's value in '_obj_<name>'.
_ATTR = {name: '_obj_' + name
         for name in tuple(_DRIVER_TYPED) + _DATETIMES +
         ('extra_specs', 'projects')}


_BOOLEANS = ('deleted', 'disabled', 'is_public')
_ZERO_WHEN_NULL = ('root_gb', 'ephemeral_gb', 'swap')
_UTC = datetime.timezone.utc


def _set_fields(flavor, db):
    """Store db's columns, extra_specs and projects in flavor's fields,
    without coercion where coercion would return the value unchanged
    (DateTimeField: naive -> UTC, as its coerce does); anything else is
    set normally, so it is coerced (or rejected) as usual."""
    attrs = flavor.__dict__
    for name in COLUMNS:
        value = db[name]
        if name in _BOOLEANS:
            value = bool(value)
        elif value is None and name in _ZERO_WHEN_NULL:
            value = 0
        if value is None:
            if name not in _NOT_NULL:
                attrs[_ATTR[name]] = None
                continue
        elif name in _DATETIMES:
            if type(value) is datetime.datetime and value.tzinfo is None:
                attrs[_ATTR[name]] = value.replace(tzinfo=_UTC)
                continue
        elif type(value) is _DRIVER_TYPED[name]:
            attrs[_ATTR[name]] = value
            continue
        setattr(flavor, name, value)
    _set_related(flavor, db)


def _set_related(flavor, db):
    """extra_specs and projects from db, those of them it has."""
    attrs = flavor.__dict__
    specs = db.get('extra_specs')
    if specs is None:
        pass
    elif all(type(k) is str and type(v) is str for k, v in specs.items()):
        attrs['_obj_extra_specs'] = dict(specs)
    else:
        flavor.extra_specs = specs
    projects = db.get('projects')
    if projects is None:
        pass
    elif all(type(p) is str for p in projects):
        attrs['_obj_projects'] = list(projects)
    else:
        flavor.projects = projects


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial (API DB first, legacy cell tables second)
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True, default=1.0),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'disabled': fields.BooleanField(),
        'is_public': fields.BooleanField(),
        'extra_specs': fields.DictOfStringsField(),
        'projects': fields.ListOfStringsField(),
        'description': fields.StringField(nullable=True),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._orig_extra_specs = {}
        self._orig_projects = []

    @staticmethod
    def _from_db_object(context, flavor, db):
        """db may lack extra_specs and projects (a list that did not load
        them): the Flavor then loads them on first use."""
        _set_fields(flavor, db)
        attrs = flavor.__dict__
        for name in RELATED:
            if name not in db:
                # Whatever an earlier load held is stale now.
                attrs.pop('_obj_' + name, None)
        flavor._orig_extra_specs = (dict(db['extra_specs'])
                                    if 'extra_specs' in db else None)
        flavor._orig_projects = list(db.get('projects', ()))
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    def obj_load_attr(self, attrname):
        """Load extra_specs and projects (both, those not set yet) of a
        flavor listed without them."""
        if attrname not in RELATED:
            return super().obj_load_attr(attrname)
        if self._context is None:
            raise ovoo_exc.OrphanedObjectError(method='obj_load_attr',
                                               objtype=self.obj_name())
        if not self.obj_attr_is_set('flavorid'):
            raise exception.ObjectActionError(
                action='obj_load_attr', reason='no flavorid to load by')
        db = get_flavor_dict(self._context, 'flavorid', self.flavorid)
        if db is None:
            raise exception.FlavorNotFound(flavor_id=self.flavorid)
        missing = [n for n in RELATED if not self.obj_attr_is_set(n)]
        _set_related(self, {n: db[n] for n in missing})
        if 'extra_specs' in missing:
            self._orig_extra_specs = dict(db['extra_specs'])
        if 'projects' in missing:
            self._orig_projects = list(db['projects'])
        self.obj_reset_changes(missing)

    @classmethod
    def _get(cls, context, column, value, exc):
        db = get_flavor_dict(context, column, value)
        if db is None:
            raise exc
        return cls._from_db_object(context, cls(), db)

    @base.remotable_classmethod
    def get_by_id(cls, context, id):
        return cls._get(context, 'id', id,
                        exception.FlavorNotFound(flavor_id=id))

    @base.remotable_classmethod
    def get_by_flavor_id(cls, context, flavor_id):
        return cls._get(context, 'flavorid', flavor_id,
                        exception.FlavorNotFound(flavor_id=flavor_id))

    @base.remotable_classmethod
    def get_by_name(cls, context, name):
        return cls._get(context, 'name', name,
                        exception.FlavorNotFoundByName(flavor_name=name))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        specs = updates.pop('extra_specs', None) or {}
        projects = updates.pop('projects', None) or []
        if not updates.get('flavorid'):
            updates['flavorid'] = uuidutils.generate_uuid()
        updates.setdefault('swap', 0)
        updates.setdefault('rxtx_factor', 1.0)
        updates.setdefault('root_gb', 0)
        updates.setdefault('ephemeral_gb', 0)
        updates.setdefault('disabled', False)
        updates.setdefault('is_public', True)
        self._from_db_object(self._context, self, create_flavor(
            self._context, updates, specs, projects))

    @base.remotable
    def save(self):
        """Write description, extra spec and access changes (API DB only;
        a legacy flavor moves there first)."""
        changes = self.obj_get_changes()
        read_only = set(changes) - set(MUTABLE)
        if read_only:
            raise exception.ObjectActionError(
                action='save',
                reason='read-only fields changed: %s' % sorted(read_only))
        if not changes:
            return
        ensure_in_api(self._context, self.flavorid)
        add_specs = delete_specs = None
        if 'extra_specs' in changes:
            if self._orig_extra_specs is None:
                # Listed without specs, then set without reading them:
                # what is stored decides what to add and delete.
                self._orig_extra_specs = dict(get_flavor_dict(
                    self._context, 'flavorid', self.flavorid)['extra_specs'])
            add_specs = {k: v for k, v in self.extra_specs.items()
                         if self._orig_extra_specs.get(k) != v}
            delete_specs = set(self._orig_extra_specs) - set(
                self.extra_specs)
        values = ({'description': self.description}
                  if 'description' in changes else {})
        db = _api_update(self._context, self.flavorid, values, add_specs,
                         delete_specs)
        if 'projects' in changes:
            wanted = set(self.projects)
            for project in wanted - set(db['projects']):
                db = self._add_project(project)
            for project in set(db['projects']) - wanted:
                db = _api_remove_project(self._context, self.flavorid,
                                         project)
        self._from_db_object(self._context, self, db)

    def _add_project(self, project_id):
        try:
            return _api_add_project(self._context, self.flavorid,
                                    project_id)
        except db_exc.DBDuplicateEntry:
            raise exception.FlavorAccessExists(flavor_id=self.flavorid,
                                               project_id=project_id)

    @base.remotable
    def add_access(self, project_id):
        if 'projects' in self.obj_what_changed():
            raise exception.ObjectActionError(
                action='add_access', reason='projects modified')
        ensure_in_api(self._context, self.flavorid)
        self._from_db_object(self._context, self,
                             self._add_project(project_id))

    @base.remotable
    def remove_access(self, project_id):
        if 'projects' in self.obj_what_changed():
            raise exception.ObjectActionError(
                action='remove_access', reason='projects modified')
        ensure_in_api(self._context, self.flavorid)
        self._from_db_object(self._context, self, _api_remove_project(
            self._context, self.flavorid, project_id))

    @base.remotable
    def destroy(self):
        destroy_flavor(self._context, self.flavorid)


@base.NovaLiteObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: get_all(expected_attrs): which of extra_specs and projects to
    #      load (default both); the Flavors load the others on first use
    VERSION = '1.1'
    fields = {'objects': fields.ListOfObjectsField('Flavor')}

    @base.remotable_classmethod
    def get_all(cls, context, inactive=False, filters=None,
                sort_key='flavorid', sort_dir='asc', limit=None,
                marker=None, expected_attrs=None):
        if expected_attrs is None:
            related = RELATED
        else:
            related = tuple(a for a in RELATED if a in expected_attrs)
            unknown = set(expected_attrs) - set(RELATED)
            if unknown:
                raise exception.ObjectActionError(
                    action='get_all',
                    reason='unknown expected_attrs %s' % sorted(unknown))
        rows = list_flavor_dicts(context, filters, sort_key, sort_dir,
                                 limit, marker, related)
        result = cls(context)
        # Set without ListOfObjectsField's per-item coercion: each item is
        # a Flavor made here.
        result.__dict__['_obj_objects'] = [
            Flavor._from_db_object(context, Flavor(), r) for r in rows]
        result.obj_reset_changes()
        return result
