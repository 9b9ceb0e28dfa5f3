"""Online flavor migration (legacy cell tables -> API DB) and the generic
online-migration runner, on SQLite."""
import collections
import json
import logging
import os
import signal
import subprocess
import sys

import pytest
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import flavor_union
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service_version
from nova_lite.online_migrations import flavor_copy
from nova_lite.online_migrations import flavors as flavor_migration
from nova_lite.online_migrations import legacy_write
from nova_lite.online_migrations import registry
from nova_lite.online_migrations import runner
from tests.functional.db.flavor_helpers import add_legacy
from tests.functional.db.flavor_helpers import legacy_rows
from tests.functional.manage_helpers import Deployment

N = 30


def legacy_set(n, prefix='l', start=0):
    flavors = [{'name': '%s-name-%03d' % (prefix, i),
                'flavorid': '%s%03d' % (prefix, i), 'memory_mb': 64 + i,
                'vcpu_weight': i, 'description': 'd%d' % i,
                'is_public': bool(i % 2)} for i in range(start, start + n)]
    specs = {f['flavorid']: {'k%d' % j: 'v%d' % j for j in range(3)}
             for f in flavors}
    projects = {f['flavorid']: ['p%d' % j for j in range(2)]
                for f in flavors if not f['is_public']}
    return flavors, specs, projects


def snapshot(ctxt):
    """Everything a user sees: {flavorid: (fields, specs, projects)}."""
    return {f.flavorid: (f.name, f.memory_mb, f.vcpu_weight, f.description,
                         f.is_public, f.extra_specs, sorted(f.projects))
            for f in objects.FlavorList.get_all(ctxt)}


def api_table_counts(engine=None):
    engine = engine or api_db.get_engine()
    with engine.connect() as conn:
        return {t.name: conn.execute(sa.select(sa.func.count()).select_from(
            t)).scalar() for t in (api_flavors.GEN.flavors,
                                  api_flavors.GEN.extra_specs,
                                  api_flavors.GEN.projects)}


def assert_all_in_api_exactly_once(ctxt, before, engine=None):
    assert snapshot(ctxt) == before
    assert legacy_rows() == []
    flavors = len(before)
    specs = sum(len(v[5]) for v in before.values())
    projects = sum(len(v[6]) for v in before.values())
    assert api_table_counts(engine) == {
        'flavors': flavors, 'flavor_extra_specs': specs,
        'flavor_projects': projects}


@pytest.fixture(params=['cross-database', 'rows'])
def legacy(request, cells_env, monkeypatch):
    """N legacy flavors; the copy runs INSERT ... SELECT from the attached
    cell DB file (cross-database) or executemany of the rows read."""
    cross = request.param == 'cross-database'
    monkeypatch.setattr(flavor_copy, 'CROSS_DATABASE', cross)
    assert (flavor_copy.cross_database_source() is not None) == cross
    cells_env.cross_database = cross
    add_legacy(*legacy_set(N))
    return cells_env


def test_migrate_copies_everything_then_rerun_does_nothing(legacy):
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (N, N)
    assert_all_in_api_exactly_once(ctxt, before)
    assert sorted(legacy_rows(deleted=True)) == sorted(before)
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (0, 0)
    rows, code = runner.run_migrations(ctxt)
    assert (rows[0]['found'], rows[0]['done'], code) == (0, 0, 0)
    assert_all_in_api_exactly_once(ctxt, before)


def test_a_batch_costs_the_same_statements_whatever_its_size(legacy):
    """Set-based copy: no statement per flavor, spec or project."""
    from tests.functional.db.flavor_helpers import QueryCounter
    ctxt = legacy.ctxt
    engines = (*api_db.get_engines(), *main_db.get_engines())
    with QueryCounter(*engines) as small:
        assert flavor_migration.migrate_flavors(ctxt, 4) == (4, 4)
    with QueryCounter(*engines) as large:
        assert flavor_migration.migrate_flavors(ctxt, N - 4) == (N - 4, N - 4)
    assert small.count == large.count <= 20
    assert legacy_rows() == []


def test_legacy_timestamps_survive_the_move(legacy):
    ctxt = legacy.ctxt
    created = objects.Flavor.get_by_flavor_id(ctxt, 'l007').created_at
    flavor_migration.migrate_flavors(ctxt, 1000)
    assert objects.Flavor.get_by_flavor_id(ctxt, 'l007').created_at == \
        created


