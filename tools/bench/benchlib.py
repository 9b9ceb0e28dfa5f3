"""What the benchmarks share: uniquely named throwaway databases."""
import os
import shutil
import statistics
import tempfile
import time
import uuid

import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db

MYSQL = os.environ.get('NOVA_LITE_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1')


class Backend(object):
    """Creates and drops uniquely named databases on one engine type
    ('sqlite': files in a temporary directory; 'mysql': MYSQL)."""

    def __init__(self, kind):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix='nl-bench-') \
            if kind == 'sqlite' else None
        self.created = []

    def new_db(self, label):
        name = 'nl_bench_%s_%s' % (label, uuid.uuid4().hex[:8])
        if self.kind == 'sqlite':
            self.created.append(os.path.join(self.dir, name + '.sqlite'))
            return 'sqlite:///%s' % self.created[-1]
        engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
        with engine.begin() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
        engine.dispose()
        self.created.append(name)
        return '%s/%s' % (MYSQL, name)

    def drop_all(self):
        """Drop every database made so far (the backend stays usable)."""
        if self.kind == 'sqlite':
            for path in self.created:
                if os.path.exists(path):
                    os.unlink(path)
        elif self.created:
            engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
            with engine.begin() as conn:
                for name in self.created:
                    conn.execute(sa.text('DROP DATABASE IF EXISTS %s'
                                         % name))
            engine.dispose()
        self.created = []

    def cleanup(self):
        api_db.reset()
        main_db.reset()
        self.drop_all()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def timed(fn, repeat):
    """(median, best) seconds of repeat runs of fn() after a warm-up run
    (caches, connection pools). The best run is the one least disturbed by
    other work on the machine."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)
