#!/usr/bin/env python3
"""Flavor migration and flavor list benchmarks (issue 4, item 5).

    python tools/bench/flavor_migration.py [--flavors 10000] [--specs 5]
        [--projects 3] [--backends sqlite,mysql] [--list-flavors 1000]
        [--list-limit 1000] [--repeat 5] [--json]

Migration: N legacy flavors, each with S extra specs and P projects, in
the top-level cell DB; wall time of the online migration
(run_migrations(names=['migrate_flavors']), default batch and a large
batch) into the API DB, a separate database as deployed (SQLite: another
file; MariaDB: another database on the same server). Target: <= 3x the
floor.

Floor: plain SQL INSERT ... SELECT copy of the same rows into the API
tables of the *same* database (a scratch database holding both the legacy
and the API flavor tables), flavor rows then specs and projects joined to
the new flavor ids, one transaction. The migration additionally
soft-deletes the legacy rows; "floor+softdelete" adds those UPDATEs.

List: L API flavors + L legacy flavors (same specs/projects), the object
call behind GET /flavors/detail?limit=1000: FlavorList.get_all(limit)
(merged union, specs and projects loaded), median of --repeat runs, vs a
raw SELECT of the same page (flavor columns from both databases, merged)
plus json.dumps. Target: <= 3x.

Every figure is printed; nothing is asserted (tests run it small).
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite.db import migration
from nova_lite.db import online_migrations
from nova_lite import objects
from nova_lite.objects import flavor as flavor_obj

MYSQL = os.environ.get('NOVA_LITE_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1')
FLAVOR_COLUMNS = [c for c in flavor_obj.COLUMNS if c != 'id']


class Backend(object):
    """Creates and drops uniquely named databases on one engine type."""

    def __init__(self, kind):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix='nl-bench-') \
            if kind == 'sqlite' else None
        self.created = []

    def new_db(self, label):
        name = 'nl_bench_%s_%s' % (label, uuid.uuid4().hex[:8])
        if self.kind == 'sqlite':
            return 'sqlite:///%s/%s.sqlite' % (self.dir, name)
        engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
        with engine.begin() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
        engine.dispose()
        self.created.append(name)
        return '%s/%s' % (MYSQL, name)

    def cleanup(self):
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        if self.created:
            engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
            with engine.begin() as conn:
                for name in self.created:
                    conn.execute(sa.text('DROP DATABASE IF EXISTS %s'
                                         % name))
            engine.dispose()


def flavor_rows(n, prefix):
    now = datetime.datetime(2020, 1, 1)
    return [{'name': '%s-%06d' % (prefix, i),
             'flavorid': '%s%06d' % (prefix, i), 'memory_mb': 512 + i,
             'vcpus': 1 + i % 8, 'swap': 0, 'vcpu_weight': None,
             'rxtx_factor': 1.0, 'root_gb': 1 + i % 100, 'ephemeral_gb': 0,
             'disabled': False, 'is_public': i % 10 != 0,
             'description': None, 'deleted': 0, 'created_at': now}
            for i in range(n)]


def populate(conn, gen, n, specs, projects, prefix):
    """Insert n flavors with specs and projects into gen's tables."""
    rows = flavor_rows(n, prefix)
    for part in flavor_obj.chunks(rows, 5000):
        conn.execute(gen.flavors.insert(), part)
    ids = [r[0] for r in conn.execute(
        sa.select(gen.flavors.c.id).where(
            gen.flavors.c.flavorid.like(prefix + '%')))]
    spec_rows = [{'flavor_id': i, 'key': 'hw:key%d' % j,
                  'value': 'value-%d' % j, 'deleted': 0}
                 for i in ids for j in range(specs)]
    for part in flavor_obj.chunks(spec_rows, 10000):
        conn.execute(gen.extra_specs.insert(), part)
    project_rows = [{'flavor_id': i, 'project_id': 'project-%d' % j,
                     'deleted': 0} for i in ids for j in range(projects)]
    for part in flavor_obj.chunks(project_rows, 10000):
        conn.execute(gen.projects.insert(), part)


