"""Resource providers, their inventories, and allocations (claims).

Plain functions over the API DB (enginefacade), in bulk: one query per
call (per 500 uuids), never one per provider.

Concurrency: every change that can *raise* usage or change capacity
bumps the provider's generation with a guarded
``UPDATE ... WHERE generation = :seen``. A claim reads inventories and
usages of the requested providers in one statement, checks them in
Python, then bumps all their generations in one guarded UPDATE and
inserts the allocations in one multi-row INSERT, in one transaction; if
any generation moved, it rolls back and starts again. So two claims can
never both pass the check against the same usage. Removing allocations
only lowers usage, which cannot invalidate anyone's check, so it bumps
generations unguarded (bump_consumer_providers): still, every change of
a provider's inventories or allocations moves its generation, which lets
readers keep what they read per (provider id, generation)
(compute_inventory's capacity cache). SQLite specifics and the retry
policy: nova_lite.db.api.retrying.

A claim for a consumer that already holds allocations replaces them (as
Placement's PUT /allocations does). Two concurrent claims for the *same*
consumer are not serialised against each other (Placement uses consumer
generations for that); callers claim a consumer from one place.
"""
import math

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.api import models as api_models
from nova_lite.db.api import retrying
from nova_lite import exception
from nova_lite.objects import resource_class

# The public API of this module includes these two.
resource_class_ids = resource_class.resource_class_ids
chunks = retrying.chunks

RP = api_models.ResourceProvider.__table__
RC = api_models.ResourceClass.__table__
INV = api_models.Inventory.__table__
ALLOC = api_models.Allocation.__table__

INVENTORY_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                    'allocation_ratio')
MAX_INT = 2 ** 31 - 1
CLAIM_RETRIES = 50


def _bump_generations(session, seen):
    """Guarded bump of {provider_id: generation seen}; raises
    GenerationChanged unless every provider still had that generation."""
    if not seen:
        return
    match = sa.or_(*[sa.and_(RP.c.id == pid, RP.c.generation == gen)
                     for pid, gen in sorted(seen.items())])
    result = session.execute(
        RP.update().where(match).values(generation=RP.c.generation + 1,
                                        updated_at=timeutils.utcnow()))
    if result.rowcount != len(seen):
        raise retrying.GenerationChanged()


def bump_consumer_providers(session, consumer_id):
    """Unguarded bump of the generations of the providers consumer_id has
    allocations on: run before deleting its allocations."""
    held = sa.select(ALLOC.c.resource_provider_id).where(
        ALLOC.c.consumer_id == consumer_id)
    session.execute(RP.update().where(RP.c.id.in_(held)).values(
        generation=RP.c.generation + 1, updated_at=timeutils.utcnow()))


# --- inventories: validation -------------------------------------------------

def _is_int(value):
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
        if not _is_int(inv[field]):
            raise bad('%s must be an integer, not %r' % (field, inv[field]))
        if inv[field] > MAX_INT:
            raise bad('%s must be at most %d' % (field, MAX_INT))
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


def _record(row):
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
            with retrying.writing(ctx) as session:
                result = session.execute(RP.insert().values(
                    uuid=uuid, name=name, generation=0,
                    created_at=timeutils.utcnow()))
                retrying.insert_rows(session, INV, _inventory_rows(
                    result.inserted_primary_key[0], inventories, class_ids))
        except db_exc.DBDuplicateEntry:
            raise exception.ResourceProviderExists(uuid=uuid)
    retrying.retrying(once, CLAIM_RETRIES)
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
        with retrying.writing(ctx) as session:
            new, existing, _ids = insert_missing_providers(
                session, wanted, class_ids)
            return {'created': new,
                    'existing': [u for u in wanted if u in existing]}
    # A concurrent creator of one of them wins: re-read, skip it.
    return retrying.retrying(retrying.duplicates_retry(once), 10)


def delete_provider(ctx, uuid, force=False):
    """Delete a provider and its inventories. Raises ResourceProviderInUse
    while it has allocations (force=True deletes them too),
    ResourceProviderNotFound."""
    def once():
        with retrying.writing(ctx) as session:
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
                session.execute(ALLOC.delete().where(
                    ALLOC.c.resource_provider_id == provider_id))
            session.execute(INV.delete().where(
                INV.c.resource_provider_id == provider_id))
            session.execute(RP.delete().where(RP.c.id == provider_id))
    retrying.retrying(once, CLAIM_RETRIES)


