#!/usr/bin/env python3
"""Servers side by side: nova-lite-all-in-one (2 cells, SQLite) and real
Nova 34 (../shared/anchors/real_nova_server.py) in the same run.

    python tools/bench/servers.py [--boot 200] [--list-sizes 200,2000]
        [--list-runs 30] [--sections boot,list,actions]
        [--action-servers 20] [--action-cycles 200] [--action-warmup 20]
        [--nova-python /tmp/nova-venv/bin/python] [--no-nova]

1. Boot: one sequential client POSTs --boot servers (networks none,
   microversion 2.47) and then polls until every one is ACTIVE. Prints
   the wall time (first POST to all ACTIVE) and POST p50/p95. Target
   (issue 14): nova_lite >= 10x faster than Nova.
2. List: the cloud is filled up to each size of --list-sizes (nova_lite:
   POSTs with max_count 100, every server built; Nova: copies of the
   servers it booted made by its own objects in its own process, see
   nova_filled.py -- it builds about 20-30 servers a minute here), then
   GET /servers/detail?limit=200 at 2.47 runs --list-runs times per
   side, the two sides' requests and the raw floor taking turns (both
   sides run at once, so every figure sees the same machine load).
   Prints p50/p95; for nova_lite also the SQL statements one such
   listing runs (counted in a process of its own over the same
   databases) and the raw floor: the same rows read with plain SELECTs
   and dumped with json.dumps. Targets: <= 0.1x Nova's p50 and <= 3x
   the floor.

3. Actions: --action-servers servers booted, --action-warmup untimed
   stop/start cycles on them (both sides: first-use costs are not the
   steady state), then --action-cycles stop/start cycles across the
   cells (tools/bench/server_actions.py):
   actions per second and p50/p95 from a POST to the listing showing
   the new state. Target (issue 15): nova_lite >= 10x Nova's actions/s.
   ``--sections actions`` runs this one alone.

Every POST must answer 202 and every server go ACTIVE; anything else
stops the run.
"""
import argparse
import contextlib
import http.client
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flavor_create as fc  # noqa: E402
import server_actions  # noqa: E402

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = {'name': 'bench.server', 'ram': 64, 'vcpus': 1, 'disk': 1,
          'id': 'bench-server'}
VERSION = '2.47'
# The all-in-one's simulated hosts must hold --list-servers servers.
AIO_CONFIG = """[fake_driver]
vcpus = 256
memory_mb = 262144
local_gb = 8192

# The benchmark boots hundreds of servers in one project: no instance,
# core or ram quota (the quota check still runs; tools/bench/quotas.py
# measures it with quotas that bind).
[quota]
instances = -1
cores = -1
ram = -1
"""


def _headers(version=VERSION):
    headers = dict(fc.HEADERS)
    headers['OpenStack-API-Version'] = 'compute %s' % version
    headers['X-OpenStack-Nova-API-Version'] = version
    return headers


def _request(conn, method, path, body=None):
    conn.request(method, path, body=None if body is None
                 else json.dumps(body), headers=_headers())
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, data


class NovaLite(fc.NovaLite):
    """The all-in-one with room for many small servers."""

    def __enter__(self):
        import tempfile
        self.conf = tempfile.NamedTemporaryFile('w', suffix='.conf',
                                                delete=False)
        self.conf.write(AIO_CONFIG)
        self.conf.close()
        fc.NovaLite.EXTRA_ARGS = ['--config-file', self.conf.name]
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        os.unlink(self.conf.name)


def _conn(side):
    return http.client.HTTPConnection('127.0.0.1', side.port, timeout=600)


def ensure_flavor(side):
    conn = _conn(side)
    status, body = _request(conn, 'POST', '/v2.1/flavors',
                            {'flavor': FLAVOR})
    if status not in (200, 409):
        raise RuntimeError('%s: flavor create %s %s' % (side.name, status,
                                                        body[:300]))


def _post_servers(conn, name, count=1):
    body = {'server': {'name': name, 'flavorRef': FLAVOR['id'],
                       'imageRef': IMAGE, 'networks': 'none'}}
    if count > 1:
        body['server'].update(min_count=count, max_count=count)
    start = time.perf_counter()
    status, data = _request(conn, 'POST', '/v2.1/servers', body)
    elapsed = time.perf_counter() - start
    if status != 202:
        raise RuntimeError('POST /servers: %s %s' % (status, data[:300]))
    return elapsed