def configure(api_url, cell_url):
    for group, url in (('api_database', api_url), ('database', cell_url)):
        CONF.set_override('connection', url, group=group)
    api_db.reset()
    main_db.reset()


def deployment(backend, args, api_n=0, legacy_n=0):
    api_url, cell_url = backend.new_db('api'), backend.new_db('cell')
    migration.db_sync('api', api_url)
    migration.db_sync('main', cell_url)
    configure(api_url, cell_url)
    if api_n:
        with api_db.get_engine().begin() as conn:
            populate(conn, flavor_obj.API, api_n, args.specs, args.projects,
                     'a')
    if legacy_n:
        with main_db.get_engine().begin() as conn:
            populate(conn, flavor_obj.LEGACY, legacy_n, args.specs,
                     args.projects, 'l')


def bench_migration(backend, args, batch):
    deployment(backend, args, legacy_n=args.flavors)
    ctxt = nova_context.get_admin_context()
    online_migrations.DEFAULT_BATCH = batch
    start = time.perf_counter()
    rows, code = online_migrations.run_migrations(
        ctxt, names=['migrate_flavors'])
    elapsed = time.perf_counter() - start
    assert code == 0 and rows[0]['done'] == args.flavors, rows
    with api_db.get_engine().connect() as conn:
        copied = conn.execute(sa.select(sa.func.count()).select_from(
            flavor_obj.API.extra_specs)).scalar()
    assert copied == args.flavors * args.specs, copied
    return elapsed


_FLOOR_SQL = [
    'INSERT INTO flavors ({cols}) SELECT {cols} FROM instance_types '
    'WHERE deleted = 0',
    'INSERT INTO flavor_extra_specs (flavor_id, `key`, value, created_at, '
    'updated_at, deleted) SELECT f.id, s.`key`, s.value, s.created_at, '
    's.updated_at, 0 FROM instance_type_extra_specs s '
    'JOIN instance_types it ON it.id = s.flavor_id '
    'JOIN flavors f ON f.flavorid = it.flavorid AND f.deleted = 0 '
    'WHERE s.deleted = 0 AND it.deleted = 0',
    'INSERT INTO flavor_projects (flavor_id, project_id, created_at, '
    'updated_at, deleted) SELECT f.id, p.project_id, p.created_at, '
    'p.updated_at, 0 FROM instance_type_projects p '
    'JOIN instance_types it ON it.id = p.flavor_id '
    'JOIN flavors f ON f.flavorid = it.flavorid AND f.deleted = 0 '
    'WHERE p.deleted = 0 AND it.deleted = 0',
]
_SOFT_DELETE_SQL = [
    'UPDATE instance_type_extra_specs SET deleted = id, deleted_at = {now} '
    'WHERE deleted = 0',
    'UPDATE instance_type_projects SET deleted = id, deleted_at = {now} '
    'WHERE deleted = 0',
    'UPDATE instance_types SET deleted = id, deleted_at = {now} '
    'WHERE deleted = 0',
]


def bench_floor(backend, args, soft_delete=False):
    url = backend.new_db('floor')
    engine = sa.create_engine(url)
    tables = [main_models.InstanceTypes, main_models.InstanceTypeExtraSpecs,
              main_models.InstanceTypeProjects, api_models.Flavors,
              api_models.FlavorExtraSpecs, api_models.FlavorProjects]
    try:
        with engine.begin() as conn:
            for model in tables:
                model.__table__.create(conn)
            populate(conn, flavor_obj.LEGACY, args.flavors, args.specs,
                     args.projects, 'l')
        quote = '"' if backend.kind == 'sqlite' else '`'
        now = "'2026-01-01 00:00:00'"
        statements = [s.format(cols=', '.join(FLAVOR_COLUMNS), now=now)
                      .replace('`', quote) for s in _FLOOR_SQL]
        if soft_delete:
            statements += [s.format(now=now) for s in _SOFT_DELETE_SQL]
        start = time.perf_counter()
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(sa.text(statement))
        elapsed = time.perf_counter() - start
        with engine.connect() as conn:
            copied = conn.execute(sa.text(
                'SELECT count(*) FROM flavor_extra_specs')).scalar()
        assert copied == args.flavors * args.specs, copied
        return elapsed
    finally:
        engine.dispose()


