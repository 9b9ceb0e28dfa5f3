"""Quotas side by side: nova-lite-all-in-one (2 cells, SQLite) and real
Nova 34 (../shared/anchors/real_nova_server.py --keep-quotas, through
tools/bench/nova_filled.py) in the same run, both with their default
quota driver enforcing.

    python tools/bench/quotas.py [--boot 200] [--limits-servers 2000]
        [--limits-runs 50] [--placement] [--no-quota]
        [--nova-python /tmp/nova-venv/bin/python] [--no-nova]
        [--sides nova_lite,nova] [--hold FILE]

1. Boot: project admin's quota is raised to --limits-servers through
   PUT /os-quota-sets (so the check runs and counts on every boot, and
   binds just past the last server), then one sequential client POSTs
   --boot servers and polls until every one is ACTIVE: wall time and
   POST p50/p95 per side. Target (issue 33): nova_lite >= 10x faster.
   One more boot past a quota lowered to --boot is Nova's 403 on both.
2. /limits: the clouds are filled to --limits-servers across the cells
   (nova_lite: POSTs with max_count 100; Nova: copies made by its own
   objects, see nova_filled.py), then GET /limits runs --limits-runs
   times per side, the sides taking turns. Target: nova_lite p50 <= 0.1x
   Nova's.

--placement counts usage from placement and the instance mappings on
nova_lite; --no-quota runs nova_lite with the NoopQuotaDriver.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flavor_create as fc  # noqa: E402
import servers  # noqa: E402

# Room on the simulated hosts for many servers; quotas as Nova's
# defaults (then raised for the project through the API).
AIO_CONFIG = """[fake_driver]
vcpus = 256
memory_mb = 262144
local_gb = 8192

