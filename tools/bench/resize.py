#!/usr/bin/env python3
"""Resize + confirm side by side: nova-lite-all-in-one (fresh state
directory, 2 cells x 2 computes, SQLite) and real Nova 34
(../shared/anchors/real_nova_server.py --allow-resize-to-same-host: one
fake-driver compute per cell) in the same run.

    python tools/bench/resize.py [--count 50] [--concurrent 50]
        [--sides nova_lite,nova] [--nova-python /tmp/nova-venv/bin/python]

1. Sequential: one server per side (networks none, microversion 2.47),
   resized back and forth between two flavors (bench.resize.a/b, 64 and
   128 MiB RAM, 1 vCPU, 1 GB) --count times, each resize confirmed. Per
   cycle: the time from the POST resize to the first GET
   /servers/{id} showing VERIFY_RESIZE, and from the POST confirmResize
   to the first GET showing ACTIVE (polled every --poll seconds: that
   bounds the resolution). The sides take turns, one cycle each, the
   order alternating, both up at once, so every figure sees the same
   load. Prints median and p95 of both phases per side, and nova_lite's
   medians as a fraction of Nova's (target, issue 16: <= 0.2x).
2. Concurrent (--concurrent N, nova_lite only; 0 skips it): N servers
   booted, then N resize POSTs sent at once (one thread each). Every
   server must end VERIFY_RESIZE with the new flavor, or a clean error
   (ERROR with a fault, or ACTIVE with the old flavor), none lost, none
   left in a task state; then `nova-lite-manage placement
   check_allocations` must find the allocations consistent with the
   instances and migrations; then every VERIFY_RESIZE is confirmed and
   checked again.

Every unexpected answer stops the run; times are printed, never
asserted.

Measured on 2026-11-25 (2 cores shared with other work), 50 cycles per
side, p50 (p95), in seconds:

  load  resize: nova_lite / Nova / ratio  confirm: nova_lite / Nova / ratio
  2-4   0.95 (1.18) / 1.59 (2.31) / 0.60x  0.29 (0.36) / 0.41 (0.76) / 0.70x
  5-8   1.39 (2.73) / 3.69 (7.69) / 0.38x  0.43 (0.88) / 0.97 (2.54) / 0.44x

The 0.2x target is not met. Where one nova_lite resize goes at load 2-4
(instance action events): API to conductor 0.03 s,
conductor_migrate_server 0.08 s, prep_resize 0.16 s, resize_instance
0.27 s, finish_resize 0.21 s, each cast between them 0.05 s;
confirm_resize 0.16 s. Polling every 0.1 s instead of 0.01 s changes
nothing. 50 concurrent resizes: POSTs 1.6 s, all 50 VERIFY_RESIZE after
11.3 s (26 s at load 5-8), allocations consistent before and after
confirming them (101 then 51 consumers).
"""
import argparse
import concurrent.futures
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flavor_create as fc  # noqa: E402
import servers  # noqa: E402

VERSION = '2.47'
FLAVORS = [{'name': 'bench.resize.a', 'id': 'bench-resize-a', 'ram': 64,
            'vcpus': 1, 'disk': 1},
           {'name': 'bench.resize.b', 'id': 'bench-resize-b', 'ram': 128,
            'vcpus': 1, 'disk': 1}]
SETTLE_TIMEOUT = 300


class NovaLite(servers.NovaLite):
    """The all-in-one with room for many small servers."""


class RealNova(fc.RealNova):
    """Real Nova allowing a resize to the same host (one compute per
    cell)."""
    extra_args = ('--allow-resize-to-same-host',)


def _request(conn, method, path, body=None):
    return servers._request(conn, method, path, body)


def _conn(side):
    return http.client.HTTPConnection('127.0.0.1', side.port, timeout=600)


def _show(conn, uuid):
    status, data = _request(conn, 'GET', '/v2.1/servers/%s' % uuid)
    if status != 200:
        raise RuntimeError('GET server %s: %s %s' % (uuid, status,
                                                     data[:300]))
    return json.loads(data)['server']


def _action(conn, uuid, body, expected=(202, 204)):
    status, data = _request(conn, 'POST', '/v2.1/servers/%s/action' % uuid,
                            body)
    if status not in expected:
        raise RuntimeError('POST %s to %s: %s %s' % (
            list(body), uuid, status, data[:300]))
    return status, data


def _wait_status(conn, uuid, wanted, poll, timeout=SETTLE_TIMEOUT):
    """Seconds until GET shows wanted (and no task state)."""
    start = time.perf_counter()
    deadline = time.monotonic() + timeout
    while True:
        server = _show(conn, uuid)
        if server['status'] == wanted and \
                server.get('OS-EXT-STS:task_state') is None:
            return time.perf_counter() - start
        if server['status'] == 'ERROR':
            raise RuntimeError('%s went to ERROR: %s' % (
                uuid, server.get('fault')))
        if time.monotonic() > deadline:
            raise RuntimeError('%s not %s after %d s: %s/%s' % (
                uuid, wanted, timeout, server['status'],
                server.get('OS-EXT-STS:task_state')))
        time.sleep(poll)


