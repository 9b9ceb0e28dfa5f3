"""migrate_flavors on MariaDB and PostgreSQL: concurrent runners in
separate processes, a runner SIGKILLed mid-run, a user destroying a
flavor of a moving batch. Skipped unless the servers are reachable
(NOVA_LITE_REQUIRE_SERVICES=1 makes that a failure)."""
import os
import signal
import subprocess
import sys
import time

import eventlet
import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import flavor_union
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.objects import flavor as flavor_obj
from nova_lite.online_migrations import flavor_copy
from nova_lite.online_migrations import flavors as flavor_migration
from nova_lite.online_migrations import legacy_write
from tests.conftest import set_override
from tests.functional.conftest import wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.fixture(params=['mariadb-cross-database', 'mariadb-rows',
                        'postgresql-rows'])
def dbs(request, conf, monkeypatch):
    """Unique API and cell databases on one server (the
    tests/real/conftest.py fixtures drop them after), synced. On MariaDB
    the copy runs INSERT ... SELECT across the two databases
    (cross-database) or executemany of the rows read (rows, as between
    two servers); PostgreSQL has only the rows path."""
    server, path = request.param.split('-', 1)
    make = request.getfixturevalue('make_%s_database' % (
        'mysql' if server == 'mariadb' else server))
    urls = {'api': make(), 'cell': make()}
    migration.db_sync('api', urls['api'])
    migration.db_sync('main', urls['cell'])
    set_override('connection', urls['api'], group='api_database')
    set_override('connection', urls['cell'], group='database')
    api_db.reset()
    main_db.reset()
    urls['cross'] = path == 'cross-database'
    monkeypatch.setattr(flavor_copy, 'CROSS_DATABASE', urls['cross'])
    assert (flavor_copy.cross_database_source() is not None) == \
        urls['cross']
    yield urls
    api_db.reset()
    main_db.reset()


def populate(n, specs=5, projects=3):
    t = legacy_flavors.GEN
    with main_db.get_engine().begin() as conn:
        conn.execute(t.flavors.insert(), [
            {'name': 'f%05d' % i, 'flavorid': str(i), 'memory_mb': i,
             'vcpus': 1, 'swap': 0, 'root_gb': 1, 'ephemeral_gb': 0,
             'disabled': False, 'is_public': bool(i % 2), 'deleted': 0}
            for i in range(n)])
        ids = [r[0] for r in conn.execute(sa.select(t.flavors.c.id))]
        conn.execute(t.extra_specs.insert(), [
            {'flavor_id': i, 'key': 'k%d' % j, 'value': 'v', 'deleted': 0}
            for i in ids for j in range(specs)])
        conn.execute(t.projects.insert(), [
            {'flavor_id': i, 'project_id': 'p%d' % j, 'deleted': 0}
            for i in ids for j in range(projects)])


def assert_migrated_exactly_once(n, specs=5, projects=3):
    a = api_flavors.GEN
    with api_db.get_engine().connect() as conn:
        fids = [r[0] for r in conn.execute(sa.select(a.flavors.c.flavorid))]
        assert sorted(fids, key=int) == [str(i) for i in range(n)]
        per_flavor = conn.execute(
            sa.select(a.extra_specs.c.flavor_id, sa.func.count())
            .group_by(a.extra_specs.c.flavor_id)).all()
        assert len(per_flavor) == n and {c for _, c in per_flavor} == {specs}
        per_flavor = conn.execute(
            sa.select(a.projects.c.flavor_id, sa.func.count())
            .group_by(a.projects.c.flavor_id)).all()
        assert len(per_flavor) == n and {c for _, c in per_flavor} == {
            projects}
    t = legacy_flavors.GEN
    with main_db.get_engine().connect() as conn:
        for table in (t.flavors, t.extra_specs, t.projects):
            assert conn.execute(sa.select(sa.func.count()).select_from(
                table).where(table.c.deleted == 0)).scalar() == 0


_RUNNER = '''
import os, signal, sys, time
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
def kill_at_call(method, nth):
    """SIGKILL this process at the nth call of LegacyWrite.<method>."""
    real = getattr(legacy_write.LegacyWrite, method)
    calls = []
    def hooked(writer):
        calls.append(writer)
        if len(calls) == nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(writer)
    setattr(legacy_write.LegacyWrite, method, hooked)
if %(kill_at)r:
    # The batch's API DB copy has committed, its soft-delete has not.
    kill_at_call('commit', %(kill_at)r)
if %(kill_before_flavors)r:
    # The specs' and projects' soft-deletes of this batch have committed,
    # the flavors' has not.
    kill_at_call('_commit_flavors', %(kill_before_flavors)r)
while not os.path.exists(%(go)r):
    time.sleep(0.01)
rows, code = runner.run_migrations(context.get_admin_context(),
                               batch=%(batch)d)
print(rows[0]['found'], rows[0]['done'], code)
sys.exit(code)
'''


def start_runner(urls, go, batch, kill_at=None, kill_before_flavors=None):
    script = _RUNNER % {'root': ROOT, 'api': urls['api'],
                        'cell': urls['cell'], 'cross': urls['cross'],
                        'batch': batch, 'kill_at': kill_at,
                        'kill_before_flavors': kill_before_flavors,
                        'go': go}
    return subprocess.Popen([sys.executable, '-c', script], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize('runners,batch', [(2, 50), (3, 7)])
def test_concurrent_runners_migrate_every_flavor_exactly_once(
        dbs, tmp_path, runners, batch):
    n = 600
    populate(n)
    go = str(tmp_path / 'go')
    procs = [start_runner(dbs, go, batch) for _ in range(runners)]
    time.sleep(0.5)  # let them import; they all start on one signal
    open(go, 'w').close()
    results = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err.decode()[-3000:]
    done = sum(int(out.split()[1]) for out, _ in results)
    assert done >= n  # racing runners may both count a flavor as done
    assert_migrated_exactly_once(n)
    ctxt = nova_context.get_admin_context()
    assert len(flavor_union.list_page(ctxt)) == n


def run_killed(urls, tmp_path, n, **kill):
    """n legacy flavors; a runner (batches of 40) SIGKILLed as kill says."""
    populate(n)
    go = str(tmp_path / 'go')
    open(go, 'w').close()
    proc = start_runner(urls, go, batch=40, **kill)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL, err.decode()[-3000:]
    return go


def rerun_completes(urls, go, n):
    proc = start_runner(urls, go, batch=40)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-3000:]
    assert_migrated_exactly_once(n)


