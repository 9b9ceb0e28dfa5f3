"""Concurrent writes of one instance from separate processes, for tests.

race() runs this module in a fresh interpreter (no eventlet, as
tests/claim_race.py explains), which forks the workers, each with its
own connections to the cell database. Once all are ready they write
together; each job is ('meta', key): merge {key: 'v'} into the
instance's metadata through Instance under instance_lock.locked() (as
the compute API does), or ('tag', tag): add one tag with a limit of
max_tags (nova_lite.db.main.instance_tags). One outcome per job: ('ok',
job), ('full', job) for a clean TooManyTags, or ('error', job, repr).
"""
import json
import multiprocessing
import os
import subprocess
import sys


def _worker(cell_url, uuid, jobs, max_tags, ready, go, results):
    from nova_lite.conf import CONF
    from nova_lite import context as nova_context
    from nova_lite.db.main import instance_lock
    from nova_lite.db.main import instance_tags
    from nova_lite import exception
    from nova_lite import objects

    objects.register_all()
    CONF([], project='nova_lite', default_config_files=[])
    CONF.set_override('connection', cell_url, group='database')
    ctx = nova_context.get_admin_context()
    ready.release()
    go.wait()
    for kind, value in jobs:
        try:
            if kind == 'meta':
                with instance_lock.locked(ctx, uuid):
                    inst = objects.Instance.get_by_uuid(ctx, uuid)
                    inst.metadata = dict(inst.metadata, **{value: 'v'})
                    inst.save(expected_vm_state=['active'])
            else:
                instance_tags.add(ctx, uuid, value, ['active'], max_tags)
            results.put(('ok', [kind, value]))
        except exception.TooManyTags:
            results.put(('full', [kind, value]))
        except Exception as exc:   # reported, never hidden
            results.put(('error', [kind, value], repr(exc)))


def _run(cell_url, uuid, jobs, max_tags, workers, timeout):
    import nova_lite.objects.instance  # noqa: F401 (once, shared)
    mp = multiprocessing.get_context('fork')
    ready, go, results = mp.Semaphore(0), mp.Event(), mp.Queue()
    procs = [mp.Process(target=_worker, args=(
        cell_url, uuid, jobs[i::workers], max_tags, ready, go, results))
        for i in range(workers)]
    for p in procs:
        p.start()
    try:
        for _ in procs:
            if not ready.acquire(timeout=timeout):
                raise RuntimeError('race workers did not start')
        go.set()
        return [list(results.get(timeout=timeout)) for _ in jobs]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


def race(cell_url, uuid, jobs, max_tags=50, workers=6, timeout=240):
    """Run every job against the instance uuid, spread over `workers`
    processes started together; returns the outcomes."""
    args = json.dumps([cell_url, uuid, jobs, max_tags, workers, timeout])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, '-m', 'tests.instance_race',
                           args], cwd=root, capture_output=True, text=True,
                          timeout=timeout + 60)
    if done.returncode:
        raise AssertionError('instance race failed: %s'
                             % done.stderr[-2000:])
    return [tuple(o) for o in json.loads(done.stdout.splitlines()[-1])]


if __name__ == '__main__':
    print(json.dumps(_run(*json.loads(sys.argv[1]))))
