"""tools/bench/scale.py at a tiny size, so that it cannot rot: two cells
on MariaDB, a real cell conductor over RabbitMQ, every section measured
once, and nothing left behind."""
import json
import os
import subprocess
import sys

import sqlalchemy as sa

from tests.real import conftest as real

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _bench_databases():
    engine = sa.create_engine(real.MARIADB.admin_url,
                              poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return {r[0] for r in conn.execute(sa.text('SHOW DATABASES'))
                    if r[0].startswith('nl_bench_')}
    finally:
        engine.dispose()


def test_scale_bench_runs_at_a_tiny_size(tmp_path):
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    before = _bench_databases()
    out = tmp_path / 'scale.json'
    env = dict(os.environ, NOVA_LITE_MYSQL_URL=real.MYSQL_SERVER)
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, 'tools', 'bench', 'scale.py'),
         '--cells', '2', '--nodes-per-cell', '4', '--servers-per-node', '2',
         '--projects', '2', '--measure-at', '2', '--runs', '2',
         '--json', str(out)], capture_output=True, text=True, timeout=600,
        env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    [stage] = json.loads(out.read_text())['stages']
    assert stage['size'] == {'cells': 2, 'nodes': 8, 'servers': 16,
                             'nodes_per_cell': 4}
    assert stage['select_destinations']['alternates'] >= 1
    # Marker in the middle: the older half of the list follows it.
    assert stage['servers_all_tenants']['items'] == 8
    assert stage['servers_project']['items'] >= 1
    assert stage['hypervisors_detail']['items'] == 8
    for key in ('conductor_idle', 'conductor_loaded'):
        assert stage[key]['statements'] == 2, stage[key]
    assert stage['conductor_loaded']['loader_lists_per_s'] > 0
    assert stage['rows']['cell1']['instances'] == 8
    assert _bench_databases() == before
