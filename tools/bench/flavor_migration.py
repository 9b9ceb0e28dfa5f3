#!/usr/bin/env python3
"""Flavor migration, flavor list and GET /flavors/detail benchmarks (issue
4, item 5).

    python tools/bench/flavor_migration.py [--flavors 10000] [--specs 5]
        [--projects 3] [--backends sqlite,mysql,postgresql]
        [--paths cross,rows] [--batches default] [--migration-repeat 3]
        [--list-flavors 1000]
        [--list-limit 1000] [--repeat 7] [--sections migration,list,api]
        [--json]

Migration: N legacy flavors, each with S extra specs and P projects, in
the top-level cell DB; wall time of the online migration as
`nova-lite-manage db online_data_migrations` runs it
(run_migrations(names=['migrate_flavors']), no count: the migration's own
batch size) into the API DB, a separate database as deployed (SQLite:
another file; MariaDB, PostgreSQL: another database on the same
server). Two copy paths (nova_lite.online_migrations.flavor_copy):
"cross" = INSERT ... SELECT across the two databases (attached SQLite
file / same MariaDB server), the default wherever it applies; "rows" =
bulk inserts of the rows read, what runs between different servers and
on PostgreSQL (which cannot read another database). Target: <= 3x the
floor. Median of --migration-repeat runs, each on freshly populated
databases.

Floor: plain SQL INSERT ... SELECT copy of the same rows into the API
tables of the *same* database (a scratch database holding both the legacy
and the API flavor tables), flavor rows then specs and projects joined to
the new flavor ids, one transaction. The migration also soft-deletes
every legacy row it moved (the issue's deliberate change); "floor +
soft-delete" adds those UPDATEs in plain SQL, i.e. the same work as the
migration with nothing but SQL around it.

List: L API flavors + L legacy flavors (same specs/projects), one page
of the union (merged, specs and projects loaded), median of --repeat
runs, vs a raw SELECT of the same page (flavor columns from both
databases, merged) plus json.dumps. Target: <= 3x. Twice: as Flavor
objects (FlavorList.get_all(limit)) and as the plain rows the API renders
from (objects.flavor.list_rows, the call behind GET /flavors/detail).

API: GET /v2.1/flavors/detail?limit=1000 through the WSGI app (paste
pipeline, noauth2 admin, webtest) on the same data, vs the same raw
SELECT + json.dumps. Only when the flavors controller is in the tree.
At 2.1 the API's list loads neither extra specs nor projects (its bodies
show neither; list_rows(expected_attrs=[])), unlike List above.

--sections picks what runs (e.g. --sections api skips the slow migration
part).

The process is monkey-patched by eventlet first, as every nova_lite
command is (nova-lite-manage included), psycopg2 made cooperative with it
(nova_lite.green): the migration's parallel statements run in green
threads (MariaDB) or threads of the OS (SQLite, PostgreSQL) exactly as
they do there.

Every figure is printed; nothing is asserted (tests run it small).
"""
from nova_lite import green

green.monkey_patch()

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import sqlalchemy as sa  # noqa: E402

from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.api import api as api_db  # noqa: E402
from nova_lite.db.api import flavors as api_flavors  # noqa: E402
from nova_lite.db.api import models as api_models  # noqa: E402
from nova_lite.db import driver_sql  # noqa: E402
from nova_lite.db import flavor_queries  # noqa: E402
from nova_lite.db.main import api as main_db  # noqa: E402
from nova_lite.db.main import legacy_flavors  # noqa: E402
from nova_lite.db.main import models as main_models  # noqa: E402
from nova_lite.db import migration  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import flavor as flavor_obj  # noqa: E402
from nova_lite.online_migrations import flavor_copy  # noqa: E402
from nova_lite.online_migrations import flavors as flavor_migration  # noqa: E402,E501
from nova_lite.online_migrations import runner  # noqa: E402

