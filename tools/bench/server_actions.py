"""Stop/start cycles for tools/bench/servers.py (--sections actions).

One sequential client boots --action-servers servers (spread over the
cloud's cells), then runs --action-cycles stop/start cycles in rounds:
POST os-stop to every server, poll GET /servers/detail until each shows
SHUTOFF, then os-start until each is ACTIVE again. Reports actions per
second (2 x cycles over the wall time of the rounds, polling included)
and p50/p95 of the time from a server's POST to the first listing that
shows it in its new state (the listing's own time bounds the
resolution).

Figures: doc/performance.rst (server CPU per action is what machine
load distorts least; compare only figures of one run).
"""
import json
import statistics
import time

STOP, START = {'os-stop': None}, {'os-start': None}


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def _statuses(request, conn):
    status, data = request(conn, 'GET', '/v2.1/servers/detail?limit=1000')
    if status != 200:
        raise RuntimeError('GET servers: %s %s' % (status, data[:300]))
    return {s['id']: s['status'] for s in json.loads(data)['servers']}


def _round(request, conn, uuids, body, wanted, timeout=600):
    """POST body to each server, then wait for each to show wanted;
    [seconds from its POST to the listing that showed it]."""
    posted = {}
    for uuid in uuids:
        posted[uuid] = time.perf_counter()
        status, data = request(conn, 'POST', '/v2.1/servers/%s/action'
                               % uuid, body)
        if status != 202:
            raise RuntimeError('POST %s: %s %s' % (body, status, data[:300]))
    waiting, latencies = set(uuids), []
    deadline = time.monotonic() + timeout
    while waiting:
        statuses = _statuses(request, conn)
        seen = time.perf_counter()
        for uuid in list(waiting):
            if statuses.get(uuid) == wanted:
                latencies.append(seen - posted[uuid])
                waiting.discard(uuid)
            elif statuses.get(uuid) == 'ERROR':
                raise RuntimeError('%s went to ERROR' % uuid)
        if time.monotonic() > deadline:
            raise RuntimeError('%d servers not %s' % (len(waiting), wanted))
    return latencies


def run(request, conn, uuids, cycles):
    """cycles stop/start cycles over uuids (cycles // len(uuids) rounds
    of one stop and one start each). Returns the figures."""
    rounds = max(1, cycles // len(uuids))
    latencies = []
    start = time.perf_counter()
    for _ in range(rounds):
        latencies += _round(request, conn, uuids, STOP, 'SHUTOFF')
        latencies += _round(request, conn, uuids, START, 'ACTIVE')
    wall = time.perf_counter() - start
    actions = 2 * rounds * len(uuids)
    return {'actions': actions, 'wall_s': wall,
            'actions_per_s': actions / wall,
            'p50_ms': 1000 * statistics.median(latencies),
            'p95_ms': 1000 * _pct(latencies, 0.95)}
