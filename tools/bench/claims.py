#!/usr/bin/env python3
"""Claims: nova_lite.placement.allocations.claim() against OpenStack
Placement, same workload, same run, same database server (issue 6, item 6).

    python tools/bench/claims.py [--providers 1000] [--consumers 2000]
        [--race-workers 8] [--race-attempts 80] [--race-room 10]
        [--backends sqlite,mysql] [--systems nova_lite,placement] [--json]

Workload, per system and backend, each in a fresh database:
  setup   N providers with VCPU 64, MEMORY_MB 262144, DISK_GB 4000;
  claims  C consumers, one after another, each claiming 2 VCPU,
          2048 MEMORY_MB, 20 DISK_GB on provider i % N: claims/s, p50/p95
          latency, SQL statements per claim (SQLAlchemy
          before_cursor_execute on the system's engine);
  race    W processes (own connections) make A attempts together against
          one provider with room for R: successes, clean capacity errors,
          5xx/other errors. Expected: R / A - R / 0.

Placement (openstack-placement 16.0.0, the closest to "Placement 16" on
PyPI for Python 3.11) runs in-process: its WSGI app from
placement.deploy.loadapp (noauth2, its own database on the same server,
schema synced on load), called through webob without a network,
PUT /allocations/{consumer} at microversion 1.28 with
consumer_generation. It lives in this benchmark's own venv (.bench-venv,
made on first run: pip install -e . openstack-placement==16.0.0), never
in the project's requirements.

Each (system, backend) runs in its own child process: Placement's
database configuration is once per process. Nothing is asserted; every
figure is printed with the sizes it was measured at.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VENV = os.environ.get('NOVA_LITE_BENCH_VENV',
                      os.path.join(ROOT, '.bench-venv'))
PLACEMENT = 'openstack-placement==16.0.0'
MYSQL = os.environ.get('NOVA_LITE_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1')
MICROVERSION = '1.28'
INVENTORY = {'VCPU': 64, 'MEMORY_MB': 262144, 'DISK_GB': 4000}
FLAVOR = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}


def ensure_venv():
    """Re-run this script in the bench venv (made on first use)."""
    try:
        import placement  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, 'bin', 'python')
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        sys.exit('placement is not importable in %s' % VENV)
    if not os.path.exists(os.path.join(VENV, '.placement-installed')):
        print('claims bench: building %s (%s)' % (VENV, PLACEMENT),
              file=sys.stderr)
        subprocess.check_call([sys.executable, '-m', 'venv', VENV])
        pip = [python, '-m', 'pip', 'install', '-q']
        subprocess.check_call(pip + ['--upgrade', 'pip', 'setuptools',
                                     'wheel'])
        subprocess.check_call(pip + ['-e', ROOT, PLACEMENT])
        open(os.path.join(VENV, '.placement-installed'), 'w').close()
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


# --- databases ---------------------------------------------------------------

def new_database(backend, tmpdir, label):
    import sqlalchemy as sa
    name = 'nl_bench_claims_%s_%s' % (label, uuid.uuid4().hex[:8])
    if backend == 'sqlite':
        return 'sqlite:///%s/%s.sqlite' % (tmpdir, name)
    engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE DATABASE %s CHARACTER SET utf8mb4'
                             % name))
    engine.dispose()
    return '%s/%s?charset=utf8mb4' % (MYSQL, name)


def drop_database(url):
    import sqlalchemy as sa
    if not url.startswith('mysql'):
        return
    name = url.rsplit('/', 1)[1].split('?')[0]
    engine = sa.create_engine(MYSQL, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
    engine.dispose()


class StatementCounter(object):
    def __init__(self, *engines):
        import sqlalchemy as sa
        self.count = 0
        for engine in engines:
            sa.event.listen(engine, 'before_cursor_execute', self._seen)

    def _seen(self, *args):
        self.count += 1


# --- the two systems, behind the same three calls ----------------------------

class NovaLite(object):
    name = 'nova_lite'

    def __init__(self, url):
        from nova_lite.conf import CONF
        from nova_lite import context
        from nova_lite.db.api import api as api_db
        from nova_lite.db import migration
        from nova_lite import exception
        from nova_lite.placement import allocations
        from nova_lite.placement import capacity
        from nova_lite.placement import providers
        CONF([], project='nova_lite', default_config_files=[])
        migration.db_sync('api', url)
        CONF.set_override('connection', url, group='api_database')
        api_db.reset()
        self.providers, self.allocations = providers, allocations
        self.capacity, self.exception = capacity, exception
        self.ctx = context.get_admin_context()
        # Writer and (SQLite) reader engines.
        self.engines = api_db.get_engines()

    def create_providers(self, uuids, inventory):
        invs = dict((rc, {'total': total}) for rc, total in inventory.items())
        for i in range(0, len(uuids), 500):
            self.providers.create_providers(self.ctx, [
                (u, 'node-%s' % u[:8], invs) for u in uuids[i:i + 500]])

    def claim(self, consumer, provider, resources):
        try:
            self.allocations.claim(self.ctx, consumer, {provider: resources})
            return 'ok'
        except self.exception.InsufficientResources:
            return 'full'
        except Exception as exc:
            return 'error: %r' % exc

    def usage(self, provider):
        return self.capacity.read(self.ctx, [provider])[provider]['usages']

    def after_fork(self):
        for engine in self.engines:
            engine.dispose(close=False)


class Placement(object):
    name = 'placement'

    def __init__(self, url):
        from oslo_config import cfg
        from placement import conf as placement_conf
        from placement import db_api
        from placement import deploy
        import webob
        conf = cfg.ConfigOpts()
        placement_conf.register_opts(conf)
        conf.set_override('connection', url, group='placement_database')
        conf([], project='placement', default_config_files=[])
        conf.set_override('sync_on_startup', True,
                          group='placement_database')
        conf.set_override('auth_strategy', 'noauth2', group='api')
        db_api.configure(conf)
        self.app = deploy.loadapp(conf)
        self.webob = webob
        self.engines = [db_api.get_placement_engine()]

    def call(self, method, path, body=None):
        request = self.webob.Request.blank(path, method=method, headers={
            'X-Auth-Token': 'admin', 'OpenStack-API-Version':
            'placement %s' % MICROVERSION, 'Accept': 'application/json'})
        if body is not None:
            request.body = json.dumps(body).encode()
            request.content_type = 'application/json'
        response = request.get_response(self.app)
        return response.status_int, response.body

    def create_providers(self, uuids, inventory):
        for u in uuids:
            status, body = self.call('POST', '/resource_providers', {
                'uuid': u, 'name': 'node-%s' % u})
            assert status == 200, (status, body)
            status, body = self.call(
                'PUT', '/resource_providers/%s/inventories' % u, {
                    'resource_provider_generation': 0,
                    'inventories': dict((rc, {'total': total}) for rc, total
                                        in inventory.items())})
            assert status == 200, (status, body)

    def claim(self, consumer, provider, resources):
        status, body = self.call('PUT', '/allocations/%s' % consumer, {
            'allocations': {provider: {'resources': resources}},
            'project_id': 'bench-project', 'user_id': 'bench-user',
            'consumer_generation': None})
        if status == 204:
            return 'ok'
        if status == 409:
            errors = json.loads(body).get('errors', [{}])
            if errors[0].get('code') != 'placement.concurrent_update':
                return 'full'
        return 'error: HTTP %d %s' % (status, body[:200])

    def usage(self, provider):
        status, body = self.call('GET', '/resource_providers/%s/usages'
                                 % provider)
        return dict((k, v) for k, v in json.loads(body)['usages'].items()
                    if v)

    def after_fork(self):
        for engine in self.engines:
            engine.dispose(close=False)


SYSTEMS = {'nova_lite': NovaLite, 'placement': Placement}


# --- one (system, backend) in a child process --------------------------------

def _race_worker(system, provider, consumers, ready, go, results):
    system.after_fork()      # own connections
    ready.release()
    go.wait()
    for consumer in consumers:
        results.put(system.claim(consumer, provider, FLAVOR))


def race(system, args):
    import multiprocessing
    room = args.race_room
    provider = str(uuid.uuid4())
    system.create_providers([provider], dict(
        (rc, amount * room) for rc, amount in FLAVOR.items()))
    mp = multiprocessing.get_context('fork')
    ready, go, results = mp.Semaphore(0), mp.Event(), mp.Queue()
    consumers = [str(uuid.uuid4()) for _ in range(args.race_attempts)]
    workers = [mp.Process(target=_race_worker, args=(
        system, provider, consumers[i::args.race_workers], ready, go,
        results)) for i in range(args.race_workers)]
    for w in workers:
        w.start()
    for _ in workers:
        ready.acquire()
    started = time.perf_counter()
    go.set()
    outcomes = [results.get(timeout=600) for _ in consumers]
    wall = time.perf_counter() - started
    for w in workers:
        w.join()
    errors = [o for o in outcomes if o.startswith('error')]
    usage = system.usage(provider)
    return {'usage_after': usage, 'overcommitted': any(
        used > FLAVOR[rc] * room for rc, used in usage.items()),
            'ok': outcomes.count('ok'), 'full': outcomes.count('full'),
            'errors': len(errors),
            'server_errors': sum(1 for e in errors if 'HTTP 5' in e),
            'error_samples': sorted(set(e[:160] for e in errors))[:3],
            'wall_s': round(wall, 2)}


def run_one(system_name, url, args):
    started = time.perf_counter()
    system = SYSTEMS[system_name](url)
    providers = [str(uuid.uuid4()) for _ in range(args.providers)]
    system.create_providers(providers, INVENTORY)
    setup_s = time.perf_counter() - started
    counter = StatementCounter(*system.engines)
    latencies, outcomes = [], {}
    wall = time.perf_counter()
    for i in range(args.consumers):
        consumer = str(uuid.uuid4())
        t = time.perf_counter()
        outcome = system.claim(consumer, providers[i % len(providers)],
                               FLAVOR)
        latencies.append(time.perf_counter() - t)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    wall = time.perf_counter() - wall
    statements = counter.count
    latencies.sort()
    return {'system': system_name, 'setup_s': round(setup_s, 2),
            'claims': args.consumers, 'claim_outcomes': outcomes,
            'claims_per_s': round(args.consumers / wall, 1),
            'p50_ms': round(1000 * statistics.median(latencies), 2),
            'p95_ms': round(1000 * latencies[int(0.95 * (len(latencies) - 1))],
                            2),
            'statements_per_claim': round(statements / args.consumers, 2),
            'race': race(system, args)}


def child(system_name, backend, args):
    tmpdir = tempfile.mkdtemp(prefix='nl-bench-claims-')
    url = new_database(backend, tmpdir, system_name)
    try:
        result = run_one(system_name, url, args)
    finally:
        drop_database(url)
    result['backend'] = backend
    print(json.dumps(result))


# --- driver ------------------------------------------------------------------

def report(results, args):
    print('claims benchmark: %d providers (VCPU/MEMORY_MB/DISK_GB), %d '
          'consumers claiming %s one by one; race: %d workers, %d attempts, '
          'room for %d' % (args.providers, args.consumers,
                           '/'.join('%d %s' % (v, k) for k, v in
                                    FLAVOR.items()),
                           args.race_workers, args.race_attempts,
                           args.race_room))
    header = ('backend', 'system', 'claims/s', 'p50 ms', 'p95 ms',
              'SQL/claim', 'race ok/full/err (5xx)', 'setup s')
    print('%-7s %-10s %9s %7s %7s %9s %23s %8s' % header)
    for r in results:
        race_ = r['race']
        print('%-7s %-10s %9.1f %7.2f %7.2f %9.2f %23s %8.1f' % (
            r['backend'], r['system'], r['claims_per_s'], r['p50_ms'],
            r['p95_ms'], r['statements_per_claim'], '%d/%d/%d (%d)' % (
                race_['ok'], race_['full'], race_['errors'],
                race_['server_errors']), r['setup_s']))
        if race_['overcommitted']:
            print('          race OVER-COMMITTED: usage %s, room for %d'
                  % (race_['usage_after'], args.race_room))
        for sample in race_['error_samples']:
            print('          race error: %s' % sample)
        odd = dict((k, v) for k, v in r['claim_outcomes'].items()
                   if k != 'ok')
        if odd:
            print('          claims not ok: %s' % odd)
    by = dict(((r['backend'], r['system']), r) for r in results)
    for backend in sorted(set(r['backend'] for r in results)):
        ours, theirs = by.get((backend, 'nova_lite')), by.get(
            (backend, 'placement'))
        if ours and theirs:
            print('%s: nova_lite/placement claims/s = %.2fx (target >= 2x); '
                  'SQL per claim %.2f vs %.2f = %.2f (target <= 0.5)' % (
                      backend, ours['claims_per_s'] / theirs['claims_per_s'],
                      ours['statements_per_claim'],
                      theirs['statements_per_claim'],
                      ours['statements_per_claim']
                      / theirs['statements_per_claim']))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--providers', type=int, default=1000)
    parser.add_argument('--consumers', type=int, default=2000)
    parser.add_argument('--race-workers', type=int, default=8)
    parser.add_argument('--race-attempts', type=int, default=80)
    parser.add_argument('--race-room', type=int, default=10)
    parser.add_argument('--backends', default='sqlite,mysql')
    parser.add_argument('--systems', default='nova_lite,placement')
    parser.add_argument('--json', action='store_true')
    parser.add_argument('--child', nargs=2, metavar=('SYSTEM', 'BACKEND'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child[0], args.child[1], args)
    ensure_venv()
    passthrough = [a for a in sys.argv[1:] if a != '--json']
    results = []
    for backend in args.backends.split(','):
        for system in args.systems.split(','):
            done = subprocess.run(
                [sys.executable, os.path.abspath(__file__), '--child',
                 system, backend] + passthrough,
                capture_output=True, text=True, cwd=ROOT)
            if done.returncode:
                sys.exit('%s on %s failed:\n%s' % (system, backend,
                                                   done.stderr[-3000:]))
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        report(results, args)


if __name__ == '__main__':
    main()
