"""Concurrent writes of one instance from separate processes, for tests.

race() runs this module in a fresh interpreter, which forks the workers
(tests/process_race.py), each with its own connections to the cell
database. Once all are ready they write together; each job is ('meta',
key): merge {key: 'v'} into the instance's metadata through Instance
under instance_lock.locked() (as the compute API does), or ('tag',
tag): add one tag with a limit of max_tags
(nova_lite.db.main.instance_tags). One outcome per job: ('ok', job),
('full', job) for a clean TooManyTags, or ('error', job, repr).
"""
import functools

from tests import process_race


def _worker(cell_url, uuid, max_tags, jobs, put, started):
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
    started()
    for kind, value in jobs:
        try:
            if kind == 'meta':
                with instance_lock.locked(ctx, uuid):
                    inst = objects.Instance.get_by_uuid(ctx, uuid)
                    inst.metadata = dict(inst.metadata, **{value: 'v'})
                    inst.save(expected_vm_state=['active'])
            else:
                instance_tags.add(ctx, uuid, value, ['active'], max_tags)
            put(('ok', [kind, value]))
        except exception.TooManyTags:
            put(('full', [kind, value]))
        except Exception as exc:   # reported, never hidden
            put(('error', [kind, value], repr(exc)))


def _run(cell_url, uuid, jobs, max_tags, workers, timeout):
    import nova_lite.objects.instance  # noqa: F401 (once, shared)
    return process_race.run(
        functools.partial(_worker, cell_url, uuid, max_tags), jobs,
        workers, timeout)


def race(cell_url, uuid, jobs, max_tags=50, workers=6, timeout=240):
    """Run every job against the instance uuid, spread over `workers`
    processes started together; returns the outcomes."""
    return process_race.call(
        'tests.instance_race',
        [cell_url, uuid, jobs, max_tags, workers, timeout], timeout)


if __name__ == '__main__':
    process_race.main(_run)