def ensure_flavors(side):
    conn = _conn(side)
    for flavor in FLAVORS + [servers.FLAVOR]:
        status, body = _request(conn, 'POST', '/v2.1/flavors',
                                {'flavor': flavor})
        if status not in (200, 409):
            raise RuntimeError('%s: flavor create %s %s' % (
                side.name, status, body[:300]))


def boot(side, name, flavor, poll):
    conn = _conn(side)
    status, data = _request(conn, 'POST', '/v2.1/servers', {'server': {
        'name': name, 'flavorRef': flavor, 'imageRef': servers.IMAGE,
        'networks': 'none'}})
    if status != 202:
        raise RuntimeError('%s: boot %s %s' % (side.name, status,
                                               data[:300]))
    uuid = json.loads(data)['server']['id']
    _wait_status(conn, uuid, 'ACTIVE', poll)
    return uuid


class Cycler(object):
    """One server of one side, resized to the other flavor and confirmed
    once per call."""

    def __init__(self, side, poll):
        self.side, self.poll = side, poll
        self.conn = _conn(side)
        self.uuid = boot(side, 'resize-bench', FLAVORS[0]['id'], poll)
        self.flavor = 0
        self.resize, self.confirm = [], []

    def __call__(self):
        target = 1 - self.flavor
        start = time.perf_counter()
        _action(self.conn, self.uuid,
                {'resize': {'flavorRef': FLAVORS[target]['id']}})
        _wait_status(self.conn, self.uuid, 'VERIFY_RESIZE', self.poll)
        self.resize.append(time.perf_counter() - start)
        start = time.perf_counter()
        _action(self.conn, self.uuid, {'confirmResize': None})
        _wait_status(self.conn, self.uuid, 'ACTIVE', self.poll)
        self.confirm.append(time.perf_counter() - start)
        self.flavor = target
        shown = _show(self.conn, self.uuid)['flavor']['original_name']
        if shown != FLAVORS[target]['name']:
            raise RuntimeError('%s: after confirm the flavor is %s, not %s'
                               % (self.side.name, shown,
                                  FLAVORS[target]['name']))


def _pct(values, p):
    return servers._pct(values, p)


def _figures(times):
    return {'p50_ms': 1000 * statistics.median(times),
            'p95_ms': 1000 * _pct(times, 0.95)}


def sequential(sides, count, poll):
    cyclers = [Cycler(side, poll) for side in sides]
    for i in range(count):
        order = cyclers if i % 2 == 0 else list(reversed(cyclers))
        for cycler in order:
            cycler()
    results = {}
    for c in cyclers:
        r = results[c.side.name] = {'resize': _figures(c.resize),
                                    'confirm': _figures(c.confirm)}
        print('%-9s %d resize+confirm cycles: resize to VERIFY_RESIZE p50 '
              '%.1f ms p95 %.1f ms; confirm to ACTIVE p50 %.1f ms p95 '
              '%.1f ms' % (c.side.name, count, r['resize']['p50_ms'],
                           r['resize']['p95_ms'], r['confirm']['p50_ms'],
                           r['confirm']['p95_ms']), flush=True)
    if 'nova' in results and 'nova_lite' in results:
        lite, nova = results['nova_lite'], results['nova']
        for phase in ('resize', 'confirm'):
            print('%s median: nova_lite %.1f ms, Nova %.1f ms: %.3fx '
                  '(target <= 0.2x)' % (
                      phase, lite[phase]['p50_ms'], nova[phase]['p50_ms'],
                      lite[phase]['p50_ms'] / nova[phase]['p50_ms']))
    return results


def check_allocations(state_dir):
    """(exit code, report) of nova-lite-manage placement
    check_allocations --json over the all-in-one's databases."""
    manage = os.path.join(os.path.dirname(sys.executable),
                          'nova-lite-manage')
    out = subprocess.run(
        [manage, '--config-file', os.path.join(state_dir, 'nova_lite.conf'),
         'placement', 'check_allocations', '--json'],
        capture_output=True, text=True)
    try:
        return out.returncode, json.loads(out.stdout)
    except ValueError:
        return out.returncode, {'output': out.stdout[-2000:],
                                'error': out.stderr[-2000:]}


