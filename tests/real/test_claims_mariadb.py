"""Claims racing on MariaDB (and PostgreSQL): many processes, each with
its own connections, against providers with room for only some of them.
None may over-commit, none may be lost."""
import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import providers as rp
from tests import claim_race
from tests.conftest import set_override
from tests import placement_helpers as helpers

HOST = '11111111-1111-4111-8111-111111111111'
DISKS = '22222222-2222-4222-8222-222222222222'


@pytest.fixture(params=['mysql_url', 'postgresql_url'])
def api_url(request, conf):
    url = request.getfixturevalue(request.param)
    migration.db_sync('api', url)
    set_override('connection', url, group='api_database')
    api_db.reset()
    yield url
    api_db.reset()


def allocation_rows():
    t = rp.ALLOC
    with api_db.get_engine().connect() as conn:
        return [dict(r._mapping) for r in conn.execute(sa.select(t))]


def test_concurrent_claims_never_overcommit_nor_get_lost(api_url):
    """8 processes race 120 two-provider claims. The host has room for
    12 (VCPU 6 x ratio 2.0, step 1), the shared disk provider for 10
    (200 GB, 10 reserved, 19 GB each): exactly 10 succeed, 110 fail
    cleanly, and the failed ones left nothing on the host."""
    ctx = nova_context.get_admin_context()
    rp.create_provider(ctx, HOST, 'host', {
        'VCPU': {'total': 6, 'allocation_ratio': 2.0},
        'MEMORY_MB': {'total': 65536}})
    rp.create_provider(ctx, DISKS, 'shared-disk', {
        'DISK_GB': {'total': 200, 'reserved': 10}})
    request = {HOST: {'VCPU': 1, 'MEMORY_MB': 512}, DISKS: {'DISK_GB': 19}}
    consumers = ['consumer-%03d' % i for i in range(120)]

    outcomes = claim_race.race(api_url, request, consumers, workers=8)

    assert [o for o in outcomes if o[0] == 'error'] == []
    assert sorted(o[1] for o in outcomes) == consumers   # none lost
    winners = sorted(o[1] for o in outcomes if o[0] == 'ok')
    assert len(winners) == 10
    rows = allocation_rows()
    held = {}
    for row in rows:
        held.setdefault(row['consumer_id'], []).append(row)
    assert sorted(held) == winners
    assert all(len(r) == 3 for r in held.values())
    assert helpers.get_usages(ctx, [HOST, DISKS]) == {
        HOST: {'VCPU': 10, 'MEMORY_MB': 5120}, DISKS: {'DISK_GB': 190}}
    found = helpers.get_inventories(ctx, [HOST, DISKS])
    # Every success bumped both generations exactly once.
    assert found[HOST]['generation'] == found[DISKS]['generation'] == 10


@pytest.mark.parametrize('api_url', ['mysql_url'], indirect=True)
def test_racing_for_a_provider_with_room_for_ten(api_url):
    """The benchmark's race: 8 workers, 80 attempts, room for 10."""
    ctx = nova_context.get_admin_context()
    rp.create_provider(ctx, HOST, 'host', {
        'VCPU': {'total': 20}, 'MEMORY_MB': {'total': 20480},
        'DISK_GB': {'total': 200}})
    request = {HOST: {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}}
    outcomes = claim_race.race(api_url, request,
                               ['c%02d' % i for i in range(80)], workers=8)
    kinds = [o[0] for o in outcomes]
    assert (kinds.count('ok'), kinds.count('full'), kinds.count('error')) \
        == (10, 70, 0), outcomes
    assert helpers.get_usages(ctx, [HOST])[HOST] == {
        'VCPU': 20, 'MEMORY_MB': 20480, 'DISK_GB': 200}
    assert len(allocation_rows()) == 30


def test_concurrent_writers_for_one_consumer_are_serialised(api_url):
    """Consumer generations under real concurrency: 8 processes write the
    same consumer's allocations, first all expecting it new, then all
    passing generation 1. Each time exactly one wins and the others get a
    clean ConsumerGenerationConflict."""
    ctx = nova_context.get_admin_context()
    rp.create_provider(ctx, HOST, 'host', {'VCPU': {'total': 64}})
    for expected, kinds in ((None, 'new'), (1, 'existing')):
        outcomes = claim_race.race(api_url, {HOST: {'VCPU': 1}},
                                   ['vm'] * 16, workers=8,
                                   consumer_generation=expected)
        assert sorted(o[0] for o in outcomes) == \
            ['conflict'] * 15 + ['ok'], (kinds, outcomes)
    assert allocations.get_consumer(ctx, 'vm') == {
        'allocations': {HOST: {'VCPU': 1}}, 'generation': 2,
        'project_id': None, 'user_id': None}
    assert helpers.get_usages(ctx, [HOST])[HOST] == {'VCPU': 1}


def test_ratios_read_back_as_written_and_rewrites_are_noops(api_url):
    """allocation_ratio is a FLOAT column (single precision on MySQL): 1.1
    must still read as 1.1, writing the same inventories again must not
    bump the generation, and capacity is int((10 - 0) * 1.1) = 11."""
    ctx = nova_context.get_admin_context()
    invs = {'VCPU': {'total': 10, 'allocation_ratio': 1.1},
            'MEMORY_MB': {'total': 4096, 'allocation_ratio': 1.5}}
    rp.create_provider(ctx, HOST, 'host', invs)
    found = helpers.get_inventories(ctx, [HOST])[HOST]
    assert found['inventories']['VCPU']['allocation_ratio'] == 1.1
    assert rp.set_inventories(ctx, HOST, invs) == found['generation']
    allocations.claim(ctx, 'vm1', {HOST: {'VCPU': 6}})
    allocations.claim(ctx, 'vm2', {HOST: {'VCPU': 5}})  # int(10 * 1.1) = 11
    with pytest.raises(exception.InsufficientResources):
        allocations.claim(ctx, 'vm3', {HOST: {'VCPU': 1}})
