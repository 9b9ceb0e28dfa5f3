"""Concurrent claims from separate processes, for tests.

race() runs this module in a fresh interpreter (no eventlet: the test
process is monkey patched, and forking it would copy its hub), which
imports nova_lite once and forks the workers, each with its own database
connections. Once all are ready they claim together, and report one
outcome per attempt: ('ok', consumer), ('full', consumer) for a clean
InsufficientResources, ('conflict', consumer) for a clean
ConsumerGenerationConflict, or ('error', consumer, repr) for anything
else.
"""
import faulthandler
import json
import multiprocessing
import os
import subprocess
import sys


def _worker(api_url, request, consumers, kwargs, ready, go, results,
            timeout):
    # A worker that outlives the race shows where it stood (stderr
    # reaches the caller's failure message).
    faulthandler.dump_traceback_later(timeout * 0.9, exit=True)
    from nova_lite.conf import CONF
    from nova_lite import context as nova_context
    from nova_lite import exception
    from nova_lite.placement import allocations
    from nova_lite.placement import providers as rp

    CONF([], project='nova_lite', default_config_files=[])
    CONF.set_override('connection', api_url, group='api_database')
    ctx = nova_context.get_admin_context()
    rp.resource_class_ids(ctx)     # warm the class cache before the start
    ready.release()
    go.wait()
    for consumer in consumers:
        try:
            allocations.claim(ctx, consumer, request, **kwargs)
            results.put(('ok', consumer))
        except exception.InsufficientResources:
            results.put(('full', consumer))
        except exception.ConsumerGenerationConflict:
            results.put(('conflict', consumer))
        except Exception as exc:   # reported, never hidden
            results.put(('error', consumer, repr(exc)))


def _run(api_url, request, consumers, workers, timeout, kwargs):
    import nova_lite.placement.allocations  # noqa: F401 (once, shared)
    mp = multiprocessing.get_context('fork')
    ready, go, results = mp.Semaphore(0), mp.Event(), mp.Queue()
    procs = [mp.Process(target=_worker, args=(
        api_url, request, consumers[i::workers], kwargs, ready, go,
        results, timeout))
        for i in range(workers)]
    for p in procs:
        p.start()
    faulthandler.dump_traceback_later(timeout * 0.95, exit=True)
    try:
        for _ in procs:
            if not ready.acquire(timeout=timeout):
                raise RuntimeError('race workers did not start')
        go.set()
        return [list(results.get(timeout=timeout)) for _ in consumers]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


def race(api_url, request, consumers, workers=8, timeout=240, **kwargs):
    """Run claim(consumer, request, **kwargs) for every consumer, spread
    over `workers` processes started together; returns the outcomes."""
    args = json.dumps([api_url, request, consumers, workers, timeout,
                       kwargs])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, '-m', 'tests.claim_race', args],
                          cwd=root, capture_output=True, text=True,
                          timeout=timeout + 60)
    if done.returncode:
        raise AssertionError('claim race failed: %s' % done.stderr[-2000:])
    return [tuple(o) for o in json.loads(done.stdout.splitlines()[-1])]


if __name__ == '__main__':
    print(json.dumps(_run(*json.loads(sys.argv[1]))))
