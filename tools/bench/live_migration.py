#!/usr/bin/env python3
"""Live migrations side by side: nova-lite-all-in-one (fresh state
directory, 2 cells x 2 computes, SQLite, [fake_driver]
live_migration_seconds 0) and real Nova 34
(../shared/anchors/real_nova_server.py --computes-per-cell 2) in the
same run.

    python tools/bench/live_migration.py [--count 20]
        [--sides nova_lite,nova] [--nova-python /tmp/nova-venv/bin/python]
        [--poll 0.01]

One server per side (networks none, microversion 2.47) live-migrated
--count times (os-migrateLive at 2.25, host null, block_migration
auto: the scheduler picks the other compute of its cell). Per
migration: the time from the POST to the first GET /servers/{id}
showing ACTIVE with no task on the other host (polled every --poll
seconds: that bounds the resolution). The sides take turns, one
migration each, the order alternating, both up at once. Prints median
and p95 per side and nova_lite's median as a fraction of Nova's
(target, issue 37: <= 0.2x). Times are printed, never asserted.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import resize  # noqa: E402
import servers  # noqa: E402

HOST = 'OS-EXT-SRV-ATTR:host'
BODY = {'os-migrateLive': {'host': None, 'block_migration': 'auto'}}


class RealNova(resize.fc.RealNova):
    """Real Nova with two computes per cell (live migration needs
    two)."""
    extra_args = ('--computes-per-cell', '2')


def _live_migrate(conn, uuid):
    headers = servers._headers('2.25')
    token = getattr(conn, 'token', None)
    if token:
        headers['X-Auth-Token'] = token
    conn.request('POST', '/v2.1/servers/%s/action' % uuid,
                 body=json.dumps(BODY), headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    if resp.status != 202:
        raise RuntimeError('os-migrateLive %s: %s %s' % (uuid, resp.status,
                                                         data[:300]))


def _moved(conn, uuid, source, poll, timeout=resize.SETTLE_TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        server = resize._show(conn, uuid)
        if (server['status'] == 'ACTIVE'
                and server.get('OS-EXT-STS:task_state') is None
                and server[HOST] != source):
            return server[HOST]
        if server['status'] == 'ERROR' or time.monotonic() > deadline:
            raise RuntimeError('%s: %s/%s on %s' % (
                uuid, server['status'], server.get('OS-EXT-STS:task_state'),
                server[HOST]))
        time.sleep(poll)


class Mover(object):
    """One server of one side, live-migrated once per call."""

    def __init__(self, side, poll):
        self.side, self.poll = side, poll
        self.conn = resize._conn(side)
        self.uuid = resize.boot(side, 'live-bench',
                                resize.FLAVORS[0]['id'], poll)
        self.host = resize._show(self.conn, self.uuid)[HOST]
        self.times = []

    def __call__(self):
        start = time.perf_counter()
        _live_migrate(self.conn, self.uuid)
        self.host = _moved(self.conn, self.uuid, self.host, self.poll)
        self.times.append(time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--count', type=int, default=20)
    parser.add_argument('--poll', type=float, default=0.01)
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    args = parser.parse_args()
    names = args.sides.split(',')
    sides = []
    if 'nova_lite' in names:
        sides.append(resize.NovaLite())
    if 'nova' in names:
        sides.append(RealNova(args.nova_python))
    print('%d live migrations per side (%s, networks none, os-migrateLive '
          'at 2.25, the scheduler picking the other compute of the cell), '
          'the sides taking turns' % (args.count, resize.FLAVORS[0]['name']),
          flush=True)
    with contextlib.ExitStack() as running:
        for side in sides:
            running.enter_context(side)
            resize.ensure_flavors(side)
        movers = [Mover(side, args.poll) for side in sides]
        for i in range(args.count):
            for mover in (movers if i % 2 == 0 else reversed(movers)):
                mover()
    medians = {}
    for mover in movers:
        times = mover.times
        medians[mover.side.name] = statistics.median(times)
        print('%-9s %d live migrations: POST to ACTIVE on the other host '
              'p50 %.1f ms p95 %.1f ms max %.1f ms' % (
                  mover.side.name, len(times), 1000 * medians[
                      mover.side.name], 1000 * servers._pct(times, 0.95),
                  1000 * max(times)), flush=True)
    if len(medians) == 2:
        print('median: nova_lite %.1f ms, Nova %.1f ms: %.3fx (target <= '
              '0.2x)' % (1000 * medians['nova_lite'], 1000 * medians['nova'],
                         medians['nova_lite'] / medians['nova']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