def _median(fn, repeat):
    fn()  # warm caches and connection pools
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_list(backend, args):
    deployment(backend, args, api_n=args.list_flavors,
               legacy_n=args.list_flavors)
    ctxt = nova_context.get_admin_context()
    limit = args.list_limit

    def objects_call():
        flavors = objects.FlavorList.get_all(ctxt, limit=limit)
        assert len(flavors) == min(limit, 2 * args.list_flavors)

    api_engine, cell_engine = api_db.get_engine(), main_db.get_engine()
    cols = ', '.join(FLAVOR_COLUMNS)

    def raw_call():
        rows = []
        for engine, table in ((api_engine, 'flavors'),
                              (cell_engine, 'instance_types')):
            with engine.connect() as conn:
                rows += [dict(r._mapping) for r in conn.execute(sa.text(
                    'SELECT %s FROM %s WHERE deleted = 0 ORDER BY flavorid '
                    'LIMIT %d' % (cols, table, limit)))]
        rows.sort(key=lambda r: r['flavorid'])
        json.dumps({'flavors': rows[:limit]}, default=str)

    return _median(objects_call, args.repeat), _median(raw_call, args.repeat)


def run(args):
    results = []
    for kind in args.backends.split(','):
        backend = Backend(kind)
        try:
            result = {'backend': kind, 'flavors': args.flavors,
                      'specs': args.specs, 'projects': args.projects}
            result['floor_s'] = bench_floor(backend, args)
            result['floor_softdelete_s'] = bench_floor(backend, args, True)
            for batch in args.batches:
                result['migration_batch%d_s' % batch] = bench_migration(
                    backend, args, batch)
                result['migration_batch%d_ratio' % batch] = (
                    result['migration_batch%d_s' % batch]
                    / result['floor_s'])
            obj, raw = bench_list(backend, args)
            result.update({'list_flavors_per_generation': args.list_flavors,
                           'list_limit': args.list_limit,
                           'list_objects_s': obj, 'list_raw_json_s': raw,
                           'list_ratio': obj / raw})
            results.append(result)
        finally:
            api_db.reset()
            main_db.reset()
            backend.cleanup()
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--flavors', type=int, default=10000)
    parser.add_argument('--specs', type=int, default=5)
    parser.add_argument('--projects', type=int, default=3)
    parser.add_argument('--backends', default='sqlite,mysql')
    parser.add_argument('--batches', default='50,1000',
                        help='migration batch sizes (50 = runner default)')
    parser.add_argument('--list-flavors', type=int, default=1000,
                        help='API flavors and legacy flavors, each')
    parser.add_argument('--list-limit', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(',')]
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print('%(backend)s: %(flavors)d legacy flavors x %(specs)d specs x '
              '%(projects)d projects' % r)
        print('  floor INSERT...SELECT      %8.3f s' % r['floor_s'])
        print('  floor + soft-delete        %8.3f s' % r['floor_softdelete_s'])
        for batch in args.batches:
            print('  migration, batch %-5d     %8.3f s  (%.2fx floor)' % (
                batch, r['migration_batch%d_s' % batch],
                r['migration_batch%d_ratio' % batch]))
        print('  FlavorList.get_all(limit=%(list_limit)d), '
              '%(list_flavors_per_generation)d API + '
              '%(list_flavors_per_generation)d legacy:' % r)
        print('    objects %8.4f s   raw SELECT+json.dumps %8.4f s   '
              '(%.2fx)' % (r['list_objects_s'], r['list_raw_json_s'],
                           r['list_ratio']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
