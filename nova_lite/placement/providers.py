"""Resource providers and their inventories.

Plain functions over the API DB, in bulk: one query per call (per 500
uuids), never one per provider. Every change of a provider's inventories
bumps its generation with a guarded ``UPDATE ... WHERE generation =
:seen`` (bump_generations), so a claim that checked the old inventories
cannot commit against the new ones; readers (capacity) keep what they
read per (provider id, generation).
"""
import math

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite import constants
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.placement import db as placement_db
from nova_lite.placement import resource_class

resource_class_ids = resource_class.resource_class_ids
chunks = placement_db.chunks

RP = api_models.ResourceProvider.__table__
RC = api_models.ResourceClass.__table__
INV = api_models.Inventory.__table__
ALLOC = api_models.Allocation.__table__
CONSUMER = api_models.Consumer.__table__

INVENTORY_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                    'allocation_ratio')
WRITE_RETRIES = 50


def provider_named(ctx, name):
    """Whether a resource provider is named name (one query)."""
    with placement_db.reading(ctx) as connection:
        return connection.execute(
            sa.select(RP.c.id).where(RP.c.name == name).limit(1)
        ).first() is not None


_BUMP_ONE = RP.update().where(
    RP.c.id == sa.bindparam('pid'),
    RP.c.generation == sa.bindparam('gen')).values(
        generation=RP.c.generation + 1, updated_at=sa.bindparam('now'))


def bump_generations(session, seen):
    """Guarded bump of {provider_id: generation seen}; raises
    GenerationChanged unless every provider still had that generation."""
    if not seen:
        return
    now = timeutils.utcnow()
    if len(seen) == 1:
        # A claim's usual case: the statement is built once.
        [(pid, gen)] = seen.items()
        result = session.execute(_BUMP_ONE, {'pid': pid, 'gen': gen,
                                             'now': now})
    else:
        match = sa.or_(*[sa.and_(RP.c.id == pid, RP.c.generation == gen)
                         for pid, gen in sorted(seen.items())])
        result = session.execute(RP.update().where(match).values(
            generation=RP.c.generation + 1, updated_at=now))
    if result.rowcount != len(seen):
        raise placement_db.GenerationChanged()


# --- inventories: validation -------------------------------------------------

def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _validate_one(rc_name, record):
    def bad(reason):
        return exception.InvalidInventory(resource_class=rc_name,
                                          reason=reason)
    if not resource_class.is_valid_name(rc_name):
        raise bad('unknown resource class (standard classes come from '
                  'os-resource-classes; custom ones are CUSTOM_[A-Z0-9_]+)')
    if not isinstance(record, dict):
        raise bad('the record must be a mapping')
    unknown = set(record) - set(INVENTORY_FIELDS)
    if unknown:
        raise bad('unknown fields %s' % ', '.join(sorted(map(str, unknown))))
    if 'total' not in record:
        raise bad('total is required')
    inv = {'reserved': 0, 'min_unit': 1, 'step_size': 1,
           'allocation_ratio': 1.0}
    inv.update(record)
    inv.setdefault('max_unit', inv['total'])
    for field in INVENTORY_FIELDS[:-1]:
        if not is_int(inv[field]):
            raise bad('%s must be an integer, not %r' % (field, inv[field]))
        if inv[field] > constants.DB_MAX_INT:
            raise bad('%s must be at most %d' % (field, constants.DB_MAX_INT))
    for field in ('total', 'min_unit', 'max_unit', 'step_size'):
        if inv[field] < 1:
            raise bad('%s must be at least 1, not %d' % (field, inv[field]))
    if inv['reserved'] < 0:
        raise bad('reserved must not be negative')
    if inv['reserved'] > inv['total']:
        raise bad('reserved (%d) is above total (%d)'
                  % (inv['reserved'], inv['total']))
    if inv['min_unit'] > inv['max_unit']:
        raise bad('min_unit (%d) is above max_unit (%d)'
                  % (inv['min_unit'], inv['max_unit']))
    ratio = inv['allocation_ratio']
    if (not isinstance(ratio, (int, float)) or isinstance(ratio, bool)
            or not math.isfinite(ratio) or ratio <= 0):
        raise bad('allocation_ratio must be a positive number, not %r'
                  % (ratio,))
    inv['allocation_ratio'] = float(ratio)
    return inv


def validate_inventories(inventories):
    """{rc_name: record} -> the same with every field filled in (defaults:
    reserved 0, min_unit 1, max_unit total, step_size 1, ratio 1.0).
    Raises InvalidInventory; nothing is written."""
    if not isinstance(inventories, dict):
        raise exception.InvalidInventory(resource_class='-',
                                         reason='inventories must be a '
                                                'mapping')
    return dict((name, _validate_one(name, record))
                for name, record in inventories.items())


