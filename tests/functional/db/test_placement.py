"""nova_lite.placement: providers, inventories, capacity reads and claims
on the API DB (SQLite)."""
import contextlib
import uuid as uuid_lib

import os_resource_classes as orc
import pytest
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import capacity
from nova_lite.placement import providers as rp
from nova_lite.placement import resource_class
from tests import claim_race
from tests import placement_helpers as helpers

INVS = {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
        'MEMORY_MB': {'total': 16384, 'reserved': 512},
        'DISK_GB': {'total': 100, 'max_unit': 50, 'step_size': 5}}
FLAVOR = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}


def new_uuid():
    return str(uuid_lib.uuid4())


@contextlib.contextmanager
def counted():
    """Collect the SQL statements sent to the API DB."""
    statements = []
    engines = api_db.get_engines()

    def record(conn, cursor, statement, *args):
        statements.append(statement)
    for engine in engines:
        sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        yield statements
    finally:
        for engine in engines:
            sa.event.remove(engine, 'before_cursor_execute', record)


def table_rows(table):
    with api_db.get_engine().connect() as conn:
        return [dict(r._mapping) for r in conn.execute(sa.select(table))]


def generation_of(ctx, uuid):
    return capacity.read(ctx, [uuid])[uuid]['generation']


@pytest.fixture
def ctx(cells_env):
    return cells_env.ctxt


@pytest.fixture
def provider(ctx):
    uuid = new_uuid()
    rp.create_provider(ctx, uuid, 'node-1', INVS)
    return uuid


# --- resource classes --------------------------------------------------------

def test_standard_classes_are_synced_with_fixed_ids(ctx):
    ids = rp.resource_class_ids(ctx)
    assert ids == dict((n, i + 1) for i, n in enumerate(orc.STANDARDS))
    assert sorted(r['name'] for r in table_rows(rp.RC)) == sorted(
        orc.STANDARDS)


def test_class_ids_are_cached_per_process(ctx):
    rp.resource_class_ids(ctx)
    with counted() as statements:
        assert rp.resource_class_ids(ctx, ['VCPU', 'DISK_GB']) == {
            'VCPU': 1, 'DISK_GB': 3}
    assert statements == []


def test_custom_class_is_created_once_above_the_standard_range(ctx):
    first = rp.resource_class_ids(ctx, ['CUSTOM_GOLD'])['CUSTOM_GOLD']
    second = rp.resource_class_ids(ctx, ['CUSTOM_SILVER', 'CUSTOM_GOLD'])
    assert first == resource_class.CUSTOM_ID_BASE
    assert second == {'CUSTOM_SILVER': first + 1, 'CUSTOM_GOLD': first}
    resource_class._cache.clear()    # another process sees the same ids
    assert rp.resource_class_ids(ctx, ['CUSTOM_SILVER']) == {
        'CUSTOM_SILVER': first + 1}


@pytest.mark.parametrize('name', ['BOGUS', 'CUSTOM_lower', 'custom_x'])
def test_unknown_non_custom_class_is_refused(ctx, name):
    with pytest.raises(exception.ResourceClassNotFound):
        rp.resource_class_ids(ctx, [name])
    assert name not in rp.resource_class_ids(ctx)


# --- providers and inventories -----------------------------------------------

def test_create_provider_fills_defaults(ctx, provider):
    found = helpers.get_inventories(ctx, [provider, new_uuid()])
    assert list(found) == [provider]
    assert found[provider]['generation'] == 0
    assert found[provider]['inventories'] == {
        'VCPU': {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
                 'step_size': 1, 'allocation_ratio': 4.0},
        'MEMORY_MB': {'total': 16384, 'reserved': 512, 'min_unit': 1,
                      'max_unit': 16384, 'step_size': 1,
                      'allocation_ratio': 1.0},
        'DISK_GB': {'total': 100, 'reserved': 0, 'min_unit': 1,
                    'max_unit': 50, 'step_size': 5, 'allocation_ratio': 1.0}}


