"""The boot's quota check, before and after a change, paired.

    python tools/bench/quota_check.py --before /work/main --after .
        [--boot 100] [--clients 1,4] [--rounds 2]

For each round, each tree (``--before``, ``--after``: source trees whose
``nova_lite`` the all-in-one runs, through PYTHONPATH) and each quota
driver (DbQuotaDriver with the project's limits raised to fit the
servers, so every boot counts its usage, and NoopQuotaDriver), in
turns: a fresh all-in-one on SQLite (2 cells) boots ``--boot`` servers
of one project, first with one client posting one after the other and
then with ``--clients`` clients at once (the servers building in the
background meanwhile), and waits for them all ACTIVE. Printed per run:
the tree, the driver, the clients, the servers, POST /servers p50 and
p95 and the wall time; then per tree and clients the medians over the
rounds and the ratio of the two drivers' POST p50 (the quota check's
cost).
"""
import argparse
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import quotas  # noqa: E402
import servers  # noqa: E402

DRIVERS = {'db': 'nova_lite.quota.DbQuotaDriver',
           'noop': 'nova_lite.quota.NoopQuotaDriver'}


def _boot(side, count, clients, prefix):
    """POST count servers from clients threads; (latencies, wall)."""
    latencies = []
    errors = []
    per_client = [count // clients + (1 if i < count % clients else 0)
                  for i in range(clients)]

    def client(number, n):
        conn = servers._conn(side)
        try:
            for i in range(n):
                latencies.append(servers._post_servers(
                    conn, '%s-%d-%04d' % (prefix, number, i)))
        except Exception as exc:
            errors.append(exc)

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i, n))
               for i, n in enumerate(per_client)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return latencies, start


def run_one(tree, driver, count, client_counts):
    """{clients: (p50 ms, p95 ms, wall s)} of one all-in-one run."""
    os.environ['PYTHONPATH'] = os.path.abspath(tree)
    results = {}
    with quotas.NovaLite(False, DRIVERS[driver]) as side:
        servers.ensure_flavor(side)
        conn = servers._conn(side)
        total = count * len(client_counts)
        status, data = servers._request(
            conn, 'PUT', '/v2.1/os-quota-sets/admin', {'quota_set': {
                'instances': total, 'cores': total,
                'ram': total * servers.FLAVOR['ram']}})
        assert status == 200, data
        booted = 0
        for clients in client_counts:
            latencies, start = _boot(side, count, clients,
                                     'c%d' % clients)
            booted += count
            servers.wait_active(side, booted, timeout=1800)
            results[clients] = (
                1000 * statistics.median(latencies),
                1000 * servers._pct(latencies, 0.95),
                time.perf_counter() - start)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--before', required=True)
    parser.add_argument('--after', required=True)
    parser.add_argument('--boot', type=int, default=100)
    parser.add_argument('--clients', default='1,4')
    parser.add_argument('--rounds', type=int, default=2)
    args = parser.parse_args()
    client_counts = [int(c) for c in args.clients.split(',')]
    trees = {'before': args.before, 'after': args.after}
    print('SQLite all-in-one, 2 cells; %d servers per client count %s, '
          'one project; %d rounds' % (args.boot, client_counts,
                                      args.rounds), flush=True)
    figures = {}
    for number in range(args.rounds):
        order = list(trees) if number % 2 == 0 else list(trees)[::-1]
        for name in order:
            for driver in DRIVERS:
                result = run_one(trees[name], driver, args.boot,
                                 client_counts)
                for clients, (p50, p95, wall) in result.items():
                    figures.setdefault((name, driver, clients), []).append(
                        (p50, p95, wall))
                    print('round %d %-6s %-4s clients %d: %d servers, POST '
                          'p50 %.1f ms p95 %.1f ms, wall %.1f s' % (
                              number + 1, name, driver, clients,
                              args.boot, p50, p95, wall), flush=True)
    print('medians over %d rounds:' % args.rounds)
    for name in trees:
        for clients in client_counts:
            med = {d: [statistics.median(v[i] for v in
                                         figures[(name, d, clients)])
                       for i in range(3)] for d in DRIVERS}
            print('%-6s clients %d: quota POST p50 %.1f / p95 %.1f ms, no '
                  'quota %.1f / %.1f ms: %.2fx (p50)' % (
                      name, clients, med['db'][0], med['db'][1],
                      med['noop'][0], med['noop'][1],
                      med['db'][0] / med['noop'][0]))


if __name__ == '__main__':
    main()