def test_max_count_batches_and_exit_codes(legacy):
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    rows, code = runner.run_migrations(ctxt, max_count=7)
    assert (rows[0]['found'], rows[0]['done'], code) == (7, 7, 1)
    assert len(legacy_rows()) == N - 7
    assert snapshot(ctxt) == before
    rows, code = runner.run_migrations(ctxt)
    assert (rows[0]['done'], code) == (N - 7, 0)
    assert_all_in_api_exactly_once(ctxt, before)


def test_flavor_already_in_api_db_is_not_duplicated_or_overwritten(legacy):
    ctxt = legacy.ctxt
    # Same flavorid, different everything else: the API copy wins.
    api_flavors.create(ctxt, {'name': 'api-version', 'flavorid': 'l003',
                             'memory_mb': 1, 'vcpus': 9, 'swap': 0},
                       {'only': 'api'})
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (N, N)
    kept = objects.Flavor.get_by_flavor_id(ctxt, 'l003')
    assert (kept.name, kept.vcpus, kept.extra_specs) == (
        'api-version', 9, {'only': 'api'})
    assert api_table_counts()['flavors'] == N
    assert legacy_rows() == []


def test_name_clash_is_found_not_done_logged_and_left_in_place(
        legacy, caplog):
    ctxt = legacy.ctxt
    # Created before the legacy flavor existed in this form (e.g. a
    # restore): same name, different flavorid.
    api_flavors.create(ctxt, {'name': 'l-name-000', 'flavorid': 'other',
                             'memory_mb': 1, 'vcpus': 1, 'swap': 0})
    with caplog.at_level(logging.WARNING):
        rows, code = runner.run_migrations(ctxt, max_count=10)
    # The clash is the first legacy row; it does not hold up the others.
    assert (rows[0]['found'], rows[0]['done'], code) == (11, 10, 1)
    rows, code = runner.run_migrations(ctxt)
    assert (rows[0]['found'], rows[0]['done'], code) == (N - 10, N - 11, 0)
    assert legacy_rows() == ['l000']
    assert "name 'l-name-000' is taken" in caplog.text
    # Still visible: never silently dropped.
    assert objects.Flavor.get_by_flavor_id(ctxt, 'l000').name == 'l-name-000'
    assert runner.run_migrations(ctxt)[0][0]['found'] == 1


def test_crash_between_api_commit_and_legacy_soft_delete(legacy,
                                                         monkeypatch):
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    real = legacy_write.LegacyWrite.commit
    calls = []

    def crash_on_second_batch(writer):
        calls.append(writer)
        if len(calls) == 2:
            raise RuntimeError('killed')
        return real(writer)

    monkeypatch.setattr(legacy_write.LegacyWrite, 'commit',
                        crash_on_second_batch)
    rows, code = runner.run_migrations(ctxt, max_count=None, batch=10)
    assert code == 2 and 'killed' in rows[0]['error']
    # Second batch is in both databases now; users see it once.
    assert len(legacy_rows()) == N - 10
    assert api_table_counts()['flavors'] == 20
    assert snapshot(ctxt) == before
    monkeypatch.setattr(legacy_write.LegacyWrite, 'commit', real)
    rows, code = runner.run_migrations(ctxt)
    assert code == 0
    assert_all_in_api_exactly_once(ctxt, before)


def test_crash_inside_the_api_transaction_changes_nothing(legacy,
                                                          monkeypatch):
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    copied_flavors = []

    def crash_after_copying_flavors(conn, sql, *args):
        # The flavors are inserted in this transaction; specs not yet.
        copied_flavors.append(conn.exec_driver_sql(
            'SELECT count(*) FROM flavors').scalar())
        raise ZeroDivisionError('killed')

    monkeypatch.setattr(flavor_copy, 'copy_related',
                        crash_after_copying_flavors)
    monkeypatch.setattr(flavor_copy, 'copy_related_select',
                        crash_after_copying_flavors)
    rows, code = runner.run_migrations(ctxt)
    assert code == 2 and copied_flavors == [N]
    assert api_table_counts()['flavors'] == 0
    assert len(legacy_rows()) == N
    monkeypatch.undo()
    assert runner.run_migrations(ctxt)[1] == 0
    assert_all_in_api_exactly_once(ctxt, before)


