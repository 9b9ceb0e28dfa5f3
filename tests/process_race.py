"""Workers in separate processes that start together, for race tests.

A race module (tests/claim_race.py, tests/instance_race.py) runs in a
fresh interpreter (no eventlet: the test process is monkey patched, and
forking it would copy its hub), imports nova_lite once and calls run(),
which forks one process per share of the jobs. Each worker sets itself
up (its own database connections), calls started() -- which returns
once every worker is ready -- and puts one outcome per job.

A worker that dies (before or after it started) fails the race at
once, naming its exit code; its traceback is on stderr, which the
caller reports. Nothing waits on a dead worker for the whole timeout.
"""
import faulthandler
import json
import multiprocessing
import os
import queue
import subprocess
import sys
import time

POLL = 0.5


def _child(worker, share, ready, go, results, timeout):
    # A worker that outlives the race shows where it stood.
    faulthandler.dump_traceback_later(timeout * 0.9, exit=True)

    def started():
        ready.release()
        go.wait()
    worker(share, results.put, started)


def _dead(procs):
    return ['worker %d exited %s' % (i, p.exitcode)
            for i, p in enumerate(procs) if p.exitcode not in (None, 0)]


def _wait(what, attempt, procs, deadline):
    """attempt() until it returns something other than None, failing
    fast when a worker died or the deadline passed."""
    while True:
        got = attempt()
        if got is not None:
            return got
        dead = _dead(procs)
        if dead:
            raise RuntimeError('%s: %s' % (what, ', '.join(dead)))
        if time.monotonic() > deadline:
            raise RuntimeError('%s: timed out' % what)


def run(worker, jobs, workers, timeout):
    """worker(share, put, started) in `workers` processes, share being
    jobs[i::workers]; returns the len(jobs) outcomes they put."""
    mp = multiprocessing.get_context('fork')
    ready, go, results = mp.Semaphore(0), mp.Event(), mp.Queue()
    procs = [mp.Process(target=_child, args=(
        worker, jobs[i::workers], ready, go, results, timeout))
        for i in range(workers)]
    for p in procs:
        p.start()
    faulthandler.dump_traceback_later(timeout * 0.95, exit=True)
    deadline = time.monotonic() + timeout

    def one_result():
        try:
            return list(results.get(timeout=POLL))
        except queue.Empty:
            return None
    outcomes = None
    try:
        for _ in procs:
            _wait('race workers did not start',
                  lambda: ready.acquire(timeout=POLL) or None, procs,
                  deadline)
        go.set()
        outcomes = [_wait('race workers did not finish', one_result,
                          procs, deadline) for _ in jobs]
        return outcomes
    finally:
        for p in procs:
            if outcomes is None:
                p.kill()      # a failed race: the others wait for go
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


def call(module, args, timeout):
    """Run `python -m module json(args)` (whose last stdout line is the
    JSON outcome list); returns the outcomes as tuples."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, '-m', module, json.dumps(args)],
                          cwd=root, capture_output=True, text=True,
                          timeout=timeout + 60)
    if done.returncode:
        raise AssertionError('%s failed: %s' % (module, done.stderr[-4000:]))
    return [tuple(o) for o in json.loads(done.stdout.splitlines()[-1])]


def main(run_race):
    """A race module's __main__: run_race(*args) printed as JSON."""
    print(json.dumps(run_race(*json.loads(sys.argv[1]))))
