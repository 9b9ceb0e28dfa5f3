"""GET /limits on two sides already running (e.g. held up by quotas.py
--hold, or left running after a fill), their requests taking turns as
in quotas.py, 3 untimed requests first:

    python tools/bench/limits_pair.py LITE_PORT LITE_PID NOVA_PORT \\
        NOVA_PID RUNS

Prints p50/p95 and the server process's CPU per request of each side
and the ratios (issue 33's target: nova_lite p50 <= 0.1x Nova's).
"""
import http.client
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flavor_create as fc  # noqa
import quotas  # noqa
import servers  # noqa

lp, lpid, np_, npid, runs = map(int, sys.argv[1:6])
sides = {'nova_lite': (lp, lpid), 'nova': (np_, npid)}
conns = {n: http.client.HTTPConnection('127.0.0.1', p, timeout=600)
         for n, (p, _) in sides.items()}
times = {n: [] for n in sides}
cpu = {}
shown = {}
for i in range(runs + 3):
    if i == 3:
        cpu = {n: fc._cpu_seconds(pid) for n, (_, pid) in sides.items()}
    order = list(conns) if i % 2 == 0 else list(reversed(list(conns)))
    for n in order:
        took, absolute = quotas._limits_once(conns[n])
        if i >= 3:
            times[n].append(took)
        shown[n] = absolute
res = {}
for n, values in times.items():
    p50 = 1000 * statistics.median(values)
    c = 1000 * (fc._cpu_seconds(sides[n][1]) - cpu[n]) / len(values)
    res[n] = (p50, c)
    print('%-9s GET /limits x %d: p50 %.1f ms p95 %.1f ms, server CPU %.1f '
          'ms/request (totalInstancesUsed %s, totalCoresUsed %s); load %s' % (
              n, len(values), p50, 1000 * servers._pct(values, 0.95), c,
              shown[n].get('totalInstancesUsed'),
              shown[n].get('totalCoresUsed'), os.getloadavg()), flush=True)
print('p50 ratio nova_lite/nova %.3f; server CPU ratio %.3f' % (
    res['nova_lite'][0] / res['nova'][0],
    res['nova_lite'][1] / res['nova'][1]))
