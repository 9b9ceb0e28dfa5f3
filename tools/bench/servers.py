#!/usr/bin/env python3
"""Servers side by side: nova-lite-all-in-one (2 cells, SQLite) and real
Nova 34 (../shared/anchors/real_nova_server.py) in the same run.

    python tools/bench/servers.py [--boot 200] [--list-servers 2000]
        [--nova-list-servers 200] [--list-runs 30]
        [--sections boot,list,actions] [--action-servers 20]
        [--action-cycles 200]
        [--nova-python /tmp/nova-venv/bin/python] [--no-nova]

1. Boot: one sequential client POSTs --boot servers (networks none,
   microversion 2.47) and then polls until every one is ACTIVE. Prints
   the wall time (first POST to all ACTIVE) and POST p50/p95. Target
   (issue 14): nova_lite >= 10x faster than Nova.
2. List: the cloud is filled up to --list-servers servers (POSTs with
   max_count 100), then GET /servers/detail?limit=200 at 2.47 runs
   --list-runs times per side. Prints p50/p95; for nova_lite also the
   SQL statements one such listing runs (counted in this process over
   the same databases) and the raw floor: the same rows read with plain
   SELECTs and dumped with json.dumps. Targets: <= 0.1x Nova's p50 and
   <= 3x the floor. Real Nova builds about 30 servers a minute on this
   machine, so filling it to 2,000 takes over an hour: by default it is
   listed with the --boot servers it has (the page is 200 rows either
   way), and nova_lite at both that size and --list-servers.

3. Actions: --action-servers servers booted, then --action-cycles
   stop/start cycles across the cells (tools/bench/server_actions.py):
   actions per second and p50/p95 from a POST to the listing showing
   the new state. Target (issue 15): nova_lite >= 10x Nova's actions/s.
   ``--sections actions`` runs this one alone.

Every POST must answer 202 and every server go ACTIVE; anything else
stops the run.
"""
import argparse
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


def wait_active(side, total, timeout):
    conn = _conn(side)
    deadline = time.monotonic() + timeout
    while True:
        counts = _statuses(conn)
        if counts.get('ERROR'):
            raise RuntimeError('%s: %d servers in ERROR' % (
                side.name, counts['ERROR']))
        if counts.get('ACTIVE', 0) >= total:
            return
        if time.monotonic() > deadline:
            raise RuntimeError('%s: not all ACTIVE after %d s: %s' % (
                side.name, timeout, counts))
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
    made = already
    while made < total:
        batch = min(100, total - made)
        _post_servers(conn, 'fill-%05d' % made, batch)
        made += batch
    wait_active(side, total, timeout=7200)
    return time.perf_counter() - start


def list_detail(side, runs):
    conn = _conn(side)
    times = []
    for _ in range(runs + 3):
        start = time.perf_counter()
        status, data = _request(conn, 'GET',
                                '/v2.1/servers/detail?limit=200')
        times.append(time.perf_counter() - start)
        if status != 200 or len(json.loads(data)['servers']) != 200:
            raise RuntimeError('%s: list %s' % (side.name, status))
    times = times[3:]
    return {'p50_ms': 1000 * statistics.median(times),
            'p95_ms': 1000 * _pct(times, 0.95)}


def nova_lite_inside(state_dir, runs):
    """Statements per listing and the raw floor, in this process over
    the all-in-one's databases (read-only)."""
    import subprocess
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, 'servers_floor.py'),
         state_dir, str(runs)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


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
    r = server_actions.run(_request, conn, uuids, args.action_cycles)
    print('%-9s actions: %d (stop/start over %d servers on hosts %s) in '
          '%.1f s: %.1f actions/s; POST to new state p50 %.1f ms p95 '
          '%.1f ms' % (side.name, r['actions'], len(uuids),
                       ','.join(sorted(h or '?' for h in hosts)),
                       r['wall_s'], r['actions_per_s'], r['p50_ms'],
                       r['p95_ms']), flush=True)
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
              'p95 nova_lite %.1f ms, Nova %.1f ms' % (
                  lite['actions_per_s'], nova['actions_per_s'],
                  lite['actions_per_s'] / nova['actions_per_s'],
                  lite['p95_ms'], nova['p95_ms']))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boot', type=int, default=200)
    parser.add_argument('--list-servers', type=int, default=2000)
    parser.add_argument('--nova-list-servers', type=int, default=None,
                        help='servers in Nova when it is listed (default: '
                             'as many as --boot)')
    parser.add_argument('--list-runs', type=int, default=30)
    parser.add_argument('--sections', default='boot,list,actions')
    parser.add_argument('--action-servers', type=int, default=20)
    parser.add_argument('--action-cycles', type=int, default=200)
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--no-nova', action='store_true')
    args = parser.parse_args()
    sides = [NovaLite()]
    if not args.no_nova:
        sides.append(fc.RealNova(args.nova_python))
    sections = set(args.sections.split(','))
    if sections == {'actions'}:
        print('%d stop/start cycles over %d servers (networks none, flavor '
              '%d MiB/1 vCPU/1 GB, microversion %s)' % (
                  args.action_cycles, args.action_servers, FLAVOR['ram'],
                  VERSION))
        return actions_only(sides, args)
    print('boot %d servers (networks none, flavor %d MiB/1 vCPU/1 GB, '
          'microversion %s), then list %d servers across the cells'
          % (args.boot, FLAVOR['ram'], VERSION, args.list_servers))
    results = {}
    for side in sides:
        with side:
            ensure_flavor(side)
            r = results[side.name] = boot(side, args.boot)
            if 'actions' in sections:
                r['actions'] = actions(side, args, already=args.boot)
            if 'list' not in sections:
                continue
            print('%-9s boot %d: wall %.1f s (POSTs %.1f s), POST p50 '
                  '%.1f ms p95 %.1f ms' % (
                      side.name, args.boot, r['wall_s'], r['posts_s'],
                      r['post_p50_ms'], r['post_p95_ms']), flush=True)
            nova_size = args.nova_list_servers or args.boot
            sizes = ([nova_size] if side.name == 'nova'
                     else sorted({nova_size, args.list_servers}))
            for size in sizes:
                if not size:
                    continue
                filled = fill(side, size, max(
                    [args.boot] + [s for s in sizes if s < size]))
                r['list_%d' % size] = list_detail(side, args.list_runs)
                print('%-9s list: %d servers (filled in %.1f s); GET '
                      '/servers/detail?limit=200 p50 %.1f ms p95 %.1f ms'
                      % (side.name, size, filled,
                         r['list_%d' % size]['p50_ms'],
                         r['list_%d' % size]['p95_ms']), flush=True)
                if side.name == 'nova_lite':
                    inside = nova_lite_inside(side.state, args.list_runs)
                    r['list_%d' % size].update(inside)
                    print('nova_lite listing at %d: %d SQL statements per '
                          'request; raw floor p50 %.1f ms; p50/floor %.2fx '
                          '(target <= 3x)' % (
                              size, inside['statements'],
                              inside['floor_p50_ms'],
                              r['list_%d' % size]['p50_ms']
                              / inside['floor_p50_ms']), flush=True)
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
        size = args.nova_list_servers or args.boot
        key = 'list_%d' % size
        if key in lite and key in nova:
            print('list p50 at %d servers: nova_lite %.1f ms, Nova %.1f ms: '
                  '%.3fx (target <= 0.1x)' % (
                      size, lite[key]['p50_ms'], nova[key]['p50_ms'],
                      lite[key]['p50_ms'] / nova[key]['p50_ms']))


if __name__ == '__main__':
    main()
