"""The compute-node inventory migration: crash safety between its steps
(processes SIGKILLed at each point), the online migration's batches and
counts, and nova-lite-manage db online_data_migrations."""
import json
import os
import signal
import subprocess
import sys

import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.online_migrations import compute_inventory as inv_migration
from nova_lite.online_migrations import registry
from nova_lite.online_migrations import runner
from tests.functional.db import inventory_helpers as h
from tests.functional.manage_helpers import Deployment

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# A process that loads every node of cell1 (which migrates them) and is
# SIGKILLed at one point of ComputeNode._migrate_inventory.
_KILLED_LOADER = '''
import os, signal, sys
sys.path.insert(0, %(root)r)
import tests.conftest  # eventlet, config, objects
from nova_lite.conf import CONF
from nova_lite import context, objects
from nova_lite.db.main import compute_nodes
from nova_lite.placement import hosts
CONF.set_override('connection', %(api)r, group='api_database')
CONF.set_override('connection', %(cell)r, group='database')

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

point = %(point)r
if point == 'after-uuid':           # step 1 committed, step 2 not begun
    claim = compute_nodes.claim_uuids
    def claim_then_die(ctx, proposed):
        claim(ctx, proposed)
        die()
    compute_nodes.claim_uuids = claim_then_die
elif point == 'inside-step-2':      # providers and inventories inserted,
    hosts._host_usage_rows = die    # usage next, nothing committed
elif point == 'after-provider':     # step 2 committed, step 3 not begun
    compute_nodes.mark_migrated = die
objects.ComputeNodeList.get_all(context.get_admin_context())
print('not killed')
'''


def _run_killed_loader(env, point):
    script = _KILLED_LOADER % {'root': ROOT, 'api': env.api_url,
                               'cell': env.cell_urls['cell1'],
                               'point': point}
    proc = subprocess.run([sys.executable, '-c', script], cwd=ROOT,
                          capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-3000:]


