"""tools/bench/flavor_api.py runs (small) and reports its figures."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_flavor_api_bench_reports_figures():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, 'tools', 'bench',
                                      'flavor_api.py'),
         '--list-flavors', '4', '--limit', '6', '--specs', '2',
         '--projects', '1', '--repeat', '1', '--json'],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))
    assert result.returncode == 0, result.stderr[-3000:]
    (figures,) = json.loads(result.stdout)
    assert figures['backend'] == 'sqlite' and figures['limit'] == 6
    for key in ('api_2_1_s', 'raw_2_1_s', 'api_2_61_s', 'raw_2_61_s'):
        assert figures[key] > 0
