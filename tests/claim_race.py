"""Concurrent claims from separate processes, for tests.

Each worker is a fresh interpreter (multiprocessing "spawn": no eventlet,
its own database connections) that claims for its share of the consumers
once all workers are ready, and reports one outcome per attempt:
('ok', consumer), ('full', consumer) for a clean InsufficientResources,
or ('error', consumer, repr) for anything else.
"""
import multiprocessing


def _worker(api_url, request, consumers, ready, go, results):
    from nova_lite.conf import CONF
    from nova_lite import context as nova_context
    from nova_lite import exception
    from nova_lite.objects import resource_provider as rp

    CONF([], project='nova_lite', default_config_files=[])
    CONF.set_override('connection', api_url, group='api_database')
    ctx = nova_context.get_admin_context()
    rp.resource_class_ids(ctx)     # warm the class cache before the start
    ready.release()
    go.wait()
    for consumer in consumers:
        try:
            rp.claim(ctx, consumer, request)
            results.put(('ok', consumer))
        except exception.InsufficientResources:
            results.put(('full', consumer))
        except Exception as exc:   # reported, never hidden
            results.put(('error', consumer, repr(exc)))


def race(api_url, request, consumers, workers=8, timeout=240):
    """Run claim(consumer, request) for every consumer, spread over
    `workers` processes started together; returns the outcomes."""
    mp = multiprocessing.get_context('spawn')
    ready, go, results = mp.Semaphore(0), mp.Event(), mp.Queue()
    procs = [mp.Process(target=_worker, args=(
        api_url, request, consumers[i::workers], ready, go, results))
        for i in range(workers)]
    for p in procs:
        p.start()
    try:
        for _ in procs:
            if not ready.acquire(timeout=timeout):
                raise AssertionError('race workers did not start')
        go.set()
        outcomes = [results.get(timeout=timeout) for _ in consumers]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    return outcomes
