"""nova_lite.placement consumers: generations (Placement 1.28 semantics),
moving allocations between consumers, and claiming a destination while
the source moves to a migration record (resize), all-or-nothing. API DB
on SQLite; concurrent writers in separate processes."""
import uuid as uuid_lib

import pytest
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import capacity
from nova_lite.placement import providers
from tests import claim_race

INVS = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 8192},
        'DISK_GB': {'total': 100}}
FLAVOR = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}
BIGGER = {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 40}
INSTANCE = 'inst-0000-0000-0000-000000000001'
MIGRATION = 'migr-0000-0000-0000-000000000001'


def new_uuid():
    return str(uuid_lib.uuid4())


@pytest.fixture
def ctx(cells_env):
    return cells_env.ctxt


@pytest.fixture
def source(ctx):
    uuid = new_uuid()
    providers.create_provider(ctx, uuid, 'source', INVS)
    return uuid


@pytest.fixture
def dest(ctx):
    uuid = new_uuid()
    providers.create_provider(ctx, uuid, 'dest', INVS)
    return uuid


def usage(ctx, uuid):
    return capacity.read(ctx, [uuid])[uuid]['usages']


def consumer_rows():
    table = providers.CONSUMER
    with api_db.get_engine().connect() as conn:
        return dict((r.uuid, r.generation) for r in conn.execute(
            sa.select(table.c.uuid, table.c.generation)))


def held(ctx, consumer):
    return allocations.get_allocations(ctx, consumer)


# --- generations ---------------------------------------------------------

def test_none_means_a_new_consumer(ctx, source):
    assert allocations.get_consumer(ctx, INSTANCE)['generation'] is None
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None, project_id='p1',
                      user_id='u1')
    consumer = allocations.get_consumer(ctx, INSTANCE)
    assert consumer == {'allocations': {source: FLAVOR}, 'generation': 1,
                        'project_id': 'p1', 'user_id': 'u1'}
    # It is not new any more.
    with pytest.raises(exception.ConsumerGenerationConflict) as err:
        allocations.claim(ctx, INSTANCE, {source: BIGGER},
                          consumer_generation=None)
    assert 'expected none (a new consumer)' in str(err.value)
    assert held(ctx, INSTANCE) == {source: FLAVOR}


def test_a_stale_generation_is_a_conflict_and_writes_nothing(ctx, source):
    """Two writers read generation 1; the first writes (2), the second,
    still at 1, gets a conflict and changes nothing."""
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None)
    first = allocations.get_consumer(ctx, INSTANCE)['generation']
    second = allocations.get_consumer(ctx, INSTANCE)['generation']
    allocations.claim(ctx, INSTANCE, {source: BIGGER},
                      consumer_generation=first)
    generation = capacity.read(ctx, [source])[source]['generation']
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, INSTANCE, {source: {'VCPU': 1}},
                          consumer_generation=second)
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.remove_allocations(ctx, INSTANCE,
                                       consumer_generation=second)
    assert held(ctx, INSTANCE) == {source: BIGGER}
    assert allocations.get_consumer(ctx, INSTANCE)['generation'] == 2
    assert capacity.read(ctx, [source])[source]['generation'] == generation
    # An existing consumer is not new either, and a new one has no
    # generation to match.
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, 'someone-else', {source: FLAVOR},
                          consumer_generation=0)


def test_unchecked_writes_move_the_generation_too(ctx, source):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR})
    allocations.claim(ctx, INSTANCE, {source: BIGGER})
    assert allocations.get_consumer(ctx, INSTANCE)['generation'] == 2
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                          consumer_generation=1)


def test_removing_every_allocation_makes_the_consumer_new_again(ctx, source):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None)
    assert allocations.remove_allocations(ctx, INSTANCE,
                                          consumer_generation=1) == 3
    assert INSTANCE not in consumer_rows()
    assert allocations.get_consumer(ctx, INSTANCE)['generation'] is None
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None)
    allocations.remove_allocations(ctx, INSTANCE)    # unchecked
    assert consumer_rows() == {} and held(ctx, INSTANCE) == {}


def test_allocations_without_a_record_are_generation_0(ctx, source):
    """Allocations written before consumer generations existed have no
    consumers row: such a consumer is at 0, not new."""
    allocations.claim(ctx, INSTANCE, {source: FLAVOR})
    with api_db.get_engine().begin() as conn:
        conn.execute(providers.CONSUMER.delete())
    assert allocations.get_consumer(ctx, INSTANCE)['generation'] == 0
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, INSTANCE, {source: BIGGER},
                          consumer_generation=None)
    allocations.claim(ctx, INSTANCE, {source: BIGGER},
                      consumer_generation=0)
    assert consumer_rows() == {INSTANCE: 1}


def test_concurrent_writers_for_one_new_consumer_are_serialised(
        ctx, source, cells_env):
    """8 processes each try to create the same consumer's allocations,
    all expecting it new: exactly one wins, the others get a clean
    conflict (no error, no second set of allocations)."""
    outcomes = claim_race.race(cells_env.api_url, {source: {'VCPU': 1}},
                               [INSTANCE] * 16, consumer_generation=None)
    kinds = sorted(o[0] for o in outcomes)
    assert kinds == ['conflict'] * 15 + ['ok'], outcomes
    assert held(ctx, INSTANCE) == {source: {'VCPU': 1}}
    assert consumer_rows() == {INSTANCE: 1}


# --- moves ---------------------------------------------------------------

