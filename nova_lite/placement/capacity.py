"""The one reader of provider capacity: inventories and usage per
provider, outside any write transaction.

read(ctx, uuids, classes=None) -> {uuid: {'generation', 'inventories':
{class: record}, 'usages': {class: used}}} for the providers that exist.
read_rows(ctx, uuids, classes, build) -> {uuid: build(row)} is the same
read handing over each provider's row (layout below) for callers that
build their own shape (compute-node loads, thousands of nodes).

One row per provider: a join per class on the (provider, class) unique
key and a SUM of allocations per class (index-only), CAPACITY_CHUNK
providers per query. Rows are kept per (API DB, classes) and reused while
the provider's (id, generation) is unchanged: every change of its
inventories or allocations moves the generation (placement invariant), and
a provider created again under the same uuid gets a new id.
"""
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers
from nova_lite.placement import resource_class

RP, INV, ALLOC = providers.RP, providers.INV, providers.ALLOC

# Per class, in the order of the classes asked for: these columns (used
# is None when nothing is allocated; total is None when the provider has
# no inventory of the class).
CLASS_COLUMNS = providers.INVENTORY_FIELDS + ('used',)
WIDTH = len(CLASS_COLUMNS)


# Row layout: uuid, then WIDTH columns per class, then provider id and
# generation.
def class_offset(index):
    """Where the columns of the index-th class asked for start in a row."""
    return 1 + WIDTH * index


# Providers per capacity query (tools/bench/inventory_migration.py).
CAPACITY_CHUNK = 2000

# {(API DB url, class ids): {uuid: ((provider id, generation), row)}}
_CACHE = {}


def clear_cache():
    _CACHE.clear()


def read(ctx, uuids, classes=None):
    """{uuid: {'generation', 'inventories': {class: record}, 'usages':
    {class: used}}} for the providers of uuids that exist; classes: the
    resource class names to read (None: every class they have)."""
    names = None if classes is None else tuple(classes)

    def build(row, names):
        entry = {'generation': row[-1], 'inventories': {}, 'usages': {}}
        for i, name in enumerate(names):
            base = class_offset(i)
            if row[base] is None:
                continue
            entry['inventories'][name] = dict(zip(
                providers.INVENTORY_FIELDS, row[base:base + WIDTH - 1]))
            used = row[base + WIDTH - 1]
            if used:
                entry['usages'][name] = int(used)
        return entry
    return _read(ctx, uuids, names, build)


def read_rows(ctx, uuids, classes, build):
    """{uuid: build(row)}; row: uuid, WIDTH columns per class of classes
    (in that order: CLASS_COLUMNS), provider id, generation."""
    return _read(ctx, uuids, tuple(classes), lambda row, _names: build(row))


def _read(ctx, uuids, names, build):
    uuids = set(u for u in uuids if u)
    if not uuids:
        return {}
    # Outside the read transaction: the first call of a process may add
    # the standard classes; later ones are answered from its cache.
    resource_class.all_classes(ctx)
    with placement_db.reading(ctx) as session:
        if names is None:
            names = _classes_of(ctx, session, uuids)
        class_ids = resource_class.resource_class_ids(
            ctx, names, create=False) if names else {}
        return _read_in_transaction(session, uuids, names, class_ids, build)


def _classes_of(ctx, session, uuids):
    ids = set()
    for part in placement_db.chunks(uuids, CAPACITY_CHUNK):
        ids.update(i for (i,) in session.execute(
            sa.select(INV.c.resource_class_id).distinct().select_from(
                INV.join(RP, RP.c.id == INV.c.resource_provider_id))
            .where(RP.c.uuid.in_(part))))
    names = resource_class.names_by_id(ctx, ids)
    return tuple(sorted(names[i] for i in ids))


def _query(names, class_ids):
    joins, columns = RP, [RP.c.uuid]
    for name in names:
        inv = INV.alias()
        # eq_ref on the (provider, class) unique key per class; the sums
        # read only allocations_resource_provider_class_used_idx.
        joins = joins.outerjoin(inv, sa.and_(
            inv.c.resource_provider_id == RP.c.id,
            inv.c.resource_class_id == class_ids[name]))
        used = (sa.select(sa.func.sum(ALLOC.c.used))
                .where(ALLOC.c.resource_provider_id == RP.c.id,
                       ALLOC.c.resource_class_id == class_ids[name])
                .scalar_subquery())
        columns += [inv.c[f] for f in providers.INVENTORY_FIELDS]
        columns.append(used)
    columns += [RP.c.id, RP.c.generation]
    return sa.select(*columns).select_from(joins)


def _read_in_transaction(session, uuids, names, class_ids, build):
    """Per CAPACITY_CHUNK uuids: each provider's (id, generation) -- one
    index-only lookup -- then the capacity query only for providers not
    read before at that (id, generation); both in one read transaction.
    When most of the uuids were never read here, the capacity query runs
    alone."""
    key = (str(api_db.get_engine().url),
           tuple(class_ids[n] for n in names))
    cache = _CACHE.setdefault(key, {})
    found, stale = {}, uuids
    if 2 * sum(1 for u in uuids if u in cache) >= len(uuids):
        stale, existing = [], set()
        for part in placement_db.chunks(uuids, CAPACITY_CHUNK):
            for uuid, pid, generation in session.execute(
                    sa.select(RP.c.uuid, RP.c.id, RP.c.generation)
                    .where(RP.c.uuid.in_(part))).tuples():
                existing.add(uuid)
                hit = cache.get(uuid)
                if hit is not None and hit[0] == (pid, generation):
                    found[uuid] = build(hit[1], names)
                else:
                    stale.append(uuid)
        for uuid in uuids - existing:
            cache.pop(uuid, None)
        if not stale:
            return found
    query = _query(names, class_ids)
    for part in placement_db.chunks(stale, CAPACITY_CHUNK):
        for row in session.execute(
                query.where(RP.c.uuid.in_(part))).tuples():
            cache[row[0]] = ((row[-2], row[-1]), row)
            found[row[0]] = build(row, names)
    return found