def test_create_existing_uuid_raises_and_writes_nothing(ctx, provider):
    with pytest.raises(exception.ResourceProviderExists):
        rp.create_provider(ctx, provider, 'other', {'VCPU': {'total': 1}})
    assert len(table_rows(rp.RP)) == 1
    assert len(table_rows(rp.INV)) == 3


@pytest.mark.parametrize('record,reason', [
    ({'total': 4, 'allocation_ratio': -1.0}, 'allocation_ratio'),
    ({'total': 4, 'allocation_ratio': 0}, 'allocation_ratio'),
    ({'total': 4, 'reserved': 5}, 'reserved (5) is above total (4)'),
    ({'total': 4, 'reserved': -1}, 'reserved must not be negative'),
    ({'total': 0}, 'total must be at least 1'),
    ({'total': 4, 'min_unit': 3, 'max_unit': 2}, 'min_unit (3)'),
    ({'total': 4, 'step_size': 0}, 'step_size'),
    ({'total': '4'}, 'total must be an integer'),
    ({'total': True}, 'total must be an integer'),
    ({'reserved': 1}, 'total is required'),
    ({'total': 4, 'color': 'red'}, 'unknown fields color'),
])
def test_invalid_inventory_is_refused_before_writing(ctx, record, reason):
    uuid = new_uuid()
    with pytest.raises(exception.InvalidInventory) as err:
        rp.create_provider(ctx, uuid, 'n', {'VCPU': {'total': 2},
                                            'DISK_GB': record})
    assert reason in str(err.value) and 'DISK_GB' in str(err.value)
    assert helpers.get_inventories(ctx, [uuid]) == {}


def test_create_providers_in_bulk_skips_existing(ctx, provider):
    items = [(new_uuid(), 'n%d' % i, {'VCPU': {'total': i + 1}})
             for i in range(300)]
    with counted() as statements:
        done = rp.create_providers(ctx, items + [(provider, 'x', INVS)])
    assert done['existing'] == [provider]
    assert sorted(done['created']) == sorted(u for u, _, _ in items)
    # select existing, insert providers, read their ids, insert inventories
    # (+ BEGIN): constant, not per provider.
    assert len(statements) <= 8, statements
    found = helpers.get_inventories(ctx, [u for u, _, _ in items])
    assert [found[u]['inventories']['VCPU']['total'] for u, _, _ in items] \
        == list(range(1, 301))
    again = rp.create_providers(ctx, items[:2])
    assert again == {'created': [], 'existing': [u for u, _, _ in items[:2]]}


def test_create_providers_with_one_invalid_writes_nothing(ctx):
    good, bad = new_uuid(), new_uuid()
    with pytest.raises(exception.InvalidInventory) as err:
        rp.create_providers(ctx, [(good, 'g', {'VCPU': {'total': 1}}),
                                  (bad, 'b', {'VCPU': {'total': -1}})])
    assert bad in str(err.value)
    assert table_rows(rp.RP) == []


def test_set_inventories_writes_changed_rows_and_bumps_generation(
        ctx, provider):
    before = dict((r['resource_class_id'], r) for r in table_rows(rp.INV))
    new = dict(INVS, VCPU={'total': 16, 'allocation_ratio': 4.0},
               CUSTOM_GPU={'total': 2})
    del new['DISK_GB']
    assert rp.set_inventories(ctx, provider, new) == 1
    after = dict((r['resource_class_id'], r) for r in table_rows(rp.INV))
    ids = rp.resource_class_ids(ctx)
    assert after[ids['MEMORY_MB']] == before[ids['MEMORY_MB']]  # untouched
    assert after[ids['VCPU']]['id'] == before[ids['VCPU']]['id']
    assert after[ids['VCPU']]['total'] == 16
    assert ids['DISK_GB'] not in after
    found = helpers.get_inventories(ctx, [provider])[provider]
    assert found['generation'] == 1
    assert set(found['inventories']) == {'VCPU', 'MEMORY_MB', 'CUSTOM_GPU'}