def test_move_gives_the_target_every_allocation(ctx, source, dest):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR, dest: {'VCPU': 1}},
                      consumer_generation=None, project_id='p1',
                      user_id='u1')
    before = capacity.read(ctx, [source, dest])
    moved = allocations.move_allocations(ctx, INSTANCE, MIGRATION,
                                         source_generation=1,
                                         target_generation=None)
    assert moved == {source: FLAVOR, dest: {'VCPU': 1}}
    assert held(ctx, INSTANCE) == {}
    assert held(ctx, MIGRATION) == moved
    assert allocations.get_consumer(ctx, MIGRATION) == {
        'allocations': moved, 'generation': 1, 'project_id': 'p1',
        'user_id': 'u1'}
    assert consumer_rows() == {MIGRATION: 1}
    after = capacity.read(ctx, [source, dest])
    for uuid in (source, dest):
        assert after[uuid]['usages'] == before[uuid]['usages']
        assert after[uuid]['generation'] == before[uuid]['generation'] + 1
    # Nothing left to move: nothing changes.
    assert allocations.move_allocations(ctx, INSTANCE, MIGRATION) == {}
    assert consumer_rows() == {MIGRATION: 1}


def test_a_move_with_a_stale_generation_changes_nothing(ctx, source):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None)
    allocations.claim(ctx, MIGRATION, {source: {'VCPU': 1}},
                      consumer_generation=None)
    for kwargs in ({'source_generation': 0}, {'target_generation': None},
                   {'target_generation': 2}):
        with pytest.raises(exception.ConsumerGenerationConflict):
            allocations.move_allocations(ctx, INSTANCE, MIGRATION, **kwargs)
    assert held(ctx, INSTANCE) == {source: FLAVOR}
    assert held(ctx, MIGRATION) == {source: {'VCPU': 1}}
    # The target's own allocations are replaced.
    allocations.move_allocations(ctx, INSTANCE, MIGRATION,
                                 source_generation=1, target_generation=1)
    assert held(ctx, MIGRATION) == {source: FLAVOR}
    assert usage(ctx, source) == FLAVOR
    assert consumer_rows() == {MIGRATION: 2}


# --- claim on a destination while the source moves (resize) -------------

def test_resize_claim_holds_source_and_destination(ctx, source, dest):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None, project_id='p1',
                      user_id='u1')
    generations = allocations.claim(
        ctx, INSTANCE, {dest: BIGGER}, consumer_generation=1,
        move_to=MIGRATION, move_to_generation=None)
    assert generations == {
        dest: capacity.read(ctx, [dest])[dest]['generation']}
    assert held(ctx, INSTANCE) == {dest: BIGGER}
    assert held(ctx, MIGRATION) == {source: FLAVOR}
    assert usage(ctx, source) == FLAVOR and usage(ctx, dest) == BIGGER
    assert consumer_rows() == {INSTANCE: 2, MIGRATION: 1}
    migration = allocations.get_consumer(ctx, MIGRATION)
    assert (migration['project_id'], migration['user_id']) == ('p1', 'u1')
    # Confirm: the migration's allocations go.
    allocations.remove_allocations(ctx, MIGRATION, consumer_generation=1)
    assert usage(ctx, source) == {}
    assert consumer_rows() == {INSTANCE: 2}


def test_revert_moves_the_source_back(ctx, source, dest):
    allocations.claim(ctx, INSTANCE, {source: FLAVOR})
    allocations.claim(ctx, INSTANCE, {dest: BIGGER}, move_to=MIGRATION)
    allocations.move_allocations(ctx, MIGRATION, INSTANCE,
                                 source_generation=1, target_generation=2)
    assert held(ctx, INSTANCE) == {source: FLAVOR}
    assert held(ctx, MIGRATION) == {}
    assert usage(ctx, dest) == {} and usage(ctx, source) == FLAVOR
    assert consumer_rows() == {INSTANCE: 3}


def test_resize_to_the_same_host_counts_both(ctx, source):
    """The moved allocations still count: 8 VCPU host, 2 held, 4 more
    fit, 8 more do not -- and then nothing moved."""
    allocations.claim(ctx, INSTANCE, {source: FLAVOR})
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, INSTANCE, {source: dict(BIGGER, VCPU=8)},
                          move_to=MIGRATION)
    assert held(ctx, INSTANCE) == {source: FLAVOR}
    assert held(ctx, MIGRATION) == {}
    allocations.claim(ctx, INSTANCE, {source: BIGGER}, move_to=MIGRATION)
    assert usage(ctx, source) == {'VCPU': 6, 'MEMORY_MB': 6144,
                                  'DISK_GB': 60}


def test_a_failed_resize_claim_changes_nothing(ctx, source, dest):
    """All or nothing: a destination without room, or a stale generation
    of either consumer, leaves both consumers and providers as they
    were."""
    allocations.claim(ctx, INSTANCE, {source: FLAVOR},
                      consumer_generation=None)
    allocations.claim(ctx, 'filler', {dest: {'VCPU': 7}})
    before = capacity.read(ctx, [source, dest])
    rows = consumer_rows()
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, INSTANCE, {dest: FLAVOR}, move_to=MIGRATION)
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, INSTANCE, {dest: {'VCPU': 1}},
                          consumer_generation=0, move_to=MIGRATION)
    with pytest.raises(exception.ConsumerGenerationConflict):
        allocations.claim(ctx, INSTANCE, {dest: {'VCPU': 1}},
                          move_to=MIGRATION, move_to_generation=3)
    assert capacity.read(ctx, [source, dest]) == before
    assert consumer_rows() == rows
    assert held(ctx, INSTANCE) == {source: FLAVOR}
    assert held(ctx, MIGRATION) == {}