from benchlib import Backend  # noqa: E402  (tools/bench on sys.path)
from benchlib import timed  # noqa: E402
FLAVOR_COLUMNS = [c for c in flavor_queries.COLUMNS if c != 'id']


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
    for part in driver_sql.chunks(rows, 5000):
        conn.execute(gen.flavors.insert(), part)
    ids = [r[0] for r in conn.execute(
        sa.select(gen.flavors.c.id).where(
            gen.flavors.c.flavorid.like(prefix + '%')))]
    spec_rows = [{'flavor_id': i, 'key': 'hw:key%d' % j,
                  'value': 'value-%d' % j, 'deleted': 0}
                 for i in ids for j in range(specs)]
    for part in driver_sql.chunks(spec_rows, 10000):
        conn.execute(gen.extra_specs.insert(), part)
    project_rows = [{'flavor_id': i, 'project_id': 'project-%d' % j,
                     'deleted': 0} for i in ids for j in range(projects)]
    for part in driver_sql.chunks(project_rows, 10000):
        conn.execute(gen.projects.insert(), part)


def configure(api_url, cell_url):
    for group, url in (('api_database', api_url), ('database', cell_url)):
        CONF.set_override('connection', url, group=group)
    api_db.reset()
    main_db.reset()


def deployment(backend, args, api_n=0, legacy_n=0):
    backend.drop_all()
    api_url, cell_url = backend.new_db('api'), backend.new_db('cell')
    migration.db_sync('api', api_url)
    migration.db_sync('main', cell_url)
    configure(api_url, cell_url)
    if api_n:
        with api_db.get_engine().begin() as conn:
            populate(conn, api_flavors.GEN, api_n, args.specs, args.projects,
                     'a')
    if legacy_n:
        with main_db.get_engine().begin() as conn:
            populate(conn, legacy_flavors.GEN, legacy_n, args.specs,
                     args.projects, 'l')


# --- migration ------------------------------------------------------------

def bench_migration(backend, args, path, batch):
    """Seconds for one full migration, or None if path does not apply."""
    deployment(backend, args, legacy_n=args.flavors)
    flavor_copy.CROSS_DATABASE = path == 'cross'
    try:
        if (flavor_copy.cross_database_source() is not None) != (
                path == 'cross'):
            return None
        ctxt = nova_context.get_admin_context()
        start = time.perf_counter()
        rows, code = runner.run_migrations(
            ctxt, names=['migrate_flavors'], batch=batch)
        elapsed = time.perf_counter() - start
    finally:
        flavor_copy.CROSS_DATABASE = True
    assert code == 0 and rows[0]['done'] == args.flavors, rows
    with api_db.get_engine().connect() as conn:
        copied = conn.execute(sa.select(sa.func.count()).select_from(
            api_flavors.GEN.extra_specs)).scalar()
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
    backend.drop_all()
    url = backend.new_db('floor')
    engine = sa.create_engine(url)
    tables = [main_models.InstanceTypes, main_models.InstanceTypeExtraSpecs,
              main_models.InstanceTypeProjects, api_models.Flavors,
              api_models.FlavorExtraSpecs, api_models.FlavorProjects]
    try:
        with engine.begin() as conn:
            for model in tables:
                model.__table__.create(conn)
            populate(conn, legacy_flavors.GEN, args.flavors, args.specs,
                     args.projects, 'l')
        quote = '`' if backend.kind == 'mysql' else '"'
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


def _median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def run_migration_benchmarks(backend, args, result):
    """Interleaved repeats (floor, floor + soft-delete, each path and
    batch) so that load on the machine hits every figure alike."""
    runs = {'floor': [], 'floor_softdelete': []}
    variants = [(path, batch) for path in args.paths
                for batch in args.batches]
    for variant in variants:
        runs[variant] = []
    for _ in range(args.migration_repeat):
        runs['floor'].append(bench_floor(backend, args))
        runs['floor_softdelete'].append(bench_floor(backend, args, True))
        for path, batch in variants:
            runs[(path, batch)].append(
                bench_migration(backend, args, path, batch))
    floor = result['floor_s'] = statistics.median(runs['floor'])
    floor_sd = result['floor_softdelete_s'] = statistics.median(
        runs['floor_softdelete'])
    result['migrations'] = []
    for path, batch in variants:
        elapsed = _median_or_none(runs[(path, batch)])
        result['migrations'].append({
            'path': path,
            'batch': batch or flavor_migration.FLAVOR_BATCH,
            'default_batch': batch is None,
            'seconds': elapsed,
            'ratio_to_floor': elapsed / floor if elapsed else None,
            'ratio_to_floor_softdelete':
                elapsed / floor_sd if elapsed else None})