@pytest.fixture
def c1(cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as cctxt:
        yield cctxt


def _expected(c1, ids):
    rows = {i: h.columns(c1, i) for i in ids}
    for row in rows.values():
        row['stats'] = json.loads(row['stats'])
    return {i: {name: row[name] for name in h.VISIBLE}
            for i, row in rows.items()}


def _assert_migrated_once(cells_env, c1, ids, expected):
    nodes = objects.ComputeNodeList.get_all(c1)
    assert h.snapshot(nodes) == expected
    assert h.api_counts() == {'resource_providers': len(ids),
                              'inventories': 3 * len(ids),
                              'allocations': 3 * len(ids)}
    for node in nodes:
        assert h.provider(cells_env.ctxt, node.uuid) is not None
        row = h.columns(c1, node.id)
        assert (row['uuid'], row['inventory_migrated']) == (node.uuid, True)
    return nodes


def test_killed_after_the_uuid_step_next_load_completes(cells_env, c1):
    ids = h.add_legacy_nodes(c1, 5, vcpus_used=1)
    expected = _expected(c1, ids)
    _run_killed_loader(cells_env, 'after-uuid')
    uuids = {i: h.columns(c1, i)['uuid'] for i in ids}
    assert all(uuids.values())
    assert h.api_counts()['resource_providers'] == 0
    nodes = _assert_migrated_once(cells_env, c1, ids, expected)
    # The uuids persisted before the crash are the providers' uuids.
    assert {n.id: n.uuid for n in nodes} == uuids


def test_killed_inside_the_api_transaction_leaves_nothing_half_done(
        cells_env, c1):
    ids = h.add_legacy_nodes(c1, 5, vcpus_used=1)
    expected = _expected(c1, ids)
    _run_killed_loader(cells_env, 'inside-step-2')
    assert h.api_counts() == {'resource_providers': 0, 'inventories': 0,
                              'allocations': 0}
    _assert_migrated_once(cells_env, c1, ids, expected)


def test_killed_before_the_flag_node_is_already_migrated(cells_env, c1):
    ids = h.add_legacy_nodes(c1, 5, vcpus_used=1)
    expected = _expected(c1, ids)
    _run_killed_loader(cells_env, 'after-provider')
    counts = h.api_counts()
    assert counts == {'resource_providers': 5, 'inventories': 15,
                      'allocations': 15}
    assert [h.columns(c1, i)['inventory_migrated'] for i in ids] == \
        [None] * 5
    # Readers already use the providers; the next load sets the flags and
    # creates nothing.
    _assert_migrated_once(cells_env, c1, ids, expected)
    assert inv_migration.migrate_compute_node_inventories(
        cells_env.ctxt, 100) == (0, 0)


# --- the online migration ---------------------------------------------------

def test_online_migration_batches_is_idempotent_and_skips_bad_rows(
        cells_env, c1, caplog):
    ctxt = cells_env.ctxt
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        ids2 = h.add_legacy_nodes(c2, 20, start=100, with_uuid=True)
        expected2 = _expected(c2, ids2)
    ids1 = h.add_legacy_nodes(c1, 25)
    bad = h.add_legacy_nodes(c1, 1, start=50, ram_allocation_ratio=-1.0)
    ids1 += h.add_legacy_nodes(c1, 5, start=60)
    expected1 = _expected(c1, ids1)
    pending = registry._REGISTRY['migrate_compute_node_inventories'].pending
    assert pending(ctxt) == 51   # what nova-lite-status reports
    rows, code = runner.run_migrations(
        ctxt, max_count=12, names=['migrate_compute_node_inventories'])
    assert (rows[0]['done'], code) == (12, 1)
    assert h.api_counts()['resource_providers'] == 12
    rows, code = runner.run_migrations(
        ctxt, names=['migrate_compute_node_inventories'])
    assert code == 0, rows
    # The bad row is found each time, never done, and holds nobody up.
    assert (rows[0]['found'], rows[0]['done']) == (1 + 50 - 12, 50 - 12)
    assert 'keeps its legacy capacity columns' in caplog.text
    assert h.api_counts()['resource_providers'] == 50
    assert inv_migration.migrate_compute_node_inventories(ctxt, 1000) == (1, 0)
    assert h.api_counts()['resource_providers'] == 50
    assert pending(ctxt) == 1
    nodes1 = [n for n in objects.ComputeNodeList.get_all(c1)
              if n.id != bad[0]]
    assert h.snapshot(nodes1) == expected1
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        assert h.snapshot(objects.ComputeNodeList.get_all(c2)) == expected2


def test_online_migration_waits_for_old_api_and_conductor(cells_env, c1):
    ctxt = cells_env.ctxt
    assert registry._REGISTRY['migrate_compute_node_inventories'].needs == \
        compute_inventory.NEEDS == {'nova-osapi_compute': 3,
                                    'nova-conductor': 3}
    with nova_context.target_cell(ctxt, cells_env.cells['cell2']) as c2:
        h.record_service(c2, 'old-api', 'nova-osapi_compute', 2)
    h.add_legacy_nodes(c1, 3)
    rows, code = runner.run_migrations(
        ctxt, names=['migrate_compute_node_inventories'])
    assert code == 1
    assert 'nova-osapi_compute >= 3 (oldest is 2)' in rows[0]['blocked']
    assert h.api_counts()['resource_providers'] == 0


def test_manage_online_data_migrations_finishes_it_in_batches(
        tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys)
    dep.setup_cells()
    engine = sa.create_engine(dep.url('cell2'))
    try:
        with engine.begin() as conn:
            conn.execute(h.NODES.insert(),
                         [h.legacy_values(i) for i in range(7)])
    finally:
        engine.dispose()
    code, out, err = dep.manage('db', 'online_data_migrations',
                                '--max-count', '5', '--json')
    assert code == 1, err
    rows = {m['name']: m for m in json.loads(out)['migrations']}
    assert rows['migrate_compute_node_inventories']['done'] == 5
    code, out, err = dep.manage('db', 'online_data_migrations')
    assert code == 0, err
    assert 'migrate_compute_node_inventories' in out
    assert dep.sql('api', 'select count(*) from resource_providers') == \
        [(7,)]
    assert dep.sql('api', 'select count(*) from inventories') == [(21,)]
    assert dep.sql('cell2', 'select count(*) from compute_nodes where '
                   'inventory_migrated') == [(7,)]
    code, out, err = dep.manage('db', 'online_data_migrations', '--json')
    rows = {m['name']: m for m in json.loads(out)['migrations']}
    assert code == 0 and rows['migrate_compute_node_inventories'][
        'found'] == 0
