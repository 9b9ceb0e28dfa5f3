"""Allocations (claims) and their consumers.

Providers: a write that can raise a provider's usage (claim) reads the
inventories and usage of the providers it allocates from in one
statement, checks them in Python, then bumps all their generations in one
guarded UPDATE and writes the allocations, in one transaction; if any
generation moved it rolls back and starts again, so two claims can never
both pass the check against the same usage. Writes that only lower or
shift usage (remove, move) bump generations unguarded: they cannot
invalidate anyone's check, and every change still moves the generation.

Consumers (Placement microversion 1.28): every write of a consumer's
allocations moves its generation (consumers table). A caller passing a
consumer generation gets ConsumerGenerationConflict unless it is current:
None means "I expect the consumer to be new" (no allocations); a consumer
holding allocations written before consumer generations existed is at 0.
UNCHECKED (the default) writes whatever the generation. After a write the
consumer is at (its generation or 0) + 1; a consumer left with no
allocations loses its record (it is new again).
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite import constants
from nova_lite import exception
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers
from nova_lite.placement import resource_class

RP, ALLOC, INV = providers.RP, providers.ALLOC, providers.INV
CONSUMER = providers.CONSUMER
INVENTORY_FIELDS = providers.INVENTORY_FIELDS
WRITE_RETRIES = providers.WRITE_RETRIES


class _Unchecked(object):
    def __repr__(self):
        return 'UNCHECKED'


UNCHECKED = _Unchecked()    # write whatever the consumer's generation


# --- validation ----------------------------------------------------------

def _validate_consumer(consumer_id, name='consumer_id'):
    if not isinstance(consumer_id, str) or not 0 < len(consumer_id) <= 36:
        raise exception.InvalidInput(reason='%s must be a string of 1 to 36 '
                                            'characters' % name)


def _validate_generation(generation):
    if generation is UNCHECKED or generation is None:
        return
    if not providers.is_int(generation) or generation < 0:
        raise exception.InvalidInput(
            reason='a consumer generation is None or a non-negative '
                   'integer, not %r' % (generation,))


def _validate_owner(project_id, user_id):
    for name, value in (('project_id', project_id), ('user_id', user_id)):
        if value is not None and (not isinstance(value, str)
                                  or not 0 < len(value) <= 255):
            raise exception.InvalidInput(
                reason='%s must be a string of 1 to 255 characters' % name)


def _validate_request(consumer_id, request):
    _validate_consumer(consumer_id)
    if not isinstance(request, dict) or not request:
        raise exception.InvalidInput(reason='a claim needs at least one '
                                            'provider')
    for uuid, resources in request.items():
        if not isinstance(resources, dict) or not resources:
            raise exception.InvalidInput(
                reason='no resources requested from provider %s' % uuid)
        for name, amount in resources.items():
            if not providers.is_int(amount) or \
                    not 1 <= amount <= constants.DB_MAX_INT:
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
    free = providers.capacity(inv) - used
    if amount > free:
        raise refuse('only %d of capacity %d free' % (
            max(free, 0), providers.capacity(inv)))


# --- consumers -------------------------------------------------------------

def _current(generation, holds):
    """A consumer's generation: its record's, else 0 while it holds
    allocations (written before consumer generations), else None (new)."""
    if generation is not None:
        return generation
    return 0 if holds else None


def _check(consumer_id, expected, generation, holds):
    actual = _current(generation, holds)
    if expected is not UNCHECKED and expected != actual:
        raise exception.ConsumerGenerationConflict(
            consumer=consumer_id, expected=_shown(expected),
            actual=_shown(actual))


def _shown(generation):
    return 'none (a new consumer)' if generation is None else generation


def _changed_concurrently(consumer_id, expected):
    if expected is UNCHECKED:
        return placement_db.GenerationChanged()   # re-read, try again
    return exception.ConsumerGenerationConflict(
        consumer=consumer_id, expected=_shown(expected),
        actual='changed concurrently')


def _consumer_states(session, uuids):
    """{uuid: (record generation or None, holds allocations, project_id,
    user_id)}: one query per uuid."""
    states = {}
    for uuid in uuids:
        def field(column):
            return sa.select(column).where(
                CONSUMER.c.uuid == uuid).scalar_subquery()
        generation, project_id, user_id, holds = session.execute(sa.select(
            field(CONSUMER.c.generation), field(CONSUMER.c.project_id),
            field(CONSUMER.c.user_id),
            sa.exists().where(ALLOC.c.consumer_id == uuid))).one()
        states[uuid] = (generation, bool(holds), project_id, user_id)
    return states


_NEW_CONSUMER = CONSUMER.insert()


def _write_consumer(session, consumer_id, generation, expected, project_id,
                    user_id):
    """After changing consumer_id's allocations (it holds some now): its
    record created at 1 or moved one generation on, guarded."""
    if generation is None:
        try:
            session.execute(_NEW_CONSUMER, {
                'uuid': consumer_id, 'project_id': project_id,
                'user_id': user_id, 'generation': 1,
                'created_at': timeutils.utcnow()})
        except db_exc.DBDuplicateEntry:
            raise _changed_concurrently(consumer_id, expected)
        return
    values = {'generation': CONSUMER.c.generation + 1,
              'updated_at': timeutils.utcnow()}
    if project_id is not None:
        values['project_id'] = project_id
    if user_id is not None:
        values['user_id'] = user_id
    if not session.execute(CONSUMER.update().where(
            CONSUMER.c.uuid == consumer_id,
            CONSUMER.c.generation == generation).values(values)).rowcount:
        raise _changed_concurrently(consumer_id, expected)


def _drop_consumer(session, consumer_id, generation, expected):
    """consumer_id holds nothing any more: forget its record, guarded."""
    if generation is None:
        return
    if not session.execute(CONSUMER.delete().where(
            CONSUMER.c.uuid == consumer_id,
            CONSUMER.c.generation == generation)).rowcount:
        raise _changed_concurrently(consumer_id, expected)


def bump_holders_providers(session, consumer_ids, skip=()):
    """Unguarded bump of the providers these consumers allocate from
    (but those of skip: bumped already)."""
    held = sa.select(ALLOC.c.resource_provider_id).where(
        ALLOC.c.consumer_id.in_(consumer_ids))
    where = [RP.c.id.in_(held)]
    if skip:
        where.append(RP.c.id.not_in(list(skip)))
    session.execute(RP.update().where(*where).values(
        generation=RP.c.generation + 1, updated_at=timeutils.utcnow()))


def _hand_over(session, source, target, skip=()):
    """source's allocations become target's (target's own ones go)."""
    bump_holders_providers(session, [source, target], skip)
    session.execute(ALLOC.delete().where(ALLOC.c.consumer_id == target))
    session.execute(ALLOC.update().where(ALLOC.c.consumer_id == source)
                    .values(consumer_id=target))


# --- claims ----------------------------------------------------------------

# Inventories and usage of the requested classes on the requested
# providers, the part of that usage a replaced consumer ('released': the
# claiming consumer, or move_to) holds, whether the consumer holds
# anything and its generation: one read.
def _used(*where):
    return sa.select(sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0)).where(
        ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
        ALLOC.c.resource_class_id == INV.c.resource_class_id,
        *where).scalar_subquery()


