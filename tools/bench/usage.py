#!/usr/bin/env python3
"""GET /os-simple-tenant-usage?detailed=1 over N servers in 2 cells,
nova_lite and real Nova 34 in the same run.

nova_lite: an in-process plane (2 cells, SQLite, the API over HTTP)
whose cells are filled with N server rows (half of them deleted in the
window, in 10 projects, launched a minute apart from 10 days ago)
written straight into the cell databases. Nova: the anchor
(../shared/anchors/real_nova_server.py, through tools/bench/
nova_filled.py) with one server booted in each of its 2 cells, then
filled to N servers by copies made with Nova's own objects (the same
10 projects, launch times and every second one terminated and
destroyed). Then ``--runs`` requests per side of the whole window as
the administrator (2.1: no paging, at most [api] max_limit, 1,000,
servers in one answer on both sides since nova_lite follows Nova
there), and of one project, the sides taking turns (the order
alternating). Prints the sizes, p50/p95 per side, nova_lite's SQL
statements per request and nova_lite's p50 as a fraction of Nova's
(target, issue 35: <= 0.1x).

    python tools/bench/usage.py [--servers 2000] [--runs 20]
        [--sides nova_lite,nova] [--nova-python /tmp/nova-venv/bin/python]
"""
from nova_lite import green

# The plane serves the API in green threads of this process: eventlet
# first, as every nova_lite process.
green.monkey_patch()

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import requests  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from nova_lite import allinone  # noqa: E402
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.main import instances as cell_rows  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import embedded_flavor  # noqa: E402
from nova_lite import rpc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import servers as bench_servers  # noqa: E402

# Launched a minute apart from 10 days ago (midnight); the window holds
# them all, and the servers Nova boots now.
_TODAY = datetime.datetime.utcnow().replace(hour=0, minute=0, second=0,
                                            microsecond=0)
T0 = _TODAY - datetime.timedelta(days=10)
WINDOW = 'start=%s&end=%s' % (
    (T0 - datetime.timedelta(days=1)).isoformat(),
    (_TODAY + datetime.timedelta(days=2)).isoformat())
ADMIN = {'X-Auth-Token': 'admin:admin'}
NOVA_HOSTS = ('host1', 'host2')     # the anchor's computes, one per cell
FILL_CHUNK = 100    # copies per fill request (Nova makes ~1-5 a second)


def fill(plane, count):
    ctxt = nova_context.get_admin_context()
    flavor = objects.Flavor(ctxt, name='bench', flavorid='bench',
                            memory_mb=512, vcpus=1, root_gb=1)
    flavor.create()
    snapshot = json.loads(embedded_flavor.to_json(
        embedded_flavor.EmbeddedFlavor.from_flavor(flavor)))
    cells = [c for c in objects.CellMappingList.get_all(ctxt)
             if not c.is_cell0()]
    for i in range(count):
        cell = cells[i % len(cells)]
        launched = T0 + datetime.timedelta(minutes=i)
        values = dict(
            uuid='%08x-0000-4000-8000-%012x' % (i, i),
            project_id='project-%d' % (i % 10), user_id='bench',
            display_name='bench-%d' % i, vm_state='active', power_state=1,
            host='h', node='h', instance_type_id=flavor.id,
            launched_at=launched, created_at=launched, locked=False)
        if i % 2:
            values.update(vm_state='deleted', deleted=i + 1,
                          terminated_at=launched + datetime.timedelta(
                              hours=5))
        with nova_context.target_cell(ctxt, cell) as cctxt:
            cell_rows.create(cctxt, values, flavor=snapshot)
    return cells


def fill_nova(side, count):
    """One server booted on each of the anchor's hosts (one per cell),
    then copies up to count (nova_filled.py)."""
    bench_servers.ensure_flavor(side)
    conn = bench_servers._conn(side)
    for host in NOVA_HOSTS:
        status, data = bench_servers._request(
            conn, 'POST', '/v2.1/servers', {'server': {
                'name': 'usage-' + host,
                'flavorRef': bench_servers.FLAVOR['id'],
                'imageRef': bench_servers.IMAGE, 'networks': 'none',
                'availability_zone': 'nova:' + host}})
        if status != 202:
            raise RuntimeError('nova boot: %s %s' % (status, data[:300]))
    bench_servers.wait_active(side, len(NOVA_HOSTS), timeout=600)
    made = len(NOVA_HOSTS)
    while made < count:
        add = min(FILL_CHUNK, count - made)
        status, data = bench_servers._request(conn, 'POST', '/_bench/fill', {
            'start': made - len(NOVA_HOSTS), 'add': add, 'projects': 10,
            'deleted_every': 2, 'launched_from': T0.isoformat()})
        if status != 200:
            raise RuntimeError('nova fill: %s %s' % (status, data[:300]))
        made += add
    return {'had': len(NOVA_HOSTS), 'total': made}


