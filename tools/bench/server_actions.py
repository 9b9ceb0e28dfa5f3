"""Stop/start cycles for tools/bench/servers.py (--sections actions).

One sequential client boots --action-servers servers (spread over the
cloud's cells), then runs --action-cycles stop/start cycles in rounds:
POST os-stop to every server, poll GET /servers/detail until each shows
SHUTOFF, then os-start until each is ACTIVE again. Reports actions per
second (2 x cycles over the wall time of the rounds, polling included)
and p50/p95 of the time from a server's POST to the first listing that
shows it in its new state (the listing's own time bounds the
resolution).

Figures (server CPU per action is what machine load distorts least;
this machine's speed drifts by a third within an hour, so compare only
figures of one run):
- session 15. From this session servers.py runs 20 untimed cycles on
  both sides first (--action-warmup; 0 for none). The changes, each
  measured against the tree before it (alternating runs, CPU per
  action): ovo serialization without per-field property round trips
  and oslo.policy's per-check signature reads memoized, 9.6 -> 8.4 ms;
  SQLite connections kept in a pool of our own, about -5%; a quick
  action's event recorded with its finish (one conductor call instead
  of two), 9.4 -> 7.7 ms; the action's instance read in its own write
  transaction, pecan routing and Json copies, a few % together. Side
  by side with Nova, nova_lite vs Nova actions/s (CPU per action):
  before (session 14's tree, a slow window), 99.6 vs 15.2, 6.5x (10.0
  vs 61.5 ms); with the event change, 128.1 vs 12.8, 10.0x (7.8 vs
  73.8 ms); then 162.7 vs 16.7, 9.7x (6.1 vs 55.6 ms); 172.3 vs 16.4,
  10.5x and 167.2 vs 15.8, 10.6x (5.8 / 5.9 vs 56.6 / 59.0 ms); 173.5
  vs 16.5, 10.5x, 164.5 vs 16.7, 9.8x and 171.2 vs 16.7, 10.3x; the
  session's last code, eleven runs: 10.7x, 11.0x, 10.4x, 10.2x,
  9.7x, 11.2x, 12.9x, 11.0x, 10.5x, 11.6x, 10.6x (median 10.7x; e.g.
  175.2 vs 16.3 actions/s, 5.6 vs 56.9 ms); the same with
  --action-warmup 0, six runs: 8.6x, 10.0x, 10.3x, 11.4x, 9.8x,
  10.8x (median 10.2x). The machine was noisy for most of them (Nova's
  CPU per action 55.6-78.8 ms). p95 110-148 ms vs 1,058-1,646 ms.
- session 14. The API's connections now set TCP_NODELAY: every
  GET /servers/detail of the polls had waited 40 ms for the client's
  delayed ACK, and the server was idle a third of the run. Before that
  fix: 83.6 vs 17.9 actions/s, 4.7x, although CPU per action was
  already 6.7x less (7.7 vs 51.5 ms). Then, each run side by side
  with Nova, nova_lite vs Nova actions/s (CPU per action):
  with TCP_NODELAY, 137.8 vs 20.4, 6.8x (7.0 vs 45.0 ms); with the
  fake hypervisor's journal too, 116.6 vs 17.0, 6.9x (8.5 vs 54.7 ms)
  and 165.9 vs 19.7, 8.4x (6.0 vs 46.7 ms); with the listing's
  prebuilt statements too (the final tree), 121.8 vs 16.9, 7.2x
  (8.1 vs 55.0 ms), 122.6 vs 19.0, 6.4x (8.1 vs 48.5 ms), 148.7 vs
  20.4, 7.3x (6.7 vs 44.8 ms) and 161.5 vs 19.6, 8.2x (6.2 vs 46.9
  ms); the session's last tree (request ids in logs, quicker
  conductor wait), 154.2 vs 21.4, 7.2x (6.4 vs 42.5 ms) and 157.3 vs
  19.1, 8.2x (6.3 vs 48.1 ms). p95 110-162 ms vs 789-1,053 ms. Our
  400 actions take 2.5-3.4 s, so one run's figure moves by +-10% with
  the machine.
- session 13, two runs side by side with Nova (a slow window: both
  sides' CPU per action higher than session 12's): nova_lite 34.0 /
  33.4 actions/s (24.7 / 25.2 ms CPU per action), Nova 7.1 / 6.9
  (135.6 / 141.4 ms): 4.8x / 4.9x (CPU 5.5x / 5.6x); p95 540 / 569 ms
  vs 2,804 / 2,809 ms.
- session 12, four runs side by side with Nova: nova_lite 39.6 /
  42.3 / 51.8 / 47.0 actions/s (21.0 / 19.4 / 15.0 / 17.0 ms CPU per
  action), Nova 9.0 / 11.0 / 12.0 / 10.5 (106.9 / 86.8 / 79.2 / 91.3
  ms): 4.4x / 3.9x / 4.3x / 4.5x (CPU 5.1x / 4.5x / 5.3x / 5.4x). A/B
  against session 11's tree, alternating, 3 pairs each, three windows:
  45.5 -> 58.4, 37.7 -> 44.1 and 43.8 -> 53.1 actions/s; 17.8 -> 13.0,
  22.4 -> 18.4 and 18.7 -> 14.6 ms CPU per action.
- session 11 (load 0.5-0.7): 43.2 vs 9.4 actions/s, 4.6x (18.9 vs
  102.5 ms); session 10 (load 3-5): 37.9 vs 11.3, 3.4x.
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