_KILL_AFTER_API_COMMIT = '''
import os, signal, sys
sys.path.insert(0, %(root)r)
import tests.conftest  # eventlet, config, objects
from nova_lite.conf import CONF
from nova_lite import context
from nova_lite.online_migrations import flavor_copy
from nova_lite.online_migrations import legacy_write
from nova_lite.online_migrations import runner
CONF.set_override('connection', %(api)r, group='api_database')
CONF.set_override('connection', %(cell)r, group='database')
flavor_copy.CROSS_DATABASE = %(cross)r
real = legacy_write.LegacyWrite.commit
batches = []
def commit(writer):
    batches.append(writer)
    if len(batches) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(writer)
legacy_write.LegacyWrite.commit = commit
runner.run_migrations(context.get_admin_context(), max_count=None, batch=10)
'''


def test_process_killed_mid_run_loses_nothing_and_rerun_completes(legacy):
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    script = _KILL_AFTER_API_COMMIT % {
        'root': root, 'api': legacy.api_url,
        'cell': legacy.cell_urls['cell1'], 'cross': legacy.cross_database}
    proc = subprocess.run([sys.executable, '-c', script], cwd=root,
                          capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert len(legacy_rows()) == N - 10
    assert api_table_counts()['flavors'] == 20
    assert snapshot(ctxt) == before
    assert runner.run_migrations(ctxt)[1] == 0
    assert_all_in_api_exactly_once(ctxt, before)


def test_a_raising_migration_is_recorded_and_the_others_still_run(
        legacy, monkeypatch):
    ctxt = legacy.ctxt
    saved = dict(registry._REGISTRY)
    monkeypatch.setattr(registry, '_REGISTRY', collections.OrderedDict())

    @registry.register()
    def broken(context, max_count):
        raise ValueError('bad row')

    registry.register(name='migrate_flavors')(saved['migrate_flavors'].fn)

    @registry.register(name='after')
    def after(context, max_count):
        return 0, 0

    rows, code = runner.run_migrations(ctxt)
    assert [r['name'] for r in rows] == ['broken', 'migrate_flavors',
                                         'after']
    assert code == 2
    assert 'bad row' in rows[0]['error']
    assert (rows[1]['found'], rows[1]['done']) == (N, N)
    rows, code = runner.run_migrations(ctxt, names=['after'])
    assert [r['name'] for r in rows] == ['after'] and code == 0
    with pytest.raises(ValueError):
        runner.run_migrations(ctxt, names=['nope'])


def test_blocked_migration_does_not_run(legacy, monkeypatch):
    ctxt = legacy.ctxt
    monkeypatch.setattr(
        service_version, 'unmet_needs',
        lambda context, needs: 'nova-osapi_compute >= 2 (at 1)')
    rows, code = runner.run_migrations(ctxt)
    assert rows[0]['blocked'] == 'nova-osapi_compute >= 2 (at 1)'
    assert (rows[0]['found'], rows[0]['done'], code) == (0, 0, 1)
    assert len(legacy_rows()) == N


def test_migrate_flavors_needs_upgraded_api_and_conductor():
    assert registry._REGISTRY['migrate_flavors'].needs


def test_progress_bar(legacy, capsys):
    rows, code = runner.run_migrations(legacy.ctxt, progress=True)
    assert code == 0
    err = capsys.readouterr().err
    assert 'online migrations' in err and '%d' % N in err


def test_runner_batches_until_nothing_is_left(legacy, monkeypatch):
    calls = []
    real = registry._REGISTRY['migrate_flavors'].fn

    def spy(context, max_count):
        calls.append(max_count)
        return real(context, max_count)

    monkeypatch.setitem(registry._REGISTRY, 'migrate_flavors',
                        registry._REGISTRY['migrate_flavors']._replace(fn=spy))
    rows, code = runner.run_migrations(legacy.ctxt, batch=8)
    assert calls == [8, 8, 8, 8, 8]
    assert (rows[0]['done'], code) == (N, 0)


def test_runner_default_batch_is_the_migrations_own(cells_env, monkeypatch):
    """Without a count, migrate_flavors runs in batches of FLAVOR_BATCH,
    other migrations in batches of DEFAULT_BATCH."""
    calls = []
    monkeypatch.setattr(registry, '_REGISTRY', collections.OrderedDict())

    @registry.register(name='flavors_like',
                       batch=flavor_migration.FLAVOR_BATCH)
    def flavors_like(context, max_count):
        calls.append(('flavors_like', max_count))
        return 0, 0

    @registry.register(name='plain')
    def plain(context, max_count):
        calls.append(('plain', max_count))
        return 0, 0

    runner.run_migrations(cells_env.ctxt)
    assert calls == [('flavors_like', flavor_migration.FLAVOR_BATCH),
                     ('plain', registry.DEFAULT_BATCH)]
    assert flavor_migration.FLAVOR_BATCH > registry.DEFAULT_BATCH
    calls.clear()
    runner.run_migrations(cells_env.ctxt, max_count=3)
    assert calls == [('flavors_like', 3), ('plain', 3)]


# --- through nova-lite-manage ------------------------------------------

def test_manage_migrate_flavors_and_online_data_migrations(
        tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys)
    dep.setup_cells()
    engine = sa.create_engine(dep.db_url)
    try:
        add_legacy(*legacy_set(12), engine=engine)
    finally:
        engine.dispose()
    code, out, err = dep.manage('db', 'migrate_flavors', '--max-count', '5',
                                '--json')
    assert code == 1, err
    assert json.loads(out)['migrations'][0]['done'] == 5
    code, out, err = dep.manage('db', 'online_data_migrations')
    assert code == 0, err
    assert 'migrate_flavors' in out
    assert dep.sql('api', 'select count(*) from flavors') == [(12,)]
    assert dep.sql('cell1', 'select count(*) from instance_types '
                   'where deleted = 0') == [(0,)]
    code, out, err = dep.manage('db', 'migrate_flavors', '--json')
    assert code == 0 and json.loads(out)['migrations'][0]['found'] == 0


def _legacy_live_related(flavorid):
    """(live specs, live projects) of the legacy flavor(s) with this
    flavorid, deleted or not."""
    t = legacy_flavors.GEN
    with main_db.get_engine().connect() as conn:
        ids = [r[0] for r in conn.execute(sa.select(t.flavors.c.id).where(
            t.flavors.c.flavorid == flavorid))]
        return tuple(conn.execute(sa.select(sa.func.count()).select_from(
            table).where(table.c.flavor_id.in_(ids),
                         table.c.deleted == 0)).scalar()
            for table in (t.extra_specs, t.projects))


def test_legacy_row_deleted_after_the_batch_was_read(legacy):
    """A batch is locked by its soft-delete, which must match every
    flavor read; a legacy flavor that a user destroyed after the batch
    was read makes it match fewer: the batch is decided again and moves
    the others, and the destroyed flavor does not come back."""
    ctxt = legacy.ctxt
    before = snapshot(ctxt)
    lctx = flavor_union.legacy_context(ctxt)
    source = flavor_copy.cross_database_source()
    batch = flavor_copy.read_batch(lctx, limit=N, rows=source is None)
    assert len(batch) == N
    gone = batch.flavors[5]
    objects.Flavor.get_by_flavor_id(ctxt, gone[1]).destroy()
    assert flavor_copy.move_batch(ctxt, lctx, batch, source) == (N, N)
    del before[gone[1]]
    assert_all_in_api_exactly_once(ctxt, before)
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, gone[1])