_CLAIM_READ = sa.select(
    RP.c.id, RP.c.uuid, RP.c.generation, INV.c.resource_class_id,
    *[INV.c[f] for f in INVENTORY_FIELDS], _used().label('used'),
    _used(ALLOC.c.consumer_id == sa.bindparam('released')).label(
        'released'),
    sa.exists().where(
        ALLOC.c.consumer_id == sa.bindparam('consumer_id')).label('holds'),
    sa.select(CONSUMER.c.generation).where(
        CONSUMER.c.uuid == sa.bindparam('consumer_id')).scalar_subquery()
    .label('consumer_generation'),
).select_from(RP.outerjoin(INV, sa.and_(
    INV.c.resource_provider_id == RP.c.id,
    INV.c.resource_class_id.in_(sa.bindparam('class_ids', expanding=True)))),
).where(RP.c.uuid.in_(sa.bindparam('uuids', expanding=True)))


class _Claim(object):
    """One claim's arguments (validated), run by once() per attempt."""

    def __init__(self, ctx, consumer_id, request, class_ids, expected,
                 owner, move_to, move_to_expected):
        self.ctx, self.consumer_id, self.request = ctx, consumer_id, request
        self.class_ids, self.expected, self.owner = class_ids, expected, owner
        self.move_to, self.move_to_expected = move_to, move_to_expected

    def once(self):
        with placement_db.writing(self.ctx) as session:
            return self._write(session)

    def _write(self, session):
        consumer_id, request, class_ids = (self.consumer_id, self.request,
                                           self.class_ids)
        rows = session.execute(_CLAIM_READ, {
            'consumer_id': consumer_id, 'uuids': list(request),
            'class_ids': list(set(class_ids.values())),
            'released': self.move_to or consumer_id}).all()
        found, inventory, usage, released = {}, {}, {}, {}
        for row in rows:
            found[row.uuid] = (row.id, row.generation)
            if row.resource_class_id is not None:
                key = (row.id, row.resource_class_id)
                inventory[key] = providers.record(row)
                usage[key] = int(row.used)
                released[key] = int(row.released)
        missing = sorted(set(request) - set(found))
        if missing:
            raise exception.ResourceProviderNotFound(uuid=', '.join(missing))
        holds, generation = rows[0].holds, rows[0].consumer_generation
        _check(consumer_id, self.expected, generation, holds)
        target = None
        if self.move_to is not None:
            states = _consumer_states(session, [consumer_id, self.move_to])
            target = states[self.move_to]
            _check(self.move_to, self.move_to_expected, *target[:2])
            # What moves keeps its owner: given, else the consumer's own.
            owner = _owner_of(self.owner, states[consumer_id])
        # Replaced allocations no longer count: the consumer's own (when
        # it holds some), or move_to's (when the consumer's move there).
        if holds and (target is None or target[1]):
            for key, amount in released.items():
                usage[key] -= amount
        allocations = []
        for uuid, resources in sorted(request.items()):
            pid = found[uuid][0]
            for name, amount in sorted(resources.items()):
                key = (pid, class_ids[name])
                _check_fits(uuid, name, amount, inventory.get(key),
                            usage.get(key, 0))
                allocations.append({'resource_provider_id': pid,
                                    'resource_class_id': class_ids[name],
                                    'consumer_id': consumer_id,
                                    'used': amount})
        providers.bump_generations(session, dict(found.values()))
        if holds and target is not None:
            _hand_over(session, consumer_id, self.move_to,
                       skip=[pid for pid, _ in found.values()])
            _write_consumer(session, self.move_to, target[0],
                            self.move_to_expected, *owner)
        elif holds:
            session.execute(ALLOC.delete().where(
                ALLOC.c.consumer_id == consumer_id))
        placement_db.insert_rows(session, ALLOC, allocations)
        _write_consumer(session, consumer_id, generation, self.expected,
                        *self.owner)
        return dict((uuid, gen + 1) for uuid, (_, gen) in found.items())


