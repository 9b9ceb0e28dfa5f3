"""Quotas in the all-in-one: boot N servers of one project with its quota
enforced (the limits raised to fit them: the check runs and counts on
every boot), then GET /limits for that project p50/p95 over R requests.

Arguments: --boot N (200), --limits-runs R (50), --placement (count
usage from placement and the instance mappings instead of the cells),
--no-quota (the same run with the NoopQuotaDriver).
nova_lite only: the side-by-side run with real Nova 34 (the anchor with
--keep-quotas) is not wired here yet.
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boot', type=int, default=200)
    parser.add_argument('--limits-runs', type=int, default=50)
    parser.add_argument('--placement', action='store_true')
    parser.add_argument('--no-quota', action='store_true',
                        help='NoopQuotaDriver: the same run without quotas')
    args = parser.parse_args()
    driver = ('nova_lite.quota.NoopQuotaDriver' if args.no_quota
              else 'nova_lite.quota.DbQuotaDriver')
    print('boot %d servers of project admin, quota driver %s '
          '(count_usage_from_placement=%s), then GET /limits x %d'
          % (args.boot, driver, args.placement, args.limits_runs),
          flush=True)
    with NovaLite(args.placement, driver) as side:
        servers.ensure_flavor(side)
        conn = servers._conn(side)
        status, data = servers._request(
            conn, 'PUT', '/v2.1/os-quota-sets/admin', {'quota_set': {
                'instances': args.boot, 'cores': args.boot,
                'ram': args.boot * servers.FLAVOR['ram']}})
        assert status == 200, data
        r = servers.boot(side, args.boot)
        print('nova_lite boot %d (quota %d instances): wall %.1f s (POSTs '
              '%.1f s), POST p50 %.1f ms p95 %.1f ms' % (
                  args.boot, args.boot, r['wall_s'], r['posts_s'],
                  r['post_p50_ms'], r['post_p95_ms']), flush=True)
        status, data = servers._request(conn, 'POST', '/v2.1/servers', {
            'server': {'name': 'over', 'flavorRef': servers.FLAVOR['id'],
                       'imageRef': servers.IMAGE, 'networks': 'none'}})
        print('nova_lite boot %d+1: %d %s' % (args.boot, status,
                                              data[:200].decode()))
        times = []
        for _ in range(args.limits_runs + 3):
            start = time.perf_counter()
            status, data = servers._request(conn, 'GET', '/v2.1/limits')
            times.append(time.perf_counter() - start)
            assert status == 200, data
        times = times[3:]
        print('nova_lite GET /limits with %d servers: p50 %.1f ms p95 '
              '%.1f ms' % (args.boot, 1000 * statistics.median(times),
                           1000 * servers._pct(times, 0.95)), flush=True)


if __name__ == '__main__':
    main()