def test_range_soft_delete_leaves_other_legacy_rows_alone(legacy):
    """Specs and projects of a legacy flavor soft-deleted before the run
    (in the middle of a batch's id range) are not touched, and a flavor
    left in place for a name clash keeps its specs and projects."""
    ctxt = legacy.ctxt
    t = legacy_flavors.GEN.flavors
    with main_db.get_engine().begin() as conn:
        conn.execute(t.update().where(t.c.flavorid == 'l010').values(
            deleted=t.c.id))
    orphan = _legacy_live_related('l010')
    assert orphan == (3, 2)
    api_flavors.create(ctxt, {'name': 'l-name-012', 'flavorid': 'other',
                             'memory_mb': 1, 'vcpus': 1, 'swap': 0})
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (N - 1, N - 2)
    assert legacy_rows() == ['l012']
    assert _legacy_live_related('l010') == orphan
    assert _legacy_live_related('l012') == (3, 2)


def test_attached_copy_restores_foreign_keys(legacy):
    """The cross-database SQLite copy turns foreign key checks off on its
    connection (its INSERT ... SELECT joins the parent rows it points at);
    the pooled connection gets them back."""
    assert flavor_migration.migrate_flavors(legacy.ctxt, 1000) == (N, N)
    engine = api_db.get_engine()
    for _ in range(3):
        with engine.connect() as conn:
            assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1