def _owner_of(owner, state):
    """(project_id, user_id): as given, else the consumer's own."""
    return (owner[0] or state[2], owner[1] or state[3])


def claim(ctx, consumer_id, request, consumer_generation=UNCHECKED,
          project_id=None, user_id=None, move_to=None,
          move_to_generation=UNCHECKED, max_retries=WRITE_RETRIES):
    """Atomically allocate {provider_uuid: {rc_name: amount}} to consumer.
    Returns {provider_uuid: new generation}.

    Without move_to the request replaces what the consumer held (as
    Placement's PUT /allocations). With move_to (e.g. a migration record)
    the consumer's current allocations become move_to's (replacing what
    move_to held) and still count when the request is checked: a resize
    claiming the destination while the source stays held, all or nothing.

    Raises InsufficientResources (nothing written) when a resource does
    not fit: capacity (total - reserved) * allocation_ratio, min_unit,
    max_unit, step_size; ConsumerGenerationConflict (see the module
    docstring; either consumer); ResourceProviderNotFound,
    ResourceClassNotFound, InvalidInput.
    """
    _validate_request(consumer_id, request)
    _validate_generation(consumer_generation)
    _validate_owner(project_id, user_id)
    if move_to is not None:
        _validate_consumer(move_to, 'move_to')
        _validate_generation(move_to_generation)
        if move_to == consumer_id:
            raise exception.InvalidInput(reason='a consumer cannot move its '
                                                'allocations to itself')
    class_ids = resource_class.resource_class_ids(
        ctx, set(n for r in request.values() for n in r), create=False)
    work = _Claim(ctx, consumer_id, request, class_ids, consumer_generation,
                  (project_id, user_id), move_to, move_to_generation)

    def conflict():
        return exception.ResourceProviderGenerationConflict(
            uuid=', '.join(sorted(request)), expected='-',
            actual='changed concurrently %d times' % (max_retries + 1))
    return placement_db.retrying(work.once, max_retries,
                                 on_conflict=conflict)


