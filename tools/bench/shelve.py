#!/usr/bin/env python3
"""Shelve, offload and unshelve side by side: nova-lite-all-in-one
(fresh state directory, 2 cells x 2 computes, SQLite) and real Nova 34
(../shared/anchors/real_nova_server.py) in the same run.

    python tools/bench/shelve.py [--count 20] [--sides nova_lite,nova]
        [--nova-python /tmp/nova-venv/bin/python] [--poll 0.01]

Both sides keep their default ``[DEFAULT] shelved_offload_time = 0``
(Nova's and nova_lite's): a shelve offloads the server at once. Per
side, --count image-backed servers (networks none, microversion 2.47)
are booted and waited ACTIVE; then each goes through one cycle: POST
shelve, GET /servers/{id} until SHELVED_OFFLOADED with no task (the
snapshot taken, the guest destroyed, the host and allocations
released), POST unshelve, GET until ACTIVE with no task (scheduled
anew, spawned, the snapshot deleted); polled every --poll seconds,
which bounds the resolution. The sides take turns, one cycle each, the
order alternating, both up at once. Prints per side the median and p95
of the whole cycle and of its two halves, and nova_lite's median cycle
as a fraction of Nova's (target, issue 35: <= 0.2x). Times are
printed, never asserted; any unexpected answer stops the run.
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


def _boot_all(side, count, poll):
    conn = resize._conn(side)
    uuids = []
    for i in range(count):
        status, data = resize._request(conn, 'POST', '/v2.1/servers', {
            'server': {'name': 'shelve-bench-%02d' % i,
                       'flavorRef': servers.FLAVOR['id'],
                       'imageRef': servers.IMAGE, 'networks': 'none'}})
        if status != 202:
            raise RuntimeError('%s: boot %s %s' % (side.name, status,
                                                   data[:300]))
        uuids.append(json.loads(data)['server']['id'])
    for uuid in uuids:
        resize._wait_status(conn, uuid, 'ACTIVE', poll)
    return conn, uuids


class Shelver(object):
    """The servers of one side; each call takes the next one through
    shelve (offloaded at once) and unshelve."""

    def __init__(self, side, count, poll):
        self.side, self.poll = side, poll
        self.conn, self.uuids = _boot_all(side, count, poll)
        self.shelve, self.unshelve, self.cycle = [], [], []

    def __call__(self, i):
        uuid = self.uuids[i]
        start = time.perf_counter()
        resize._action(self.conn, uuid, {'shelve': None})
        resize._wait_status(self.conn, uuid, 'SHELVED_OFFLOADED', self.poll)
        middle = time.perf_counter()
        resize._action(self.conn, uuid, {'unshelve': None})
        resize._wait_status(self.conn, uuid, 'ACTIVE', self.poll)
        end = time.perf_counter()
        self.shelve.append(middle - start)
        self.unshelve.append(end - middle)
        self.cycle.append(end - start)


def _ms(values):
    return 'p50 %.1f ms p95 %.1f ms' % (
        1000 * statistics.median(values), 1000 * servers._pct(values, 0.95))


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
        sides.append(resize.fc.RealNova(args.nova_python))
    print('%d servers per side (%s, image-backed, networks none, 2.47) '
          'each through shelve -> SHELVED_OFFLOADED (shelved_offload_time '
          '0 on both sides) -> unshelve -> ACTIVE, the sides taking turns'
          % (args.count, servers.FLAVOR['name']), flush=True)
    with contextlib.ExitStack() as running:
        for side in sides:
            running.enter_context(side)
            servers.ensure_flavor(side)
        shelvers = [Shelver(side, args.count, args.poll) for side in sides]
        for i in range(args.count):
            for shelver in (shelvers if i % 2 == 0 else reversed(shelvers)):
                shelver(i)
    medians = {}
    for shelver in shelvers:
        name = shelver.side.name
        medians[name] = statistics.median(shelver.cycle)
        print('%-9s %d cycles: cycle %s; shelve to SHELVED_OFFLOADED %s; '
              'unshelve to ACTIVE %s' % (
                  name, len(shelver.cycle), _ms(shelver.cycle),
                  _ms(shelver.shelve), _ms(shelver.unshelve)), flush=True)
    if len(medians) == 2:
        print('median cycle: nova_lite %.1f ms, Nova %.1f ms: %.3fx '
              '(target <= 0.2x)' % (
                  1000 * medians['nova_lite'], 1000 * medians['nova'],
                  medians['nova_lite'] / medians['nova']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
