#!/usr/bin/env python3
"""Resize + confirm side by side: nova-lite-all-in-one (fresh state
directory, 2 cells x 2 computes, SQLite) and real Nova 34
(../shared/anchors/real_nova_server.py --allow-resize-to-same-host: one
fake-driver compute per cell) in the same run.

    python tools/bench/resize.py [--count 50] [--concurrent 50]
        [--sides nova_lite,nova] [--nova-python /tmp/nova-venv/bin/python]
        [--poll 0.01] [--cross-cell]

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

--cross-cell (nova_lite only): a server that moves across cells at
each resize and one that stays in its cell, taking turns, --count
cycles each, then --concurrent cross-cell resizes; medians compared
(target, issue 17: cross-cell <= 2x same-cell).

Every unexpected answer stops the run; times are printed, never
asserted.

Figures: doc/performance.rst.
"""
import argparse
import concurrent.futures
import contextlib
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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
    """servers._request, as the connection's token when it has one."""
    headers = servers._headers()
    token = getattr(conn, 'token', None)
    if token:
        headers['X-Auth-Token'] = token
    conn.request(method, path, body=None if body is None
                 else json.dumps(body), headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


def _conn(side, token=None):
    conn = http.client.HTTPConnection('127.0.0.1', side.port, timeout=600)
    conn.token = token
    return conn


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


def boot(side, name, flavor, poll, token=None):
    conn = _conn(side, token)
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

    def __init__(self, side, poll, token=None):
        self.side, self.poll = side, poll
        self.conn = _conn(side, token)
        self.uuid = boot(side, 'resize-bench', FLAVORS[0]['id'], poll,
                         token)
        self.flavor = 0
        self.resize, self.confirm = [], []
        self.cpu = 0.0   # the side's server CPU seconds in the cycles

    def __call__(self):
        cpu = fc._cpu_seconds(self.side.proc.pid)
        try:
            self._cycle()
        finally:
            self.cpu += fc._cpu_seconds(self.side.proc.pid) - cpu

    def _cycle(self):
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
                                    'confirm': _figures(c.confirm),
                                    'cpu_ms': 1000 * c.cpu / count}
        print('%-9s %d resize+confirm cycles: resize to VERIFY_RESIZE p50 '
              '%.1f ms p95 %.1f ms; confirm to ACTIVE p50 %.1f ms p95 '
              '%.1f ms; server CPU %.1f ms/cycle (polling included); '
              'load %.1f' % (c.side.name, count, r['resize']['p50_ms'],
                             r['resize']['p95_ms'], r['confirm']['p50_ms'],
                             r['confirm']['p95_ms'], r['cpu_ms'],
                             os.getloadavg()[0]), flush=True)
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


def run_concurrent(side, count, poll, token=None):
    """count servers resized at once; returns True when every one ended
    cleanly and the allocations check passed (twice). With token: as
    that caller (XCELL_TOKEN: the resizes cross cells, and each server
    must then be visible exactly once, in a cell it did not start in)."""
    conn = _conn(side, token)
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

    cells_before = {u: _cell_of(side, u) for u in uuids} if token else {}

    def post(uuid):
        c = _conn(side, token)
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
    if token:
        copies = _visible_copies(side, uuids)
        wrong = {u: n for u, n in copies.items() if n != 1}
        moved = sum(1 for u in outcomes.get('VERIFY_RESIZE', [])
                    if _cell_of(side, u) != cells_before[u])
        print('%-9s cross-cell: %d of %d VERIFY_RESIZE in another cell; '
              'visible copies per server: %s' % (
                  side.name, moved, len(outcomes.get('VERIFY_RESIZE', [])),
                  'one each' if not wrong else wrong), flush=True)
        clean = clean and not wrong and moved == len(
            outcomes.get('VERIFY_RESIZE', []))
    ok = _report_check('after the resizes', *check_allocations(side.state))
    for uuid in outcomes.get('VERIFY_RESIZE', []):
        _action(conn, uuid, {'confirmResize': None})
    _settled(conn, uuids, not_status='VERIFY_RESIZE')
    ok = _report_check('after confirming', *check_allocations(
        side.state)) and ok
    return clean and ok


# --- across cells (issue 17) -------------------------------------------------

# Servers of project xcell may resize across cells (the policy lets
# them) and the weigher sends them to the other cell; every other
# project's servers stay in their cell.
XCELL_TOKEN = 'admin:xcell'
XCELL_POLICY = '"compute:servers:resize:cross_cell": "project_id:xcell"\n'
XCELL_CONFIG = """
[oslo_policy]
policy_file = %s

[filter_scheduler]
cross_cell_move_weight_multiplier = -1000000.0
"""


