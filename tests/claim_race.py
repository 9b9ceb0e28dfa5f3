"""Concurrent claims from separate processes, for tests.

race() runs this module in a fresh interpreter, which imports nova_lite
once and forks the workers (tests/process_race.py). Once all are ready
they claim together, and report one outcome per attempt: ('ok',
consumer), ('full', consumer) for a clean InsufficientResources,
('conflict', consumer) for a clean ConsumerGenerationConflict, or
('error', consumer, repr) for anything else.
"""
import functools

from tests import process_race


def _worker(api_url, request, kwargs, consumers, put, started):
    from nova_lite.conf import CONF
    from nova_lite import context as nova_context
    from nova_lite import exception
    from nova_lite.placement import allocations
    from nova_lite.placement import providers as rp

    CONF([], project='nova_lite', default_config_files=[])
    CONF.set_override('connection', api_url, group='api_database')
    ctx = nova_context.get_admin_context()
    rp.resource_class_ids(ctx)     # warm the class cache before the start
    started()
    for consumer in consumers:
        try:
            allocations.claim(ctx, consumer, request, **kwargs)
            put(('ok', consumer))
        except exception.InsufficientResources:
            put(('full', consumer))
        except exception.ConsumerGenerationConflict:
            put(('conflict', consumer))
        except Exception as exc:   # reported, never hidden
            put(('error', consumer, repr(exc)))


def _run(api_url, request, consumers, workers, timeout, kwargs):
    import nova_lite.placement.allocations  # noqa: F401 (once, shared)
    return process_race.run(
        functools.partial(_worker, api_url, request, kwargs), consumers,
        workers, timeout)


def race(api_url, request, consumers, workers=8, timeout=240, **kwargs):
    """Run claim(consumer, request, **kwargs) for every consumer, spread
    over `workers` processes started together; returns the outcomes."""
    return process_race.call(
        'tests.claim_race',
        [api_url, request, consumers, workers, timeout, kwargs], timeout)


if __name__ == '__main__':
    process_race.main(_run)