def test_set_same_inventories_does_not_bump(ctx, provider):
    with counted() as statements:
        assert rp.set_inventories(ctx, provider, INVS) == 0
    assert not [s for s in statements if s.lstrip().upper().startswith(
        ('UPDATE', 'INSERT', 'DELETE'))]


def test_set_inventories_with_stale_generation_conflicts(ctx, provider):
    assert rp.set_inventories(ctx, provider, {'VCPU': {'total': 4}},
                              generation=0) == 1
    with pytest.raises(exception.ResourceProviderGenerationConflict):
        rp.set_inventories(ctx, provider, {'VCPU': {'total': 2}},
                           generation=0)
    assert helpers.get_inventories(ctx, [provider])[provider] == {
        'generation': 1, 'inventories': {'VCPU': {
            'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
            'step_size': 1, 'allocation_ratio': 1.0}}}


def test_set_invalid_inventories_writes_nothing(ctx, provider):
    with pytest.raises(exception.InvalidInventory):
        rp.set_inventories(ctx, provider, dict(INVS, VCPU={
            'total': 8, 'allocation_ratio': -2.0}))
    assert generation_of(ctx, provider) == 0
    assert helpers.get_inventories(ctx, [provider])[provider]['inventories'][
        'VCPU']['allocation_ratio'] == 4.0


def test_removing_inventory_in_use_is_refused(ctx, provider):
    allocations.claim(ctx, 'c1', {provider: {'DISK_GB': 10}})
    without_disk = dict(INVS)
    del without_disk['DISK_GB']
    with pytest.raises(exception.InventoryInUse):
        rp.set_inventories(ctx, provider, without_disk)
    assert 'DISK_GB' in helpers.get_inventories(ctx, [provider])[provider][
        'inventories']
    allocations.remove_allocations(ctx, 'c1')
    # Generations: 1 after the claim, 2 after the removal, 3 now.
    assert rp.set_inventories(ctx, provider, without_disk) == 3


def test_every_change_of_allocations_moves_the_generation(ctx, provider):
    """Readers cache capacity per (provider id, generation)
    (placement.capacity): removals move it too."""
    generation = generation_of(ctx, provider)
    assert allocations.claim(ctx, 'c1', {provider: {'VCPU': 1}}) == {
        provider: generation + 1}
    allocations.remove_allocations(ctx, 'c1')
    assert generation_of(ctx, provider) == \
        generation + 2
    allocations.remove_allocations(ctx, 'c1')  # nothing held: nothing moves
    assert generation_of(ctx, provider) == \
        generation + 2


def test_set_inventories_of_unknown_provider_is_not_found(ctx):
    with pytest.raises(exception.ResourceProviderNotFound):
        rp.set_inventories(ctx, new_uuid(), INVS)


def test_reads_for_100_providers_are_one_query_each(ctx):
    """capacity.read is the one reader: inventories and usages of 100
    providers in one capacity query (after one for their classes); read
    again, only their generations are looked up."""
    items = [(new_uuid(), 'n', INVS) for _ in range(100)]
    rp.create_providers(ctx, items)
    uuids = [u for u, _, _ in items]
    for u in uuids[:50]:
        allocations.claim(ctx, u, {u: FLAVOR})
    capacity.clear_cache()
    with counted() as statements:
        found = capacity.read(ctx, uuids)
    selects = [s for s in statements if s.startswith('SELECT')]
    assert len(selects) == 2, statements
    assert len(found) == 100
    assert found[uuids[0]]['usages'] == FLAVOR
    assert found[uuids[-1]]['usages'] == {}
    assert found[uuids[-1]]['inventories'] == rp.validate_inventories(INVS)
    with counted() as statements:
        assert capacity.read(ctx, uuids) == found
    selects = [s for s in statements if s.startswith('SELECT')]
    assert len(selects) == 2, statements
    assert 'sum(' not in ' '.join(statements).lower()


