"""tests/process_race.py, the race tests' harness: outcomes are
gathered from every worker, and a worker that dies fails the race at
once, naming its exit code, instead of the parent waiting out the
timeout. Run in a fresh interpreter, as the race modules run (the test
process is monkey patched; forking it would copy its hub)."""
import os
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import json, sys
    from tests import process_race

    def worker(jobs, put, started):
        if sys.argv[1] == 'die' and 3 in jobs:
            raise SystemExit(7)        # before it says it is ready
        started()
        for job in jobs:
            put(('ok', job * 10))

    print(json.dumps(sorted(process_race.run(worker, list(range(8)), 3,
                                             float(sys.argv[2])))))
''')


def _run(mode, timeout):
    start = time.monotonic()
    done = subprocess.run([sys.executable, '-c', SCRIPT, mode, str(timeout)],
                          cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout + 60)
    return done, time.monotonic() - start


def test_every_worker_outcome_is_gathered():
    done, _ = _run('ok', 60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(
        [['ok', n * 10] for n in range(8)]).replace("'", '"')


def test_a_dead_worker_fails_the_race_at_once():
    done, elapsed = _run('die', 120)
    assert done.returncode != 0
    assert 'race workers did not start: worker 0 exited 7' in done.stderr
    assert elapsed < 60    # not the 120 s timeout