def _settled(conn, uuids, timeout=SETTLE_TIMEOUT, not_status=None):
    """{uuid: server} once no server of uuids is in a task state (nor
    shows not_status: a confirm sets no task state)."""
    deadline = time.monotonic() + timeout
    while True:
        status, data = _request(conn, 'GET',
                                '/v2.1/servers/detail?limit=1000')
        if status != 200:
            raise RuntimeError('GET servers: %s %s' % (status, data[:300]))
        found = {s['id']: s for s in json.loads(data)['servers']
                 if s['id'] in uuids}
        busy = [u for u, s in found.items()
                if s.get('OS-EXT-STS:task_state') is not None
                or s['status'] == not_status]
        if not busy and len(found) == len(uuids):
            return found
        if time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _outcome(server, old, new):
    if server is None:
        return 'lost'
    if server.get('OS-EXT-STS:task_state') is not None:
        return 'stuck in %s' % server['OS-EXT-STS:task_state']
    name = server['flavor']['original_name']
    if server['status'] == 'VERIFY_RESIZE' and name == new:
        return 'VERIFY_RESIZE'
    if server['status'] == 'ERROR' and server.get('fault'):
        return 'ERROR with a fault'
    if server['status'] == 'ACTIVE' and name == old:
        return 'ACTIVE, old flavor'
    return 'unclean: %s with %s' % (server['status'], name)


def _report_check(label, code, report):
    problems = report.get('problems', report)
    print('consistency check %s: exit %d, %s' % (
        label, code, 'consistent (%s)' % report.get('checked')
        if code == 0 else json.dumps(problems)[:2000]), flush=True)
    return code == 0


def run_concurrent(side, count, poll):
    """count servers resized at once; returns True when every one ended
    cleanly and the allocations check passed (twice)."""
    conn = _conn(side)
    old, new = FLAVORS[0], FLAVORS[1]
    status, data = _request(conn, 'POST', '/v2.1/servers', {'server': {
        'name': 'conc', 'flavorRef': old['id'], 'imageRef': servers.IMAGE,
        'networks': 'none', 'min_count': count, 'max_count': count}})
    if status != 202:
        raise RuntimeError('boot %d: %s %s' % (count, status, data[:300]))
    status, data = _request(conn, 'GET', '/v2.1/servers/detail?limit=1000')
    uuids = {s['id'] for s in json.loads(data)['servers']
             if s['name'].startswith('conc')}
    booted = _settled(conn, uuids)
    if len(uuids) != count or any(s['status'] != 'ACTIVE'
                                  for s in booted.values()):
        raise RuntimeError('boot %d: %s' % (count, sorted(
            s['status'] for s in booted.values())))

    def post(uuid):
        c = _conn(side)
        status, data = _request(c, 'POST', '/v2.1/servers/%s/action' % uuid,
                                {'resize': {'flavorRef': new['id']}})
        c.close()
        return uuid, status, data

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        answers = list(pool.map(post, sorted(uuids)))
    posted = time.perf_counter() - start
    refused = {u: (s, d[:200]) for u, s, d in answers if s != 202}
    found = _settled(conn, uuids)
    wall = time.perf_counter() - start
    outcomes = {}
    for uuid in uuids:
        outcome = _outcome(found.get(uuid), old['name'], new['name'])
        outcomes.setdefault(outcome, []).append(uuid)
    print('%-9s %d concurrent resizes: POSTs %.1f s (%d refused: %s), all '
          'settled in %.1f s; outcomes: %s' % (
              side.name, count, posted, len(refused),
              sorted({s for s, _ in refused.values()}), wall,
              ', '.join('%s %d' % (k, len(v))
                        for k, v in sorted(outcomes.items()))), flush=True)
    clean = set(outcomes) <= {'VERIFY_RESIZE', 'ERROR with a fault',
                              'ACTIVE, old flavor'}
    ok = _report_check('after the resizes', *check_allocations(side.state))
    for uuid in outcomes.get('VERIFY_RESIZE', []):
        _action(conn, uuid, {'confirmResize': None})
    _settled(conn, uuids, not_status='VERIFY_RESIZE')
    ok = _report_check('after confirming', *check_allocations(
        side.state)) and ok
    return clean and ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--count', type=int, default=50)
    parser.add_argument('--concurrent', type=int, default=50)
    parser.add_argument('--poll', type=float, default=0.01,
                        help='seconds between two GETs of a server')
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    args = parser.parse_args()
    names = args.sides.split(',')
    sides = []
    if 'nova_lite' in names:
        sides.append(NovaLite())
    if 'nova' in names:
        sides.append(RealNova(args.nova_python))
    print('%d resize+confirm cycles per side (%s <-> %s, networks none, '
          'microversion %s), the sides taking turns; then %d concurrent '
          'resizes in nova_lite' % (args.count, FLAVORS[0]['name'],
                                    FLAVORS[1]['name'], VERSION,
                                    args.concurrent), flush=True)
    ok = True
    with contextlib.ExitStack() as running:
        for side in sides:
            running.enter_context(side)
            ensure_flavors(side)
        if args.count:
            sequential(sides, args.count, args.poll)
        if args.concurrent and 'nova_lite' in names:
            ok = run_concurrent(sides[0], args.concurrent, args.poll)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
