#!/usr/bin/env python3
"""GET /os-simple-tenant-usage?detailed=1 over N servers in 2 cells.

An in-process plane (2 cells, SQLite, the API over HTTP) whose cells are
filled with N server rows (half of them deleted in the window, in 10
projects) written straight into the cell databases; then ``--runs``
requests of the whole window as the administrator (2.1: every server
in one answer), and of one project. Prints the sizes, p50/p95 and the
SQL statements one request runs.

    python tools/bench/usage.py [--servers 2000] [--runs 20]
"""
from nova_lite import green

# The plane serves the API in green threads of this process: eventlet
# first, as every nova_lite process.
green.monkey_patch()

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
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

T0 = datetime.datetime(2026, 1, 1)
WINDOW = 'start=2025-12-01T00:00:00&end=2026-02-01T00:00:00'
ADMIN = {'X-Auth-Token': 'admin:admin'}


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


def measure(url, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        resp = requests.get(url, headers=ADMIN, timeout=120)
        times.append(time.perf_counter() - start)
        assert resp.status_code == 200, resp.text[:300]
    times.sort()
    return (statistics.median(times) * 1000,
            times[int(len(times) * 0.95) - 1] * 1000, resp.json())


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
    args = parser.parse_args(argv)
    # No configuration files: the plane's overrides are all there is.
    CONF([], project='nova_lite', default_config_files=[])
    state = tempfile.mkdtemp(prefix='nl-bench-usage-')
    plane = allinone.Plane(state, port=0).build()
    plane.start()
    try:
        started = time.perf_counter()
        fill(plane, args.servers)
        print('filled %d servers in 2 cells in %.1f s'
              % (args.servers, time.perf_counter() - started))
        base = plane.endpoint + '/v2.1/os-simple-tenant-usage'
        for label, url in (
                ('all projects, detailed', '%s?%s&detailed=1' % (base,
                                                                 WINDOW)),
                ('one project', '%s/project-3?%s' % (base, WINDOW))):
            p50, p95, body = measure(url, args.runs)
            servers = sum(len(t.get('server_usages', []))
                          for t in body.get('tenant_usages', [])) or len(
                body.get('tenant_usage', {}).get('server_usages', []))
            print('GET %s (%d servers in the answer): p50 %.1f ms, '
                  'p95 %.1f ms, %d statements, %d runs'
                  % (label, servers, p50, p95, statements(url), args.runs))
    finally:
        plane.stop()
        rpc.cleanup()
        allinone.unconfigure()
    return 0


if __name__ == '__main__':
    sys.exit(main())
