#!/usr/bin/env python3
"""Evacuate side by side: nova-lite-all-in-one (fresh state directory,
2 cells x 2 computes, SQLite) and real Nova 34
(../shared/anchors/real_nova_server.py --computes-per-cell 2) in the
same run.

    python tools/bench/evacuate.py [--count 20] [--sides nova_lite,nova]
        [--nova-python /tmp/nova-venv/bin/python] [--poll 0.05]

Per side: --count servers (networks none, 64 MiB) booted on one compute
of cell1 (availability_zone nova:<host>, as the administrator), that
compute forced down (PUT /os-services/{id} forced_down, 2.53), then
one evacuate POST per server (2.14, no host: the scheduler picks the
other compute of the cell), sent one after the other. Wall time: from
the first POST to the first GET /servers/detail showing every server
ACTIVE on another host with no task (polled every --poll seconds).
Prints the sizes, both wall times, the POST time alone and nova_lite's
wall time as a fraction of Nova's (target, issue 37: <= 0.2x).

Every unexpected answer stops the run; times are printed, never
asserted.
"""
import argparse
import http.client
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flavor_create as fc  # noqa: E402
import servers  # noqa: E402

TIMEOUT = 600
SOURCES = {'nova_lite': 'cell1-compute1', 'nova': 'host1'}


class NovaLite(servers.NovaLite):
    """The all-in-one with room for many small servers."""


class RealNova(fc.RealNova):
    """Real Nova with two computes per cell."""
    extra_args = ('--computes-per-cell', '2')


def _request(side, method, path, body=None, version='2.53'):
    conn = http.client.HTTPConnection('127.0.0.1', side.port, timeout=600)
    try:
        conn.request(method, '/v2.1' + path, body=None if body is None
                     else json.dumps(body),
                     headers=servers._headers(version))
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data) if data else None
    finally:
        conn.close()


def _checked(side, method, path, body=None, version='2.53',
             expected=(200, 202)):
    status, answer = _request(side, method, path, body, version)
    if status not in expected:
        raise RuntimeError('%s: %s %s: %s %s' % (side.name, method, path,
                                                 status, answer))
    return answer


def _servers(side):
    return _checked(side, 'GET', '/servers/detail?limit=1000',
                    version='2.47')['servers']


def _wait(side, uuids, done, poll):
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = {s['id']: s for s in _servers(side) if s['id'] in uuids}
        if len(found) == len(uuids) and all(done(s)
                                            for s in found.values()):
            return
        bad = [s for s in found.values() if s['status'] == 'ERROR']
        if bad:
            raise RuntimeError('%s: %s in ERROR: %s' % (
                side.name, bad[0]['id'], bad[0].get('fault')))
        if time.monotonic() > deadline:
            raise RuntimeError('%s: not done after %d s' % (side.name,
                                                            TIMEOUT))
        time.sleep(poll)


def _forced_down(side, host, value):
    found = _checked(side, 'GET', '/os-services?binary=nova-compute'
                     '&host=%s' % host)['services']
    _checked(side, 'PUT', '/os-services/%s' % found[0]['id'],
             {'forced_down': value})


def run(side, count, poll):
    source = SOURCES[side.name]
    _checked(side, 'POST', '/flavors', {'flavor': servers.FLAVOR},
             version='2.1', expected=(200, 409))
    uuids = []
    for i in range(count):
        uuids.append(_checked(side, 'POST', '/servers', {'server': {
            'name': 'evac-%03d' % i, 'flavorRef': servers.FLAVOR['id'],
            'imageRef': servers.IMAGE, 'networks': 'none',
            'availability_zone': 'nova:' + source}},
            version='2.47')['server']['id'])
    _wait(side, set(uuids), lambda s: s['status'] == 'ACTIVE' and
          s['OS-EXT-SRV-ATTR:host'] == source, poll)
    _forced_down(side, source, True)
    start = time.perf_counter()
    for uuid in uuids:
        _checked(side, 'POST', '/servers/%s/action' % uuid,
                 {'evacuate': {}}, version='2.14')
    posted = time.perf_counter() - start
    _wait(side, set(uuids), lambda s: (
        s['status'] == 'ACTIVE' and s['OS-EXT-STS:task_state'] is None
        and s['OS-EXT-SRV-ATTR:host'] not in (None, source)), poll)
    wall = time.perf_counter() - start
    print('%s: evacuated %d servers from %s: wall %.2f s (POSTs %.2f s)'
          % (side.name, count, source, wall, posted), flush=True)
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=20)
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--poll', type=float, default=0.05)
    args = parser.parse_args()
    walls = {}
    for name in args.sides.split(','):
        side = NovaLite() if name == 'nova_lite' else RealNova(
            args.nova_python)
        with side:
            walls[name] = run(side, args.count, args.poll)
    print('sizes: %d servers, one source host, 2 computes per cell'
          % args.count)
    if len(walls) == 2:
        print('nova_lite / nova wall time: %.3fx (target <= 0.2x)'
              % (walls['nova_lite'] / walls['nova']))


if __name__ == '__main__':
    main()
