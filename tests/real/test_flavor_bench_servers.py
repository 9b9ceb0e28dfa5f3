"""tools/bench/flavor_migration.py runs on MariaDB and PostgreSQL (tiny
sizes) and drops the databases it made."""
import json
import os
import subprocess
import sys

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import benchlib  # noqa: E402
from tests.real import conftest  # noqa: E402


def _bench_databases(kind):
    url = benchlib.SERVERS[kind] + ('/postgres' if kind == 'postgresql'
                                    else '')
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    query = ('SELECT datname FROM pg_database' if kind == 'postgresql'
             else 'SHOW DATABASES')
    try:
        with engine.connect() as conn:
            return {n for (n,) in conn.exec_driver_sql(query)
                    if n.startswith('nl_bench_')}
    finally:
        engine.dispose()


def test_flavor_benchmark_on_mariadb_and_postgresql():
    # Skips (fails under NOVA_LITE_REQUIRE_SERVICES=1) without the servers.
    conftest.require_service('MariaDB')
    conftest.require_service('PostgreSQL')
    before = {k: _bench_databases(k) for k in ('mysql', 'postgresql')}
    proc = subprocess.run(
        [sys.executable, 'tools/bench/flavor_migration.py', '--flavors', '30',
         '--list-flavors', '10', '--list-limit', '15', '--backends',
         'mysql,postgresql', '--migration-repeat', '1', '--repeat', '1',
         '--json'], cwd=ROOT, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    results = {r['backend']: r for r in json.loads(proc.stdout)}
    assert set(results) == {'mysql', 'postgresql'}
    paths = {kind: {m['path']: m['seconds'] for m in r['migrations']}
             for kind, r in results.items()}
    assert paths['mysql']['cross'] > 0 and paths['mysql']['rows'] > 0
    # PostgreSQL cannot read another database: rows only.
    assert paths['postgresql'] == {'cross': None,
                                   'rows': paths['postgresql']['rows']}
    assert paths['postgresql']['rows'] > 0
    for r in results.values():
        assert r['list_ratio'] > 0 and r['api_ratio'] > 0
    assert {k: _bench_databases(k) for k in before} == before
