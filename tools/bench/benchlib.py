"""What the benchmarks share: uniquely named throwaway databases."""
import contextlib
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
# The same variables as tests/real/conftest.py (NOVA_LITE_POSTGRESQL_URL is
# the older spelling).
POSTGRESQL = os.environ.get('NOVA_LITE_PG_URL') or os.environ.get(
    'NOVA_LITE_POSTGRESQL_URL', 'postgresql+psycopg2://postgres@127.0.0.1')
SERVERS = {'mysql': MYSQL, 'postgresql': POSTGRESQL}


class Backend(object):
    """Creates and drops uniquely named databases on one engine type
    ('sqlite': files in a temporary directory; 'mysql': MYSQL;
    'postgresql': POSTGRESQL)."""

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
        with self._server() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
        self.created.append(name)
        return '%s/%s' % (SERVERS[self.kind], name)

    @contextlib.contextmanager
    def _server(self):
        """An autocommit connection to the server's default database
        (PostgreSQL creates and drops databases outside transactions)."""
        url = SERVERS[self.kind]
        if self.kind == 'postgresql':
            url += '/postgres'
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                                  isolation_level='AUTOCOMMIT')
        try:
            with engine.connect() as conn:
                yield conn
        finally:
            engine.dispose()

    def drop_all(self):
        """Drop every database made so far (the backend stays usable)."""
        if self.kind == 'sqlite':
            for path in self.created:
                if os.path.exists(path):
                    os.unlink(path)
        elif self.created:
            # Pooled connections of the code under test may still be
            # open: PostgreSQL drops the database anyway (FORCE).
            with self._server() as conn:
                for name in self.created:
                    conn.execute(sa.text('DROP DATABASE IF EXISTS %s%s' % (
                        name, ' WITH (FORCE)'
                        if self.kind == 'postgresql' else '')))
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