def test_runner_killed_mid_run_loses_nothing_and_rerun_completes(
        dbs, tmp_path):
    n = 300
    go = run_killed(dbs, tmp_path, n, kill_at=3)
    ctxt = nova_context.get_admin_context()
    # Two batches finished, the third is in the API DB and still in the
    # legacy tables; users still see every flavor exactly once.
    assert len(flavor_union.list_page(ctxt)) == n
    rerun_completes(dbs, go, n)


def test_runner_killed_between_specs_and_flavors_soft_delete(dbs,
                                                             tmp_path):
    """On MariaDB and PostgreSQL the specs' and projects' soft-deletes
    commit on their own connections before the flavors'
    (legacy_write.LegacyWrite.commit): a kill in between leaves moved
    flavors live in the legacy tables without live specs; users still see
    each flavor once, with its specs (the API DB copy), and a rerun
    soft-deletes the rest."""
    n = 120
    go = run_killed(dbs, tmp_path, n, kill_before_flavors=2)
    t = legacy_flavors.GEN
    with main_db.get_engine().connect() as conn:
        live = [conn.execute(sa.select(sa.func.count()).select_from(
            table).where(table.c.deleted == 0)).scalar()
            for table in (t.flavors, t.extra_specs, t.projects)]
    # Batch 1 done; batch 2: specs and projects soft-deleted, flavors not;
    # batch 3 not started.
    assert live == [80, 40 * 5, 40 * 3]
    ctxt = nova_context.get_admin_context()
    flavors = flavor_union.list_page(ctxt)
    assert len(flavors) == n
    for flavorid in ('40', '79'):
        flavor = flavor_obj.Flavor.get_by_flavor_id(ctxt, flavorid)
        assert len(flavor.extra_specs) == 5
        assert len(flavor.projects) == 3
    rerun_completes(dbs, go, n)


_WAITING_FLAVOR_UPDATES = {
    'mysql': "SELECT count(*) FROM information_schema.processlist WHERE "
             "command = 'Query' AND info LIKE 'UPDATE instance_types %%'",
    'postgresql': "SELECT count(*) FROM pg_stat_activity WHERE "
                  "wait_event_type = 'Lock' AND "
                  "query LIKE 'UPDATE instance_types %%'",
}


def _waiting_flavor_updates():
    """Statements updating legacy flavors now running (ours have ended:
    these wait for a lock)."""
    engine = main_db.get_engine()
    with engine.connect() as conn:
        return conn.exec_driver_sql(
            _WAITING_FLAVOR_UPDATES[engine.dialect.name]).scalar()


def test_destroy_waits_for_a_moving_batch_then_destroys_the_copy(dbs):
    """A user destroying a legacy flavor while a batch holding it is
    between its lock and its commit waits on the lock, then destroys the
    API DB copy: the flavor stays destroyed, the others all move."""
    n = 20
    populate(n)
    ctxt = nova_context.get_admin_context()
    lctx = flavor_union.legacy_context(ctxt)
    source = flavor_copy.cross_database_source()
    batch = flavor_copy.read_batch(lctx, limit=n, rows=source is None)
    victim = batch.flavors[3][1]
    real_commit = legacy_write.LegacyWrite.commit
    destroyer = []

    def destroy_during_move(writer):
        # Locked and copied: a user destroys one of the batch's flavors
        # now, in a (green) thread of its own; it must wait for us.
        thread = eventlet.spawn(flavor_obj.Flavor(
            context=ctxt, flavorid=victim).destroy)
        destroyer.append(thread)
        wait_for(lambda: _waiting_flavor_updates() == 1,
                 message='the destroy waiting for the lock')
        real_commit(writer)

    legacy_write.LegacyWrite.commit = destroy_during_move
    try:
        assert flavor_copy.move_batch(ctxt, lctx, batch, source) == (n, n)
    finally:
        legacy_write.LegacyWrite.commit = real_commit
    destroyer[0].wait()
    flavorids = sorted(f['flavorid'] for f in
                       flavor_union.list_page(ctxt))
    assert flavorids == sorted(str(i) for i in range(n) if str(i) != victim)
    with pytest.raises(exception.FlavorNotFound):
        flavor_obj.Flavor.get_by_flavor_id(ctxt, victim)
    t = legacy_flavors.GEN
    with main_db.get_engine().connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            t.flavors).where(t.flavors.c.deleted == 0)).scalar() == 0


def test_migration_in_process_with_small_multi_row_chunks(dbs, monkeypatch):
    """The whole migration in this process, with PostgreSQL's multi-row
    INSERTs cut to 7 rows (many chunks and a partial last one)."""
    monkeypatch.setattr(flavor_copy, 'MULTI_ROW', 7)
    n = 30
    populate(n)
    ctxt = nova_context.get_admin_context()
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (n, n)
    assert_migrated_exactly_once(n)
    assert flavor_migration.migrate_flavors(ctxt, 1000) == (0, 0)
