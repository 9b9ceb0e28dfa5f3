"""tools/bench/flavor_migration.py runs (tiny sizes, SQLite) and reports
every figure; the figures themselves are for people, never asserted."""
import json
import os
import subprocess
import sys

from nova_lite.online_migrations import flavors as flavor_migration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_flavor_benchmark_reports_migration_list_and_api_figures():
    proc = subprocess.run(
        [sys.executable, 'tools/bench/flavor_migration.py', '--flavors', '40',
         '--list-flavors', '15', '--list-limit', '20', '--backends',
         'sqlite', '--migration-repeat', '1', '--repeat', '1', '--batches',
         'default,7', '--json'],
        cwd=ROOT, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    [result] = json.loads(proc.stdout)
    assert (result['backend'], result['flavors'], result['specs'],
            result['projects']) == ('sqlite', 40, 5, 3)
    assert result['floor_s'] > 0 and result['floor_softdelete_s'] > 0
    runs = {(m['path'], m['batch']): m for m in result['migrations']}
    default = flavor_migration.FLAVOR_BATCH
    assert set(runs) == {('cross', default), ('cross', 7), ('rows', default),
                         ('rows', 7)}
    assert all(m['seconds'] > 0 and m['ratio_to_floor'] > 0
               for m in runs.values())
    assert result['list_objects_s'] > 0 and result['list_ratio'] > 0
    assert result['api_detail_s'] > 0 and result['api_ratio'] > 0


def test_flavor_benchmark_runs_only_the_sections_asked_for():
    proc = subprocess.run(
        [sys.executable, 'tools/bench/flavor_migration.py',
         '--list-flavors', '5', '--list-limit', '8', '--backends', 'sqlite',
         '--repeat', '1', '--sections', 'api', '--json'],
        cwd=ROOT, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    [result] = json.loads(proc.stdout)
    assert 'floor_s' not in result and 'list_objects_s' not in result
    assert result['api_detail_s'] > 0 and result['api_ratio'] > 0
    bad = subprocess.run(
        [sys.executable, 'tools/bench/flavor_migration.py', '--sections',
         'nope'], cwd=ROOT, capture_output=True, timeout=300)
    assert bad.returncode == 2 and b'unknown sections' in bad.stderr
