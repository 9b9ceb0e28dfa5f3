"""Running the registered online data migrations in batches: what
`nova-lite-manage db online_data_migrations` (and `migrate_flavors`) do.

Each migration runs only once the services it needs have upgraded
(service_version.unmet_needs); one that raises is reported and the others
still run.
"""
from oslo_log import log as logging
import tqdm

from nova_lite.objects import service_version
from nova_lite.online_migrations import registry

LOG = logging.getLogger(__name__)


def run_migrations(context, max_count=None, names=None, progress=False,
                   batch=None):
    """Run registered migrations in batches.

    max_count bounds the rows done in total (None: until nothing is left,
    in batches of `batch`, else of each migration's own batch size, else
    of registry.DEFAULT_BATCH; with max_count, batches of max_count).
    Returns (rows, exit_code): one row
    {'name', 'found', 'done', 'blocked', 'error'} per migration; exit code
    0 nothing (more) can be done, 1 more to do (count reached, or a
    migration is blocked on service versions), 2 a migration raised (the
    others still ran). found = rows done + rows left that the last batch
    could not move.
    """
    selected = [m for m in registry.migrations()
                if names is None or m.name in names]
    unknown = set(names or ()) - {m.name for m in selected}
    if unknown:
        raise ValueError('unknown migrations: %s' % ', '.join(sorted(unknown)))
    remaining = max_count
    rows = []
    bar = _progress_bar(progress, max_count)
    try:
        for migration in selected:
            row = {'name': migration.name, 'found': 0, 'done': 0,
                   'blocked': None, 'error': None}
            rows.append(row)
            if remaining == 0:
                continue
            row['blocked'] = _blocked_by(context, migration.needs)
            if row['blocked']:
                LOG.info('Migration %s waits for %s', migration.name,
                         row['blocked'])
                continue
            size = (max_count or batch or migration.batch or
                    registry.DEFAULT_BATCH)
            remaining = _run_one(context, migration, row, size, remaining,
                                 bar)
    finally:
        bar.close()
    if any(r['error'] for r in rows):
        code = 2
    elif remaining == 0 or any(r['blocked'] for r in rows):
        code = 1
    else:
        code = 0
    return rows, code


def _blocked_by(context, needs):
    if not needs:
        return None
    try:
        return service_version.unmet_needs(context, needs)
    except Exception as e:
        # E.g. a cell that does not answer: not provably upgraded.
        return 'service versions unknown (%s)' % e


def _run_one(context, migration, row, batch, remaining, bar):
    stuck = 0
    while remaining is None or remaining > 0:
        count = batch if remaining is None else min(batch, remaining)
        try:
            found, done = migration.fn(context, count)
        except Exception as e:
            LOG.exception('Migration %s failed', migration.name)
            row['error'] = '%s: %s' % (type(e).__name__, e)
            break
        row['done'] += done
        stuck = found - done
        bar.update(done)
        if remaining is not None:
            remaining -= done
        if not found or not done:
            break
    row['found'] = row['done'] + stuck
    return remaining


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress_bar(progress, total):
    if not progress:
        return _NoBar()
    return tqdm.tqdm(total=total, unit='rows', desc='online migrations')