def get_inventories(ctx, uuids):
    """{uuid: {'generation': g, 'inventories': {rc_name: record}}} for the
    providers that exist (one query per 500 uuids)."""
    found = {}
    rows = []
    with retrying.reading(ctx) as session:
        for part in chunks(set(uuids)):
            rows.extend(session.execute(
                sa.select(RP.c.uuid, RP.c.generation, INV.c.resource_class_id,
                          *[INV.c[f] for f in INVENTORY_FIELDS])
                .select_from(RP.outerjoin(
                    INV, INV.c.resource_provider_id == RP.c.id))
                .where(RP.c.uuid.in_(part))))
    names = resource_class.names_by_id(ctx, set(
        r.resource_class_id for r in rows if r.resource_class_id is not None))
    for row in rows:
        entry = found.setdefault(row.uuid, {'generation': row.generation,
                                            'inventories': {}})
        if row.resource_class_id is not None:
            entry['inventories'][names[row.resource_class_id]] = _record(
                row)
    return found


def get_usages(ctx, uuids):
    """{uuid: {rc_name: used}} for the providers that exist (those without
    allocations map to {}); one query per 500 uuids."""
    rows = []
    with retrying.reading(ctx) as session:
        for part in chunks(set(uuids)):
            rows.extend(session.execute(
                sa.select(RP.c.uuid, ALLOC.c.resource_class_id,
                          sa.func.sum(ALLOC.c.used))
                .select_from(RP.outerjoin(
                    ALLOC, ALLOC.c.resource_provider_id == RP.c.id))
                .where(RP.c.uuid.in_(part))
                .group_by(RP.c.uuid, ALLOC.c.resource_class_id)))
    names = resource_class.names_by_id(
        ctx, set(r[1] for r in rows if r[1] is not None))
    usages = {}
    for uuid, rc_id, used in rows:
        entry = usages.setdefault(uuid, {})
        if rc_id is not None:
            entry[names[rc_id]] = int(used)
    return usages


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
        with retrying.writing(ctx) as session:
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
                wanted_by_id[i], _record(have[i]))]
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
                _bump_generations(session, {provider_id: current})
            except retrying.GenerationChanged:
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
            retrying.insert_rows(session, INV, [
                dict(wanted_by_id[i], resource_provider_id=provider_id,
                     resource_class_id=i) for i in added])
            return current + 1

    def conflict():
        return exception.ResourceProviderGenerationConflict(
            uuid=uuid, expected='-', actual='changed concurrently')
    return retrying.retrying(once, CLAIM_RETRIES, on_conflict=conflict)


# --- allocations -------------------------------------------------------------

def _validate_request(consumer_id, request):
    if not isinstance(consumer_id, str) or not 0 < len(consumer_id) <= 36:
        raise exception.InvalidInput(reason='consumer_id must be a string of '
                                            '1 to 36 characters')
    if not isinstance(request, dict) or not request:
        raise exception.InvalidInput(reason='a claim needs at least one '
                                            'provider')
    for uuid, resources in request.items():
        if not isinstance(resources, dict) or not resources:
            raise exception.InvalidInput(
                reason='no resources requested from provider %s' % uuid)
        for name, amount in resources.items():
            if not _is_int(amount) or not 1 <= amount <= MAX_INT:
                raise exception.InvalidInput(
                    reason='%s amount on provider %s must be a positive '
                           'integer, not %r' % (name, uuid, amount))


def _check_fits(uuid, rc_name, amount, inv, used):
    def refuse(reason):
        return exception.InsufficientResources(
            amount=amount, resource_class=rc_name, provider=uuid,
            reason=reason)
    if inv is None:
        raise refuse('the provider has no %s inventory' % rc_name)
    if amount < inv['min_unit']:
        raise refuse('below min_unit %d' % inv['min_unit'])
    if amount > inv['max_unit']:
        raise refuse('above max_unit %d' % inv['max_unit'])
    if amount % inv['step_size']:
        raise refuse('not a multiple of step_size %d' % inv['step_size'])
    free = capacity(inv) - used
    if amount > free:
        raise refuse('only %d of capacity %d free' % (max(free, 0),
                                                      capacity(inv)))


# Inventories and usage of the requested classes on the requested
# providers, and whether the consumer already holds anything: one read.
_USED = sa.select(sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0)).where(
    ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
    ALLOC.c.resource_class_id == INV.c.resource_class_id).scalar_subquery()