# --- list and API ---------------------------------------------------------

def _median(fn, repeat):
    return timed(fn, repeat)[0]


def raw_page(limit):
    """The baseline: the page's flavor rows from both databases with a
    plain SELECT each, merged, and json.dumps."""
    api_engine, cell_engine = api_db.get_engine(), main_db.get_engine()
    cols = ', '.join(FLAVOR_COLUMNS)

    def call():
        rows = []
        for engine, table in ((api_engine, 'flavors'),
                              (cell_engine, 'instance_types')):
            with engine.connect() as conn:
                rows += [dict(r._mapping) for r in conn.execute(sa.text(
                    'SELECT %s FROM %s WHERE deleted = 0 ORDER BY flavorid '
                    'LIMIT %d' % (cols, table, limit)))]
        rows.sort(key=lambda r: r['flavorid'])
        return json.dumps({'flavors': rows[:limit]}, default=str)
    return call


def bench_list(backend, args):
    deployment(backend, args, api_n=args.list_flavors,
               legacy_n=args.list_flavors)
    ctxt = nova_context.get_admin_context()
    limit = args.list_limit

    def objects_call():
        flavors = objects.FlavorList.get_all(ctxt, limit=limit)
        assert len(flavors) == min(limit, 2 * args.list_flavors)

    def rows_call():
        rows = flavor_obj.list_rows(ctxt, limit=limit)
        assert len(rows) == min(limit, 2 * args.list_flavors)

    raw = raw_page(limit)
    # Interleave: one median each, measured alternately in small rounds.
    obj_times, rows_times, raw_times = [], [], []
    objects_call(), rows_call(), raw()
    for _ in range(args.repeat):
        obj_times.append(_median(objects_call, 1))
        rows_times.append(_median(rows_call, 1))
        raw_times.append(_median(raw, 1))
    return (statistics.median(obj_times), statistics.median(rows_times),
            statistics.median(raw_times))


def bench_api(backend, args):
    """GET /v2.1/flavors/detail?limit=L through the WSGI app (same data
    as bench_list: the deployment it left), median seconds, with the raw
    baseline measured alternately."""
    import webtest

    from nova_lite.api import app as api_app
    from nova_lite import policy
    CONF.set_override('auth_strategy', 'noauth2', group='api')
    policy.reset()
    app = webtest.TestApp(api_app.load_app())
    limit = args.list_limit
    url = '/v2.1/flavors/detail?limit=%d' % limit
    headers = {'X-Auth-Token': 'admin:admin'}

    def api_call():
        resp = app.get(url, headers=headers)
        assert len(resp.json['flavors']) == limit, resp.status

    raw = raw_page(limit)
    api_times, raw_times = [], []
    api_call(), raw()
    for _ in range(args.repeat):
        api_times.append(_median(api_call, 1))
        raw_times.append(_median(raw, 1))
    return statistics.median(api_times), statistics.median(raw_times)


def run(args):
    results = []
    for kind in args.backends:
        backend = Backend(kind)
        try:
            result = {'backend': kind, 'flavors': args.flavors,
                      'specs': args.specs, 'projects': args.projects,
                      'list_flavors_per_generation': args.list_flavors,
                      'list_limit': args.list_limit}
            if 'migration' in args.sections:
                run_migration_benchmarks(backend, args, result)
            if 'list' in args.sections:
                obj, rows, raw = bench_list(backend, args)
                result.update({'list_objects_s': obj,
                               'list_rows_s': rows,
                               'list_raw_json_s': raw,
                               'list_ratio': obj / raw,
                               'list_rows_ratio': rows / raw})
            elif 'api' in args.sections:
                deployment(backend, args, api_n=args.list_flavors,
                           legacy_n=args.list_flavors)
            if 'api' in args.sections:
                api, raw = bench_api(backend, args)
                result.update({'api_detail_s': api, 'api_raw_json_s': raw,
                               'api_ratio': api / raw})
            results.append(result)
        finally:
            backend.cleanup()
    return results