def capacity(inv):
    """What allocations may use in total: (total - reserved) * ratio."""
    return int((inv['total'] - inv['reserved']) * inv['allocation_ratio'])


def record(row):
    """An inventory record (dict of INVENTORY_FIELDS) from a result row."""
    return dict((f, getattr(row, f)) for f in INVENTORY_FIELDS)


def _same(a, b):
    return (all(a[f] == b[f] for f in INVENTORY_FIELDS[:-1])
            # FLOAT columns round (MySQL: single precision).
            and math.isclose(a['allocation_ratio'], b['allocation_ratio'],
                             rel_tol=1e-6))


def _inventory_rows(provider_id, inventories, class_ids):
    return [dict(inv, resource_provider_id=provider_id,
                 resource_class_id=class_ids[name])
            for name, inv in inventories.items()]


# --- providers ---------------------------------------------------------------

def create_provider(ctx, uuid, name, inventories):
    """Create a provider and its inventories in one transaction. Returns
    its generation (0). Raises ResourceProviderExists, InvalidInventory."""
    inventories = validate_inventories(inventories)
    class_ids = resource_class_ids(ctx, inventories)

    def once():
        try:
            with placement_db.writing(ctx) as session:
                result = session.execute(RP.insert().values(
                    uuid=uuid, name=name, generation=0,
                    created_at=timeutils.utcnow()))
                placement_db.insert_rows(session, INV, _inventory_rows(
                    result.inserted_primary_key[0], inventories, class_ids))
        except db_exc.DBDuplicateEntry:
            raise exception.ResourceProviderExists(uuid=uuid)
    placement_db.retrying(once, WRITE_RETRIES)
    return 0


def insert_missing_providers(session, wanted, class_ids):
    """In session: the providers of wanted ({uuid: (name, inventories,
    ...)}) whose uuid does not exist yet, with their inventories. Returns
    (new uuids, set of uuids that existed, {new uuid: provider id})."""
    existing = set()
    for part in chunks(wanted):
        existing.update(u for (u,) in session.execute(
            sa.select(RP.c.uuid).where(RP.c.uuid.in_(part))))
    new = [u for u in wanted if u not in existing]
    ids = {}
    if new:
        # executemany: SQLAlchemy batches it into multi-row INSERTs from
        # one cached statement (a VALUES list per call compiles anew,
        # which made migrating 5,000 nodes 3x slower).
        now = timeutils.utcnow()
        session.execute(RP.insert(), [
            {'uuid': u, 'name': wanted[u][0], 'generation': 0,
             'created_at': now} for u in new])
        for part in chunks(new):
            ids.update((u, i) for u, i in session.execute(
                sa.select(RP.c.uuid, RP.c.id).where(RP.c.uuid.in_(part))))
        session.execute(INV.insert(), [
            row for u in new
            for row in _inventory_rows(ids[u], wanted[u][1], class_ids)])
    return new, existing, ids


def create_providers(ctx, providers):
    """Bulk create [(uuid, name, inventories), ...]; providers whose uuid
    exists are skipped. One transaction. Returns {'created': [uuids],
    'existing': [uuids]}. Raises InvalidInventory (naming the provider)
    before writing anything."""
    wanted = {}
    for uuid, name, inventories in providers:
        try:
            wanted[uuid] = (name, validate_inventories(inventories))
        except exception.InvalidInventory as exc:
            raise exception.InvalidInventory(
                resource_class=exc.kwargs.get('resource_class'),
                reason='provider %s: %s' % (uuid, exc.kwargs.get('reason')))
    class_ids = resource_class_ids(
        ctx, set(n for _, invs in wanted.values() for n in invs))

    def once():
        with placement_db.writing(ctx) as session:
            new, existing, _ids = insert_missing_providers(
                session, wanted, class_ids)
            return {'created': new,
                    'existing': [u for u in wanted if u in existing]}
    # A concurrent creator of one of them wins: re-read, skip it.
    return placement_db.retrying(placement_db.duplicates_retry(once), 10)