def _statuses(conn):
    """{status: count} of every server (paged listing)."""
    counts, marker = {}, None
    while True:
        path = '/v2.1/servers/detail?limit=1000'
        if marker:
            path += '&marker=%s' % marker
        status, data = _request(conn, 'GET', path)
        if status != 200:
            raise RuntimeError('GET servers: %s %s' % (status, data[:300]))
        servers = json.loads(data)['servers']
        for server in servers:
            counts[server['status']] = counts.get(server['status'], 0) + 1
        if len(servers) < 1000:
            return counts
        marker = servers[-1]['id']


def _faults(conn, shown=5):
    """The distinct fault messages of the servers in ERROR, each with
    how many servers have it and one of their uuids."""
    status, data = _request(conn, 'GET',
                            '/v2.1/servers/detail?status=ERROR&limit=1000')
    if status != 200:
        return ['GET servers?status=ERROR: %s' % status]
    faults = {}
    for server in json.loads(data)['servers']:
        message = (server.get('fault') or {}).get('message', 'no fault')
        faults.setdefault(message, []).append(server['id'])
    return ['%d x %r (e.g. %s)' % (len(uuids), message[:300], uuids[0])
            for message, uuids in sorted(faults.items(),
                                         key=lambda f: -len(f[1]))][:shown]


# Seconds without one more server ACTIVE after which a wait gives up
# (a side that stopped building: the figure would never come), and
# between two progress lines while waiting.
STALL_TIMEOUT = int(os.environ.get('NOVA_LITE_BENCH_STALL_TIMEOUT', 600))
PROGRESS_EVERY = 60


def wait_active(side, total, timeout):
    """Until total servers are ACTIVE: stops the run on any ERROR (with
    the faults), after timeout seconds, or after STALL_TIMEOUT seconds
    in which no more servers went ACTIVE."""
    conn = _conn(side)
    start = time.monotonic()
    deadline = start + timeout
    active, progressed, shown = -1, start, start
    while True:
        counts = _statuses(conn)
        if counts.get('ERROR'):
            raise RuntimeError('%s: %d servers in ERROR: %s' % (
                side.name, counts['ERROR'], '; '.join(_faults(conn))))
        if counts.get('ACTIVE', 0) >= total:
            return
        now = time.monotonic()
        if counts.get('ACTIVE', 0) > active:
            active, progressed = counts.get('ACTIVE', 0), now
        if now > deadline:
            raise RuntimeError('%s: not all ACTIVE after %d s: %s' % (
                side.name, timeout, counts))
        if STALL_TIMEOUT and now - progressed > STALL_TIMEOUT:
            raise RuntimeError('%s: no server went ACTIVE for %d s: %s' % (
                side.name, STALL_TIMEOUT, counts))
        if now - shown >= PROGRESS_EVERY:
            shown = now
            print('%-9s waiting %.0f s for %d ACTIVE: %s' % (
                side.name, now - start, total, counts), flush=True)
        time.sleep(0.2)


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def boot(side, count):
    conn = _conn(side)
    start = time.perf_counter()
    posts = [_post_servers(conn, 'boot-%04d' % i) for i in range(count)]
    posted = time.perf_counter() - start
    wait_active(side, count, timeout=1800)
    wall = time.perf_counter() - start
    return {'wall_s': wall, 'posts_s': posted,
            'post_p50_ms': 1000 * statistics.median(posts),
            'post_p95_ms': 1000 * _pct(posts, 0.95)}


def fill(side, total, already):
    conn = _conn(side)
    start = time.perf_counter()
    if side.name == 'nova':
        status, data = _request(conn, 'POST', '/_bench/fill',
                                {'total': total})
        if status != 200:
            raise RuntimeError('nova fill: %s %s' % (status, data[:300]))
    else:
        made = already
        while made < total:
            batch = min(100, total - made)
            _post_servers(conn, 'fill-%05d' % made, batch)
            made += batch
    wait_active(side, total, timeout=7200)
    return time.perf_counter() - start


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _list_once(side, conn):
    status, data = _request(conn, 'GET', '/v2.1/servers/detail?limit=200')
    if status != 200 or len(json.loads(data)['servers']) != 200:
        raise RuntimeError('%s: list %s' % (side.name, status))