def test_delete_provider(ctx, provider):
    allocations.claim(ctx, 'c1', {provider: {'VCPU': 1}})
    with pytest.raises(exception.ResourceProviderInUse):
        rp.delete_provider(ctx, provider)
    assert helpers.get_inventories(ctx, [provider])
    rp.delete_provider(ctx, provider, force=True)
    assert helpers.get_inventories(ctx, [provider]) == {}
    assert table_rows(rp.INV) == [] and table_rows(rp.ALLOC) == []
    with pytest.raises(exception.ResourceProviderNotFound):
        rp.delete_provider(ctx, provider)


# --- claims ------------------------------------------------------------------

def test_claim_fits_and_records_allocations(ctx, provider):
    with counted() as statements:
        generations = allocations.claim(ctx, 'vm-1', {provider: FLAVOR})
    assert generations == {provider: 1}
    # One read, one guarded UPDATE, one INSERT of the allocations, one of
    # the (new) consumer; on SQLite the writer's BEGIN IMMEDIATE is
    # nova_lite.db.sqlite's, below SQLAlchemy's cursor.
    assert [s.split()[0] for s in statements] == [
        'SELECT', 'UPDATE', 'INSERT', 'INSERT'], statements
    assert allocations.get_allocations(ctx, 'vm-1') == {provider: FLAVOR}
    assert helpers.get_usages(ctx, [provider]) == {provider: FLAVOR}
    assert generation_of(ctx, provider) == 1


def test_capacity_counts_ratio_and_reserved(ctx, provider):
    # VCPU capacity (8 - 0) * 4.0 = 32; MEMORY_MB 16384 - 512 = 15872.
    for i in range(16):
        allocations.claim(ctx, 'vm-%d' % i, {provider: {'VCPU': 2}})
    with pytest.raises(exception.InsufficientResources) as err:
        allocations.claim(ctx, 'vm-x', {provider: {'VCPU': 1}})
    assert err.value.code == 409
    assert 'only 0 of capacity 32 free' in str(err.value)
    allocations.claim(ctx, 'm1', {provider: {'MEMORY_MB': 15000}})
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, 'm2', {provider: {'MEMORY_MB': 873}})
    allocations.claim(ctx, 'm2', {provider: {'MEMORY_MB': 872}})


@pytest.mark.parametrize('amount,reason', [
    (55, 'above max_unit 50'), (7, 'not a multiple of step_size 5')])
def test_claim_enforces_unit_constraints(ctx, provider, amount, reason):
    with pytest.raises(exception.InsufficientResources) as err:
        allocations.claim(ctx, 'vm', {provider: {'DISK_GB': amount}})
    assert reason in str(err.value)
    assert allocations.get_allocations(ctx, 'vm') == {}


def test_claim_enforces_min_unit(ctx):
    uuid = new_uuid()
    rp.create_provider(ctx, uuid, 'n', {'MEMORY_MB': {
        'total': 4096, 'min_unit': 256}})
    with pytest.raises(exception.InsufficientResources) as err:
        allocations.claim(ctx, 'vm', {uuid: {'MEMORY_MB': 128}})
    assert 'below min_unit 256' in str(err.value)
    allocations.claim(ctx, 'vm', {uuid: {'MEMORY_MB': 256}})


def test_claim_of_class_without_inventory_is_refused(ctx, provider):
    with pytest.raises(exception.InsufficientResources) as err:
        allocations.claim(ctx, 'vm', {provider: {'VGPU': 1}})
    assert 'no VGPU inventory' in str(err.value)