[quota]
count_usage_from_placement = %s
driver = %s
"""


class NovaLite(fc.NovaLite):
    def __init__(self, placement, driver):
        self.placement = placement
        self.driver = driver

    def __enter__(self):
        self.conf = tempfile.NamedTemporaryFile('w', suffix='.conf',
                                                delete=False)
        self.conf.write(AIO_CONFIG % (self.placement, self.driver))
        self.conf.close()
        fc.NovaLite.EXTRA_ARGS = ['--config-file', self.conf.name]
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        os.unlink(self.conf.name)


class RealNova(servers.RealNova):
    extra_args = ('--keep-quotas',)


def _set_quota(conn, instances):
    status, data = servers._request(
        conn, 'PUT', '/v2.1/os-quota-sets/admin', {'quota_set': {
            'instances': instances, 'cores': instances,
            'ram': instances * servers.FLAVOR['ram']}})
    assert status == 200, data


def _limits_once(conn):
    start = time.perf_counter()
    status, data = servers._request(conn, 'GET', '/v2.1/limits')
    took = time.perf_counter() - start
    assert status == 200, data
    return took, json.loads(data)['limits']['absolute']


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boot', type=int, default=200)
    parser.add_argument('--limits-servers', type=int, default=2000)
    parser.add_argument('--limits-runs', type=int, default=50)
    parser.add_argument('--placement', action='store_true')
    parser.add_argument('--no-quota', action='store_true',
                        help='NoopQuotaDriver: the same run without quotas')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--no-nova', action='store_true')
    parser.add_argument('--sides', default='nova_lite,nova',
                        help='which sides to run (nova_lite, nova)')
    parser.add_argument('--hold', metavar='FILE',
                        help='after the figures, keep the sides up (their '
                        'ports printed) until FILE exists')
    args = parser.parse_args()
    driver = ('nova_lite.quota.NoopQuotaDriver' if args.no_quota
              else 'nova_lite.quota.DbQuotaDriver')
    total = max(args.limits_servers, args.boot)
    print('boot %d servers of project admin (quota enforced, raised to %d '
          'instances; nova_lite driver %s, count_usage_from_placement=%s), '
          'then GET /limits x %d at %d servers across the cells'
          % (args.boot, total, driver, args.placement, args.limits_runs,
             total), flush=True)
    names = args.sides.split(',')
    if args.no_nova and 'nova' in names:
        names.remove('nova')
    sides = []
    if 'nova_lite' in names:
        sides.append(NovaLite(args.placement, driver))
    if 'nova' in names:
        sides.append(RealNova(args.nova_python))
    results = {}
    with contextlib.ExitStack() as running:
        for side in sides:
            running.enter_context(side)
            servers.ensure_flavor(side)
            conn = servers._conn(side)
            _set_quota(conn, args.boot)
            r = results[side.name] = servers.boot(side, args.boot)
            print('%-9s boot %d (quota %d instances): wall %.1f s (POSTs '
                  '%.1f s), POST p50 %.1f ms p95 %.1f ms' % (
                      side.name, args.boot, args.boot, r['wall_s'],
                      r['posts_s'], r['post_p50_ms'], r['post_p95_ms']),
                  flush=True)
            status, data = servers._request(conn, 'POST', '/v2.1/servers', {
                'server': {'name': 'over', 'flavorRef': servers.FLAVOR['id'],
                           'imageRef': servers.IMAGE, 'networks': 'none'}})
            print('%-9s boot %d+1: %d %s' % (side.name, args.boot, status,
                                             data[:160].decode()), flush=True)
            _set_quota(conn, total)
            if total > args.boot:
                took = servers.fill(side, total, args.boot)
                print('%-9s filled to %d servers in %.1f s' % (
                    side.name, total, took), flush=True)
        conns = {side.name: servers._conn(side) for side in sides}
        pids = {side.name: side.proc.pid for side in sides}
        times = {name: [] for name in conns}
        cpu = {}
        shown = {}
        for i in range(args.limits_runs + 3):
            if i == 3:
                cpu = {name: fc._cpu_seconds(pid)
                       for name, pid in pids.items()}
            for name, conn in conns.items():
                took, absolute = _limits_once(conn)
                if i >= 3:
                    times[name].append(took)
                shown[name] = absolute
        for name, values in times.items():
            r = results[name]
            r['limits_p50_ms'] = 1000 * statistics.median(values)
            # The server process's own CPU per request: what a loaded
            # machine distorts least (it includes the process's
            # background work: heartbeats, periodic tasks).
            r['limits_cpu_ms'] = 1000 * (fc._cpu_seconds(pids[name])
                                         - cpu[name]) / len(values)
            print('%-9s GET /limits at %d servers: p50 %.1f ms p95 %.1f ms, '
                  'server CPU %.1f ms/request (totalInstancesUsed %s); '
                  'load %s' % (
                      name, total, r['limits_p50_ms'],
                      1000 * servers._pct(values, 0.95), r['limits_cpu_ms'],
                      shown[name].get('totalInstancesUsed'),
                      os.getloadavg()[0]), flush=True)
        if args.hold:
            print('holding: %s until %s exists' % (', '.join(
                '%s port %d pid %d' % (side.name, side.port, side.proc.pid)
                for side in sides), args.hold), flush=True)
            while not os.path.exists(args.hold):
                time.sleep(1)
    if len(results) == 2:
        lite, nova = results['nova_lite'], results['nova']
        print('boot wall with quotas: nova_lite %.1f s, Nova %.1f s: %.1fx '
              'faster (target >= 10x)' % (lite['wall_s'], nova['wall_s'],
                                          nova['wall_s'] / lite['wall_s']))
        print('GET /limits p50 at %d servers: nova_lite %.1f ms, Nova %.1f '
              'ms: %.3fx (target <= 0.1x); server CPU %.1f vs %.1f ms: '
              '%.3fx' % (
                  total, lite['limits_p50_ms'], nova['limits_p50_ms'],
                  lite['limits_p50_ms'] / nova['limits_p50_ms'],
                  lite['limits_cpu_ms'], nova['limits_cpu_ms'],
                  lite['limits_cpu_ms'] / nova['limits_cpu_ms']))


if __name__ == '__main__':
    main()