def list_detail(sides, runs, floor=None):
    """{side name: p50/p95 of GET /servers/detail?limit=200}, the sides'
    requests (and, with floor, a floor run) taking turns so that every
    figure sees the same machine load; the floor's p50 under 'floor'."""
    conns = [(side, _conn(side)) for side in sides]
    times = dict((side.name, []) for side in sides)
    if floor is not None:
        times['floor'] = []
    for _ in range(runs + 3):
        for side, conn in conns:
            times[side.name].append(_timed(lambda: _list_once(side, conn)))
        if floor is not None:
            times['floor'].append(_timed(floor))
    return dict((name, {'p50_ms': 1000 * statistics.median(t[3:]),
                        'p95_ms': 1000 * _pct(t[3:], 0.95)})
                for name, t in times.items())


def statements_per_list(state_dir):
    """SQL statements of one listing, counted by servers_floor.py in a
    process of its own over the all-in-one's databases (read-only)."""
    import subprocess
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, 'servers_floor.py'),
         state_dir], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])['statements']


def _lists(sides, sizes, runs, results):
    """Both sides filled to each size, then listed in turns with the
    floor (sides up at once: the same load for every figure)."""
    import servers_floor
    lite = sides[0]
    floor = servers_floor.Floor(lite.state)
    for size in sizes:
        for side in sides:
            r = results[side.name]
            filled = fill(side, size, r['had'])
            r['had'] = max(r['had'], size)
            print('%-9s filled to %d servers in %.1f s' % (
                side.name, size, filled), flush=True)
        figures = list_detail(sides, runs, floor)
        for side in sides:
            lst = results[side.name]['list_%d' % size] = figures[side.name]
            print('%-9s list: %d servers; GET /servers/detail?limit=200 p50 '
                  '%.1f ms p95 %.1f ms' % (side.name, size, lst['p50_ms'],
                                           lst['p95_ms']), flush=True)
        lst = results[lite.name]['list_%d' % size]
        lst['floor_p50_ms'] = figures['floor']['p50_ms']
        lst['statements'] = statements_per_list(lite.state)
        print('nova_lite listing at %d: %d SQL statements per request; raw '
              'floor p50 %.1f ms; p50/floor %.2fx (target <= 3x)' % (
                  size, lst['statements'], lst['floor_p50_ms'],
                  lst['p50_ms'] / lst['floor_p50_ms']), flush=True)


class RealNova(fc.RealNova):
    script = os.path.join(HERE, 'nova_filled.py')


def actions(side, args, already=0):
    """Boot --action-servers more servers, run the stop/start cycles
    on them and print the figures."""
    conn = _conn(side)
    names = ['act-%03d' % i for i in range(args.action_servers)]
    for name in names:
        _post_servers(conn, name)
    wait_active(side, already + len(names), timeout=1800)
    status, data = _request(conn, 'GET', '/v2.1/servers/detail?limit=1000')
    uuids = [s['id'] for s in json.loads(data)['servers']
             if s['name'] in names]
    hosts = {s.get('OS-EXT-SRV-ATTR:host') for s in json.loads(data)[
        'servers'] if s['id'] in uuids}
    if args.action_warmup:
        # Untimed, the same for both sides: first-use costs (statement
        # caches, lazily built tables) are not the steady state.
        server_actions.run(_request, conn, uuids, args.action_warmup)
    cpu = fc._cpu_seconds(side.proc.pid)
    r = server_actions.run(_request, conn, uuids, args.action_cycles)
    # The server's own CPU per action: what a loaded machine distorts
    # least (the wall time waits for a share of the cores).
    r['cpu_ms'] = 1000 * (fc._cpu_seconds(side.proc.pid) - cpu) / r[
        'actions']
    print('%-9s actions: %d (stop/start over %d servers on hosts %s) in '
          '%.1f s: %.1f actions/s; POST to new state p50 %.1f ms p95 '
          '%.1f ms; server CPU %.1f ms/action; load %s' % (
              side.name, r['actions'], len(uuids),
              ','.join(sorted(h or '?' for h in hosts)),
              r['wall_s'], r['actions_per_s'], r['p50_ms'], r['p95_ms'],
              r['cpu_ms'], '%.1f' % os.getloadavg()[0]), flush=True)
    return r