def test_claim_across_providers_is_all_or_nothing(ctx, provider):
    small = new_uuid()
    rp.create_provider(ctx, small, 'small', {'DISK_GB': {'total': 10}})
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, 'vm', {provider: FLAVOR,
                                      small: {'DISK_GB': 20}})
    assert table_rows(rp.ALLOC) == []
    assert generation_of(ctx, provider) == 0
    assert allocations.claim(ctx, 'vm', {provider: FLAVOR,
                                small: {'DISK_GB': 10}}) == {
        provider: 1, small: 1}
    assert allocations.get_allocations(ctx, 'vm') == {provider: FLAVOR,
                                             small: {'DISK_GB': 10}}


def test_removing_allocations_frees_capacity(ctx, provider):
    allocations.claim(ctx, 'a', {provider: {'DISK_GB': 50}})
    allocations.claim(ctx, 'b', {provider: {'DISK_GB': 50}})
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, 'c', {provider: {'DISK_GB': 5}})
    assert allocations.remove_allocations(ctx, 'a') == 1
    assert allocations.remove_allocations(ctx, 'a') == 0
    allocations.claim(ctx, 'c', {provider: {'DISK_GB': 50}})
    assert helpers.get_usages(ctx, [provider]) == {provider: {'DISK_GB': 100}}


def test_claim_replaces_what_the_consumer_held(ctx, provider):
    other = new_uuid()
    rp.create_provider(ctx, other, 'other', INVS)
    allocations.claim(ctx, 'vm', {provider: {'DISK_GB': 50},
                                  other: {'VCPU': 1}})
    allocations.claim(ctx, 'filler', {provider: {'DISK_GB': 50}})
    # The consumer's own 50 GB is released by its new claim, so it fits.
    allocations.claim(ctx, 'vm', {provider: {'DISK_GB': 50, 'VCPU': 2}})
    assert allocations.get_allocations(ctx, 'vm') == {
        provider: {'DISK_GB': 50, 'VCPU': 2}}
    assert helpers.get_usages(ctx, [other]) == {other: {}}


@pytest.mark.parametrize('request_', [
    {}, {'x': {}}, {'x': {'VCPU': 0}}, {'x': {'VCPU': '1'}},
    {'x': {'VCPU': True}}, []])
def test_malformed_claim_is_invalid_input(ctx, request_):
    with pytest.raises(exception.InvalidInput):
        allocations.claim(ctx, 'vm', request_)


def test_claim_on_unknown_provider_or_class(ctx, provider):
    with pytest.raises(exception.ResourceProviderNotFound):
        allocations.claim(ctx, 'vm', {new_uuid(): {'VCPU': 1}})
    with pytest.raises(exception.ResourceClassNotFound):
        allocations.claim(ctx, 'vm', {provider: {'CUSTOM_NOPE': 1}})
    assert 'CUSTOM_NOPE' not in rp.resource_class_ids(ctx)
    assert table_rows(rp.ALLOC) == []


def test_concurrent_claims_on_sqlite_neither_overcommit_nor_fail(
        ctx, provider, cells_env):
    """8 processes race 40 claims for room for 16 (VCPU 32 / 2): exactly
    16 succeed, the rest fail cleanly; no "database is locked"."""
    consumers = ['race-%02d' % i for i in range(40)]
    outcomes = claim_race.race(cells_env.api_url,
                               {provider: {'VCPU': 2, 'MEMORY_MB': 128}},
                               consumers)
    kinds = [o[0] for o in outcomes]
    assert [o for o in outcomes if o[0] == 'error'] == []
    assert kinds.count('ok') == 16 and kinds.count('full') == 24
    winners = sorted(o[1] for o in outcomes if o[0] == 'ok')
    rows = table_rows(rp.ALLOC)
    assert sorted(r['consumer_id'] for r in rows
                  if r['resource_class_id'] == 1) == winners
    assert helpers.get_usages(ctx, [provider])[provider] == {
        'VCPU': 32, 'MEMORY_MB': 16 * 128}