_CLAIM_READ = sa.select(
    RP.c.id, RP.c.uuid, RP.c.generation, INV.c.resource_class_id,
    *[INV.c[f] for f in INVENTORY_FIELDS], _USED.label('used'),
    sa.exists().where(
        ALLOC.c.consumer_id == sa.bindparam('consumer_id')).label('holds'),
).select_from(RP.outerjoin(INV, sa.and_(
    INV.c.resource_provider_id == RP.c.id,
    INV.c.resource_class_id.in_(sa.bindparam('class_ids', expanding=True)))),
).where(RP.c.uuid.in_(sa.bindparam('uuids', expanding=True)))


def _claim_once(ctx, consumer_id, request, class_ids):
    with retrying.writing(ctx) as session:
        rows = session.execute(_CLAIM_READ, {
            'consumer_id': consumer_id, 'uuids': list(request),
            'class_ids': list(set(class_ids.values()))}).all()
        providers, inventory, usage = {}, {}, {}
        for row in rows:
            providers[row.uuid] = (row.id, row.generation)
            if row.resource_class_id is not None:
                key = (row.id, row.resource_class_id)
                inventory[key] = _record(row)
                usage[key] = int(row.used)
        missing = sorted(set(request) - set(providers))
        if missing:
            raise exception.ResourceProviderNotFound(uuid=', '.join(missing))
        replacing = bool(rows) and rows[0].holds
        if replacing:    # the consumer's current allocations are released
            for pid, rc_id, amount in session.execute(
                    sa.select(ALLOC.c.resource_provider_id,
                              ALLOC.c.resource_class_id, ALLOC.c.used)
                    .where(ALLOC.c.consumer_id == consumer_id)):
                if (pid, rc_id) in usage:
                    usage[(pid, rc_id)] -= amount
        allocations = []
        for uuid, resources in sorted(request.items()):
            pid = providers[uuid][0]
            for name, amount in sorted(resources.items()):
                key = (pid, class_ids[name])
                _check_fits(uuid, name, amount, inventory.get(key),
                            usage.get(key, 0))
                allocations.append({'resource_provider_id': pid,
                                    'resource_class_id': class_ids[name],
                                    'consumer_id': consumer_id,
                                    'used': amount})
        _bump_generations(session, dict(providers.values()))
        if replacing:
            session.execute(ALLOC.delete().where(
                ALLOC.c.consumer_id == consumer_id))
        retrying.insert_rows(session, ALLOC, allocations)
        return dict((uuid, gen + 1) for uuid, (_, gen) in providers.items())


def claim(ctx, consumer_id, request, max_retries=CLAIM_RETRIES):
    """Atomically allocate {provider_uuid: {rc_name: amount}} to consumer
    (replacing what it held). Returns {provider_uuid: new generation}.

    Raises InsufficientResources (nothing written) when a resource does
    not fit: capacity (total - reserved) * allocation_ratio, min_unit,
    max_unit, step_size; ResourceProviderNotFound, ResourceClassNotFound,
    InvalidInput. Must not run inside an open API DB transaction (it
    retries whole transactions)."""
    _validate_request(consumer_id, request)
    class_ids = resource_class_ids(
        ctx, set(n for r in request.values() for n in r), create=False)

    def conflict():
        return exception.ResourceProviderGenerationConflict(
            uuid=', '.join(sorted(request)), expected='-',
            actual='changed concurrently %d times' % (max_retries + 1))
    return retrying.retrying(lambda: _claim_once(ctx, consumer_id, request,
                                         class_ids),
                     max_retries, on_conflict=conflict)


def remove_allocations(ctx, consumer_id):
    """Delete every allocation of consumer; returns how many rows went."""
    def once():
        with retrying.writing(ctx) as session:
            bump_consumer_providers(session, consumer_id)
            return session.execute(ALLOC.delete().where(
                ALLOC.c.consumer_id == consumer_id)).rowcount
    return retrying.retrying(once, CLAIM_RETRIES)


def get_allocations(ctx, consumer_id):
    """{provider_uuid: {rc_name: used}} held by consumer (one query)."""
    with retrying.reading(ctx) as session:
        rows = session.execute(
            sa.select(RP.c.uuid, ALLOC.c.resource_class_id, ALLOC.c.used)
            .select_from(ALLOC.join(
                RP, RP.c.id == ALLOC.c.resource_provider_id))
            .where(ALLOC.c.consumer_id == consumer_id)).all()
    names = resource_class.names_by_id(ctx, set(r[1] for r in rows))
    found = {}
    for uuid, rc_id, used in rows:
        found.setdefault(uuid, {})[names[rc_id]] = used
    return found