def actions_only(sides, args):
    results = {}
    for side in sides:
        with side:
            ensure_flavor(side)
            results[side.name] = actions(side, args)
    if 'nova' in results:
        lite, nova = results['nova_lite'], results['nova']
        print('actions/s: nova_lite %.1f, Nova %.1f: %.1fx (target >= 10x); '
              'p95 nova_lite %.1f ms, Nova %.1f ms; server CPU per action '
              'nova_lite %.1f ms, Nova %.1f ms: %.1fx' % (
                  lite['actions_per_s'], nova['actions_per_s'],
                  lite['actions_per_s'] / nova['actions_per_s'],
                  lite['p95_ms'], nova['p95_ms'], lite['cpu_ms'],
                  nova['cpu_ms'], nova['cpu_ms'] / lite['cpu_ms']))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boot', type=int, default=200)
    parser.add_argument('--list-sizes', default='200,2000',
                        help='comma-separated server counts to list at')
    parser.add_argument('--list-runs', type=int, default=30)
    parser.add_argument('--sections', default='boot,list,actions')
    parser.add_argument('--action-servers', type=int, default=20)
    parser.add_argument('--action-cycles', type=int, default=200)
    parser.add_argument('--action-warmup', type=int, default=20,
                        help='untimed stop/start cycles first (both sides)')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--no-nova', action='store_true')
    args = parser.parse_args()
    sizes = sorted({int(n) for n in args.list_sizes.split(',') if n})
    sides = [NovaLite()]
    if not args.no_nova:
        sides.append(RealNova(args.nova_python))
    sections = set(args.sections.split(','))
    if sections == {'actions'}:
        print('%d stop/start cycles over %d servers after %d untimed ones '
              '(networks none, flavor %d MiB/1 vCPU/1 GB, microversion %s)'
              % (args.action_cycles, args.action_servers, args.action_warmup,
                 FLAVOR['ram'], VERSION))
        return actions_only(sides, args)
    print('boot %d servers (networks none, flavor %d MiB/1 vCPU/1 GB, '
          'microversion %s), then list at %s servers across the cells'
          % (args.boot, FLAVOR['ram'], VERSION,
             ', '.join(map(str, sizes))))
    results = {}
    with contextlib.ExitStack() as running:
        for side in sides:
            running.enter_context(side)
            ensure_flavor(side)
            r = results[side.name] = boot(side, args.boot)
            print('%-9s boot %d: wall %.1f s (POSTs %.1f s), POST p50 '
                  '%.1f ms p95 %.1f ms' % (
                      side.name, args.boot, r['wall_s'], r['posts_s'],
                      r['post_p50_ms'], r['post_p95_ms']), flush=True)
            r['had'] = args.boot
            if 'actions' in sections:
                r['actions'] = actions(side, args, already=r['had'])
                r['had'] += args.action_servers
        if 'list' in sections:
            _lists(sides, sizes, args.list_runs, results)
    if 'nova' in results:
        lite, nova = results['nova_lite'], results['nova']
        print('boot wall: nova_lite %.1f s, Nova %.1f s: %.1fx faster '
              '(target >= 10x)' % (lite['wall_s'], nova['wall_s'],
                                   nova['wall_s'] / lite['wall_s']))
        if 'actions' in lite and 'actions' in nova:
            print('actions/s: nova_lite %.1f, Nova %.1f: %.1fx (target >= '
                  '10x)' % (lite['actions']['actions_per_s'],
                            nova['actions']['actions_per_s'],
                            lite['actions']['actions_per_s']
                            / nova['actions']['actions_per_s']))
        for size in sizes:
            key = 'list_%d' % size
            if key not in lite or key not in nova:
                continue
            print('list p50 at %d servers: nova_lite %.1f ms, Nova %.1f ms:'
                  ' %.3fx (target <= 0.1x)' % (
                      size, lite[key]['p50_ms'], nova[key]['p50_ms'],
                      lite[key]['p50_ms'] / nova[key]['p50_ms']))


if __name__ == '__main__':
    main()