def report(results):
    for r in results:
        print('%(backend)s: %(specs)d extra specs x %(projects)d projects '
              'per flavor' % r)
        if 'floor_s' in r:
            report_migration(r)
        if 'list_objects_s' in r:
            report_list(r)
        if 'api_detail_s' in r:
            report_api(r)


def report_migration(r):
    print('  migration of %(flavors)d legacy flavors:' % r)
    print('  floor INSERT...SELECT          %8.3f s' % r['floor_s'])
    print('  floor + soft-delete            %8.3f s  (%.2fx floor)' % (
        r['floor_softdelete_s'], r['floor_softdelete_s'] / r['floor_s']))
    for m in r['migrations']:
        label = '%s, batch %d%s' % (m['path'], m['batch'],
                                   ' (default)' if m['default_batch']
                                   else '')
        if m['seconds'] is None:
            print('  migration %-28s      n/a (path does not apply)'
                  % label)
            continue
        print('  migration %-28s %8.3f s  (%.2fx floor, %.2fx floor + '
              'soft-delete)' % (label, m['seconds'],
                                m['ratio_to_floor'],
                                m['ratio_to_floor_softdelete']))


def report_list(r):
    print('  one page (limit=%(list_limit)d) over '
          '%(list_flavors_per_generation)d API + '
          '%(list_flavors_per_generation)d legacy flavors:' % r)
    print('    objects %8.4f s   raw SELECT+json.dumps %8.4f s   '
          '(%.2fx)  FlavorList.get_all' % (
              r['list_objects_s'], r['list_raw_json_s'], r['list_ratio']))
    print('    rows    %8.4f s   raw SELECT+json.dumps %8.4f s   '
          '(%.2fx)  list_rows (what the API renders)' % (
              r['list_rows_s'], r['list_raw_json_s'],
              r['list_rows_ratio']))


def report_api(r):
    print('  GET /flavors/detail?limit=%(list_limit)d (WSGI app, '
          'same data):' % r)
    print('    API     %8.4f s   raw SELECT+json.dumps %8.4f s   '
          '(%.2fx)' % (r['api_detail_s'], r['api_raw_json_s'],
                       r['api_ratio']))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--flavors', type=int, default=10000)
    parser.add_argument('--specs', type=int, default=5)
    parser.add_argument('--projects', type=int, default=3)
    parser.add_argument('--backends', default='sqlite,mysql,postgresql')
    parser.add_argument('--paths', default='cross,rows',
                        help='copy paths: cross (INSERT ... SELECT across '
                             'databases) and/or rows (executemany)')
    parser.add_argument('--batches', default='default',
                        help='migration batch sizes; "default" = the '
                             'migration\'s own (%d)'
                             % flavor_migration.FLAVOR_BATCH)
    parser.add_argument('--migration-repeat', type=int, default=3)
    parser.add_argument('--list-flavors', type=int, default=1000,
                        help='API flavors and legacy flavors, each')
    parser.add_argument('--list-limit', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=7)
    parser.add_argument('--sections', default='migration,list,api',
                        help='which benchmarks run: migration, list, api '
                             '(comma-separated)')
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    args.backends = args.backends.split(',')
    args.paths = args.paths.split(',')
    args.sections = set(args.sections.split(','))
    unknown = args.sections - {'migration', 'list', 'api'}
    if unknown:
        parser.error('unknown sections: %s' % ', '.join(sorted(unknown)))
    args.batches = [None if b == 'default' else int(b)
                    for b in args.batches.split(',')]
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results)
    return 0


if __name__ == '__main__':
    sys.exit(main())