def _served(body):
    """Servers in an answer (all projects detailed, or one project)."""
    return sum(len(t.get('server_usages', []))
               for t in body.get('tenant_usages', [])) or len(
        body.get('tenant_usage', {}).get('server_usages', []))


def measure(urls, runs):
    """{side: (p50 ms, p95 ms, last body)}: runs GETs of each side's
    url, the sides taking turns (the order alternating)."""
    times = {name: [] for name in urls}
    bodies = {}
    names = list(urls)
    for i in range(runs + 1):     # the first round warms up
        for name in (names if i % 2 == 0 else reversed(names)):
            start = time.perf_counter()
            resp = requests.get(urls[name], headers=ADMIN, timeout=600)
            if i:
                times[name].append(time.perf_counter() - start)
            assert resp.status_code == 200, (name, resp.text[:300])
            bodies[name] = resp.json()
    return {name: (statistics.median(t) * 1000,
                   bench_servers._pct(t, 0.95) * 1000, bodies[name])
            for name, t in times.items()}


def statements(url):
    counted = []

    def before(conn, cursor, statement, *args):
        counted.append(statement)
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', before)
    requests.get(url, headers=ADMIN, timeout=120)
    sa.event.remove(sa.engine.Engine, 'before_cursor_execute', before)
    return len(counted)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--servers', type=int, default=2000)
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    args = parser.parse_args(argv)
    sides = args.sides.split(',')
    # No configuration files: the plane's overrides are all there is.
    CONF([], project='nova_lite', default_config_files=[])
    with contextlib.ExitStack() as running:
        endpoints = {}
        # Nova first: its fill is long, the plane would idle meanwhile.
        if 'nova' in sides:
            nova = running.enter_context(
                bench_servers.RealNova(args.nova_python))
            started = time.perf_counter()
            filled = fill_nova(nova, args.servers)
            print('nova: %d servers (%d booted, the rest copies made with '
                  "Nova's objects) in 2 cells in %.1f s" % (
                      filled['total'], filled['had'],
                      time.perf_counter() - started), flush=True)
            endpoints['nova'] = 'http://127.0.0.1:%d' % nova.port
        if 'nova_lite' in sides:
            state = tempfile.mkdtemp(prefix='nl-bench-usage-')
            plane = allinone.Plane(state, port=0).build()
            plane.start()
            running.callback(allinone.unconfigure)
            running.callback(rpc.cleanup)
            running.callback(plane.stop)
            started = time.perf_counter()
            fill(plane, args.servers)
            print('nova_lite: filled %d servers in 2 cells in %.1f s'
                  % (args.servers, time.perf_counter() - started),
                  flush=True)
            endpoints['nova_lite'] = plane.endpoint
        print('%d servers per side in 2 cells, half deleted in the window, '
              '10 projects; %d requests per side, the sides taking turns'
              % (args.servers, args.runs), flush=True)
        for label, query in (
                ('all projects, detailed', '?%s&detailed=1' % WINDOW),
                ('one project', '/project-3?%s' % WINDOW)):
            urls = {name: '%s/v2.1/os-simple-tenant-usage%s' % (ep, query)
                    for name, ep in endpoints.items()}
            figures = measure(urls, args.runs)
            for name, (p50, p95, body) in figures.items():
                extra = (', %d statements' % statements(urls[name])
                         if name == 'nova_lite' else '')
                print('%-9s GET %s (%d servers in the answer): p50 %.1f ms, '
                      'p95 %.1f ms%s' % (name, label, _served(body), p50,
                                         p95, extra), flush=True)
            if len(figures) == 2:
                print('p50 %s: nova_lite / nova %.3fx (target <= 0.1x)' % (
                    label, figures['nova_lite'][0] / figures['nova'][0]),
                    flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