class XCellNovaLite(servers.NovaLite):
    """The all-in-one of servers.NovaLite with the cross-cell policy and
    weigher above."""

    def __enter__(self):
        self.xdir = tempfile.mkdtemp(prefix='nl-bench-xcell-')
        policy = os.path.join(self.xdir, 'policy.yaml')
        with open(policy, 'w') as f:
            f.write(XCELL_POLICY)
        self.conf = open(os.path.join(self.xdir, 'aio.conf'), 'w')
        self.conf.write(servers.AIO_CONFIG + XCELL_CONFIG % policy)
        self.conf.close()
        fc.NovaLite.EXTRA_ARGS = ['--config-file', self.conf.name]
        return fc.NovaLite.__enter__(self)

    def __exit__(self, *exc):
        fc.NovaLite.__exit__(self, *exc)
        shutil.rmtree(self.xdir, ignore_errors=True)


def _engines(side):
    """(API DB engine, {cell name: engine}) of the all-in-one (read
    from its nova_lite.conf and cell mappings)."""
    import configparser
    import sqlalchemy as sa
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(os.path.join(side.state, 'nova_lite.conf'))
    api = sa.create_engine(conf['api_database']['connection'])
    with api.connect() as c:
        cells = c.execute(sa.text(
            'SELECT name, database_connection FROM cell_mappings '
            "WHERE uuid != '00000000-0000-0000-0000-000000000000'"))
        return api, {name: sa.create_engine(url) for name, url in cells}


def _cell_of(side, uuid):
    import sqlalchemy as sa
    api, _cells = _engines(side)
    with api.connect() as c:
        return c.execute(sa.text(
            'SELECT c.name FROM instance_mappings m JOIN cell_mappings c '
            'ON c.id = m.cell_id WHERE m.instance_uuid = :u'),
            {'u': uuid}).scalar()


def _visible_copies(side, uuids):
    """{uuid: number of cells where a non-hidden, undeleted copy is}."""
    import sqlalchemy as sa
    _api, cells = _engines(side)
    copies = dict.fromkeys(uuids, 0)
    for engine in cells.values():
        with engine.connect() as c:
            for (uuid,) in c.execute(sa.text(
                    'SELECT uuid FROM instances WHERE deleted = 0 AND '
                    'hidden = :f'), {'f': False}):
                if uuid in copies:
                    copies[uuid] += 1
    return copies


def cross_cell(side, count, poll):
    """count resize+confirm cycles of a server that moves across cells
    each time and of one that stays in its cell, taking turns; medians
    compared (target, issue 17: cross-cell <= 2x same-cell)."""
    same = Cycler(side, poll)
    cross = Cycler(side, poll, XCELL_TOKEN)
    for i in range(count):
        before = (_cell_of(side, same.uuid), _cell_of(side, cross.uuid))
        for cycler in ((same, cross) if i % 2 == 0 else (cross, same)):
            cycler()
        after = (_cell_of(side, same.uuid), _cell_of(side, cross.uuid))
        if after[0] != before[0] or after[1] == before[1]:
            raise RuntimeError('cells before %s, after %s: the same-cell '
                               'server must stay, the other move' % (
                                   before, after))
    figures = {}
    for label, c in (('same-cell', same), ('cross-cell', cross)):
        r = figures[label] = {'resize': _figures(c.resize),
                              'confirm': _figures(c.confirm)}
        print('%-10s %d cycles: resize to VERIFY_RESIZE p50 %.1f ms p95 '
              '%.1f ms; confirm to ACTIVE p50 %.1f ms p95 %.1f ms' % (
                  label, count, r['resize']['p50_ms'],
                  r['resize']['p95_ms'], r['confirm']['p50_ms'],
                  r['confirm']['p95_ms']), flush=True)
    for phase in ('resize', 'confirm'):
        print('%s median: cross-cell %.1f ms, same-cell %.1f ms: %.2fx '
              '(target <= 2x)' % (
                  phase, figures['cross-cell'][phase]['p50_ms'],
                  figures['same-cell'][phase]['p50_ms'],
                  figures['cross-cell'][phase]['p50_ms']
                  / figures['same-cell'][phase]['p50_ms']), flush=True)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--count', type=int, default=50)
    parser.add_argument('--concurrent', type=int, default=50)
    parser.add_argument('--poll', type=float, default=0.01,
                        help='seconds between two GETs of a server')
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--cross-cell', action='store_true',
                        help='nova_lite only: --count cycles of a '
                        'cross-cell and a same-cell resize taking turns, '
                        'then --concurrent cross-cell resizes')
    args = parser.parse_args()
    if args.cross_cell:
        return main_cross_cell(args)
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


def main_cross_cell(args):
    print('%d resize+confirm cycles of a cross-cell and a same-cell resize '
          '(%s <-> %s, networks none, microversion %s, 2 cells x 2 '
          'computes, SQLite), taking turns; then %d concurrent cross-cell '
          'resizes' % (args.count, FLAVORS[0]['name'], FLAVORS[1]['name'],
                       VERSION, args.concurrent), flush=True)
    ok = True
    with XCellNovaLite() as side:
        ensure_flavors(side)
        if args.count:
            cross_cell(side, args.count, args.poll)
        if args.concurrent:
            ok = run_concurrent(side, args.concurrent, args.poll,
                                XCELL_TOKEN)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
