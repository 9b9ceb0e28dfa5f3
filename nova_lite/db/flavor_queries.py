"""Flavor queries shared by both flavor generations, which have one
schema: the API DB's flavors tables (db.api.flavors) and the legacy
instance_types tables of the top-level cell DB (db.main.legacy_flavors).

Functions take a session and a Generation (the three tables) and return
flavor rows as plain dicts of COLUMNS. Order and keyset pagination:
NULLs first ascending (last descending) on every backend, flavorid (unique
across both generations) as the tie-breaker; sort_tuple() is the same
order in Python, for merging pages of the two generations.
"""
import collections
import functools

import sqlalchemy as sa

from nova_lite.db import driver_sql

Generation = collections.namedtuple('Generation',
                                    'name flavors extra_specs projects')

COLUMNS = ('id', 'name', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb',
           'flavorid', 'swap', 'rxtx_factor', 'vcpu_weight', 'disabled',
           'is_public', 'description', 'created_at', 'updated_at',
           'deleted_at', 'deleted')
SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb',
             'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb',
             'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight', 'vcpus')
# Related rows a read may leave out.
RELATED = ('extra_specs', 'projects')


def select_flavors(session, gen, criteria=(), order_by=(), limit=None,
                   columns=COLUMNS):
    """Live flavor rows as dicts (without related rows)."""
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


def attach_related(session, gen, rows, related=RELATED):
    """Fill extra_specs ({key: value}) and projects ([project_id]) of rows,
    those of them named in related: one query each per IN_CHUNK rows."""
    by_id = {row['id']: row for row in rows}
    conn = session.connection()
    if 'extra_specs' in related:
        for row in rows:
            row['extra_specs'] = {}
        quote = conn.dialect.identifier_preparer.quote
        for fid, key, value in driver_sql.fetch_in_chunks(
                conn, 'SELECT flavor_id, %s, value FROM %s WHERE '
                'deleted = 0 AND flavor_id IN (%%(marks)s)' % (
                    quote('key'), gen.extra_specs.name), by_id):
            by_id[fid]['extra_specs'][key] = value
    if 'projects' in related:
        for row in rows:
            row['projects'] = []
        for fid, project in driver_sql.fetch_in_chunks(
                conn, 'SELECT flavor_id, project_id FROM %s WHERE '
                'deleted = 0 AND flavor_id IN (%%(marks)s) ORDER BY id'
                % gen.projects.name, by_id):
            by_id[fid]['projects'].append(project)
    return rows


def get_one(session, gen, column, value):
    """The live flavor whose column is value (lowest id first), with its
    related rows; None if there is none."""
    rows = select_flavors(session, gen, [gen.flavors.c[column] == value],
                          order_by=[gen.flavors.c.id], limit=1)
    return attach_related(session, gen, rows)[0] if rows else None


def get_by_ids(session, gen, ids, related=RELATED):
    """{id: row} of the live flavors with these ids."""
    t = gen.flavors
    found = {}
    for part in driver_sql.chunks(ids):
        found.update((r['id'], r) for r in select_flavors(
            session, gen, [t.c.id.in_(part)]))
    attach_related(session, gen, list(found.values()), related)
    return found


def flavorids_present(session, gen, flavorids):
    """The flavorids among these that have a live flavor."""
    return {fid for (fid,) in driver_sql.fetch_in_chunks(
        session.connection(), 'SELECT flavorid FROM %s WHERE deleted = 0 '
        'AND flavorid IN (%%(marks)s)' % gen.flavors.name, flavorids)}


@functools.lru_cache(maxsize=None)
def _named_or_numbered(table, columns, null_name):
    name = (table.c.name.is_(None) if null_name
            else table.c.name == sa.bindparam('name'))
    return sa.select(*[table.c[c] for c in columns]).where(
        table.c.deleted == 0,
        sa.or_(name, table.c.flavorid == sa.bindparam('flavorid')))


def named_or_numbered(conn, gen, columns, name, flavorid):
    """Rows (tuples of columns) of the live flavors with this name or this
    flavorid. The statement is built once per generation and columns:
    SQLAlchemy keeps a statement's cache key on the statement, so a call
    only binds its values (flavor create runs this on every request)."""
    params = {'flavorid': flavorid}
    if name is not None:
        params['name'] = name
    return [tuple(r) for r in conn.execute(_named_or_numbered(
        gen.flavors, tuple(columns), name is None), params)]


def id_of(session, gen, flavorid):
    """The integer id of the live flavor with this flavorid, or None."""
    t = gen.flavors
    return session.execute(sa.select(t.c.id).where(
        t.c.flavorid == flavorid, t.c.deleted == 0)).scalar()


# --- list: filters, order and keyset pagination over one generation ----

def criteria(gen, context, filters):
    """WHERE conditions for filters (name, a regular expression
    searched in the name, as Nova's 2.102 filter; min_memory_mb,
    min_root_gb, disabled, is_public; is_public=True also admits the
    context project's private flavors)."""
    t = gen.flavors
    crit = []
    if filters.get('name') is not None:
        crit.append(t.c.name.regexp_match(filters['name']))
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


def _is_nullable(gen, sort_key):
    return sort_key != 'flavorid' and gen.flavors.c[sort_key].nullable


def order(gen, sort_key, asc):
    t = gen.flavors
    fid = t.c.flavorid
    if sort_key == 'flavorid':
        return [fid.asc() if asc else fid.desc()]
    col = t.c[sort_key]
    order_by = []
    if _is_nullable(gen, sort_key):
        not_null = sa.case((col.is_(None), 0), else_=1)
        order_by.append(not_null.asc() if asc else not_null.desc())
    order_by += [col.asc() if asc else col.desc(),
                 fid.asc() if asc else fid.desc()]
    return order_by


def after(gen, sort_key, asc, marker):
    """Rows strictly after marker (a row dict) in order()'s order."""
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
    if _is_nullable(gen, sort_key) and not asc:
        cond = sa.or_(cond, col.is_(None))
    return cond


def sort_tuple(sort_key):
    """Python key matching order() (ascending)."""
    if sort_key == 'flavorid':
        return lambda r: (r['flavorid'],)
    return lambda r: (r[sort_key] is not None, r[sort_key], r['flavorid'])


def page(session, gen, context, filters, sort_key, asc, limit, marker,
         columns=COLUMNS):
    """Rows of one generation in order after marker (a row dict or None),
    at most limit, without related rows."""
    crit = criteria(gen, context, filters)
    if marker is not None:
        crit.append(after(gen, sort_key, asc, marker))
    return select_flavors(session, gen, crit, order(gen, sort_key, asc),
                          limit, columns)