def delete_provider(ctx, uuid, force=False):
    """Delete a provider and its inventories. Raises ResourceProviderInUse
    while it has allocations (force=True deletes them too),
    ResourceProviderNotFound."""
    def once():
        with placement_db.writing(ctx) as session:
            # Lock the row first: a claim racing us must wait, then finds
            # the generation moved, retries and finds no provider.
            if not session.execute(RP.update().where(RP.c.uuid == uuid).values(
                    generation=RP.c.generation + 1)).rowcount:
                raise exception.ResourceProviderNotFound(uuid=uuid)
            provider_id, in_use = session.execute(
                sa.select(RP.c.id, sa.exists().where(
                    ALLOC.c.resource_provider_id == RP.c.id))
                .where(RP.c.uuid == uuid)).one()
            if in_use and not force:
                raise exception.ResourceProviderInUse(uuid=uuid)
            if in_use:
                # Their consumers' allocations change: move their
                # generations too.
                session.execute(CONSUMER.update().where(
                    CONSUMER.c.uuid.in_(sa.select(ALLOC.c.consumer_id).where(
                        ALLOC.c.resource_provider_id == provider_id)))
                    .values(generation=CONSUMER.c.generation + 1,
                            updated_at=timeutils.utcnow()))
                session.execute(ALLOC.delete().where(
                    ALLOC.c.resource_provider_id == provider_id))
            session.execute(INV.delete().where(
                INV.c.resource_provider_id == provider_id))
            session.execute(RP.delete().where(RP.c.id == provider_id))
    placement_db.retrying(once, WRITE_RETRIES)


def set_inventories(ctx, uuid, inventories, generation=None):
    """Replace the provider's inventories (writing only changed rows) and
    bump its generation; returns the new generation (unchanged if nothing
    changed). With generation given, raises
    ResourceProviderGenerationConflict if it is not current; without,
    retries against concurrent writers. Raises InvalidInventory (nothing
    written), InventoryInUse (removing a class with allocations),
    ResourceProviderNotFound."""
    wanted = validate_inventories(inventories)
    class_ids = resource_class_ids(ctx, wanted)

    def once():
        with placement_db.writing(ctx) as session:
            rows = session.execute(
                sa.select(RP.c.id, RP.c.generation, INV.c.id.label('inv_id'),
                          INV.c.resource_class_id,
                          *[INV.c[f] for f in INVENTORY_FIELDS])
                .select_from(RP.outerjoin(
                    INV, INV.c.resource_provider_id == RP.c.id))
                .where(RP.c.uuid == uuid)).all()
            if not rows:
                raise exception.ResourceProviderNotFound(uuid=uuid)
            provider_id, current = rows[0].id, rows[0].generation
            if generation is not None and generation != current:
                raise exception.ResourceProviderGenerationConflict(
                    uuid=uuid, expected=generation, actual=current)
            have = dict((r.resource_class_id, r) for r in rows
                        if r.inv_id is not None)
            wanted_by_id = dict((class_ids[n], inv)
                                for n, inv in wanted.items())
            removed = [i for i in have if i not in wanted_by_id]
            added = [i for i in wanted_by_id if i not in have]
            changed = [i for i in wanted_by_id if i in have and not _same(
                wanted_by_id[i], record(have[i]))]
            if not (removed or added or changed):
                return current
            if removed:
                busy = [i for (i,) in session.execute(
                    sa.select(ALLOC.c.resource_class_id).distinct().where(
                        ALLOC.c.resource_provider_id == provider_id,
                        ALLOC.c.resource_class_id.in_(removed)))]
                if busy:
                    names = resource_class.names_by_id(ctx, busy)
                    raise exception.InventoryInUse(
                        uuid=uuid, resource_classes=', '.join(
                            sorted(names[i] for i in busy)))
            try:
                bump_generations(session, {provider_id: current})
            except placement_db.GenerationChanged:
                if generation is None:
                    raise    # retried against the new state
                raise exception.ResourceProviderGenerationConflict(
                    uuid=uuid, expected=generation,
                    actual='changed concurrently')
            if removed:
                session.execute(INV.delete().where(
                    INV.c.resource_provider_id == provider_id,
                    INV.c.resource_class_id.in_(removed)))
            if changed:
                session.execute(
                    INV.update().where(INV.c.id == sa.bindparam('inv_id'))
                    .values(dict((f, sa.bindparam('v_' + f))
                                 for f in INVENTORY_FIELDS)),
                    [dict([('inv_id', have[i].inv_id)] +
                          [('v_' + f, wanted_by_id[i][f])
                           for f in INVENTORY_FIELDS]) for i in changed])
            placement_db.insert_rows(session, INV, [
                dict(wanted_by_id[i], resource_provider_id=provider_id,
                     resource_class_id=i) for i in added])
            return current + 1

    def conflict():
        return exception.ResourceProviderGenerationConflict(
            uuid=uuid, expected='-', actual='changed concurrently')
    return placement_db.retrying(once, WRITE_RETRIES, on_conflict=conflict)