def move_allocations(ctx, source, target, source_generation=UNCHECKED,
                     target_generation=UNCHECKED, project_id=None,
                     user_id=None):
    """Give target (e.g. a migration record) every allocation source holds,
    replacing target's own, in one transaction; source is left with none.
    Returns what moved, {provider_uuid: {rc_name: used}} ({} when source
    held nothing: then nothing changes). target's project and user are
    the given ones, else source's. Raises ConsumerGenerationConflict
    (either consumer), InvalidInput."""
    _validate_consumer(source, 'source')
    _validate_consumer(target, 'target')
    _validate_generation(source_generation)
    _validate_generation(target_generation)
    _validate_owner(project_id, user_id)
    if source == target:
        raise exception.InvalidInput(reason='a consumer cannot move its '
                                            'allocations to itself')

    def once():
        with placement_db.writing(ctx) as session:
            states = _consumer_states(session, [source, target])
            _check(source, source_generation, *states[source][:2])
            _check(target, target_generation, *states[target][:2])
            moved = _read_allocations(session, source)
            if not moved:
                return {}
            _hand_over(session, source, target)
            _drop_consumer(session, source, states[source][0],
                           source_generation)
            _write_consumer(session, target, states[target][0],
                            target_generation,
                            *_owner_of((project_id, user_id),
                                       states[source]))
            return moved
    return _named(ctx, placement_db.retrying(once, WRITE_RETRIES))


def remove_allocations(ctx, consumer_id, consumer_generation=UNCHECKED):
    """Delete every allocation of consumer (and its record); returns how
    many rows went. Raises ConsumerGenerationConflict, InvalidInput."""
    _validate_generation(consumer_generation)

    def once():
        with placement_db.writing(ctx) as session:
            if consumer_generation is UNCHECKED:
                session.execute(CONSUMER.delete().where(
                    CONSUMER.c.uuid == consumer_id))
            else:
                state = _consumer_states(session, [consumer_id])[consumer_id]
                _check(consumer_id, consumer_generation, *state[:2])
                _drop_consumer(session, consumer_id, state[0],
                               consumer_generation)
            bump_holders_providers(session, [consumer_id])
            return session.execute(ALLOC.delete().where(
                ALLOC.c.consumer_id == consumer_id)).rowcount
    return placement_db.retrying(once, WRITE_RETRIES)


def _read_allocations(session, consumer_id):
    """{provider_uuid: {class id: used}} held by consumer (one query)."""
    found = {}
    for uuid, rc_id, used in session.execute(
            sa.select(RP.c.uuid, ALLOC.c.resource_class_id, ALLOC.c.used)
            .select_from(ALLOC.join(
                RP, RP.c.id == ALLOC.c.resource_provider_id))
            .where(ALLOC.c.consumer_id == consumer_id)):
        found.setdefault(uuid, {})[rc_id] = used
    return found


def _named(ctx, by_id):
    names = resource_class.names_by_id(
        ctx, set(i for resources in by_id.values() for i in resources))
    return dict((uuid, dict((names[i], used) for i, used in res.items()))
                for uuid, res in by_id.items())


def get_allocations(ctx, consumer_id):
    """{provider_uuid: {rc_name: used}} held by consumer (one query)."""
    with placement_db.reading(ctx) as session:
        found = _read_allocations(session, consumer_id)
    return _named(ctx, found)


def get_consumer(ctx, consumer_id):
    """{'allocations': as get_allocations, 'generation': the consumer's
    (None: new), 'project_id', 'user_id'}: what a writer passes back."""
    with placement_db.reading(ctx) as session:
        found = _read_allocations(session, consumer_id)
        generation, _holds, project_id, user_id = _consumer_states(
            session, [consumer_id])[consumer_id]
    return {'allocations': _named(ctx, found),
            'generation': _current(generation, bool(found)),
            'project_id': project_id, 'user_id': user_id}
