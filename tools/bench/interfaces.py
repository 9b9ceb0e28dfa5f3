"""Interfaces and networked boots, nova_lite's all-in-one beside real
Nova 34 (../shared/anchors/real_nova_server.py, unchanged): boot N
servers with ``networks: auto``, then C interface attach + detach
cycles spread over the first ten of them (POST
/servers/{id}/os-interface with the shared network, then DELETE and
wait until the port is gone from the server's list).

nova_lite waits at each build for its embedded network service's
network-vif-plugged ([local_services] vif_plugged_event_delay 0) unless
``--vif-timeout 0``; Nova's Neutron fixture sets vif_plugging_timeout
to 0 (it sends no events), so Nova never waits.

Both sides get the same requests as an administrator of project
6f70656e737461636b20342065766572: the project Nova's NeutronFixture
stamps on every port it creates (its ``default_port`` template carries
that tenant_id whatever the request says), so that Nova finds the port
it just created among the instance's ports when it builds the attached
interface's network info; as any other project Nova answers 500
("allocate_for_instance returned 0 ports"). Nothing of Nova or of its
fixture is changed.

Both sides run at once: each boots its servers in turn, then the
attach + detach cycles take turns, one cycle on each side (the order
swapped every cycle), so that a change in the shared machine's load
weighs on both alike.

Arguments: --boot N (10), --cycles C (50), --vif-timeout S (nova_lite's
[DEFAULT] vif_plugging_timeout, 300; 0 boots without waiting),
--sides nova_lite,nova (both), --nova-python (Nova's venv python).
Prints sizes, boot wall time and POST p50/p95, attach p50/p95 and the
detach request and completion p50/p95 of each side, and the ratios.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flavor_create as fc  # noqa: E402
import servers  # noqa: E402

NETWORK = '3cb9bc59-5699-4588-a4b1-b87f96708bc6'
# Nova's NeutronFixture's project (nova.tests.fixtures.PROJECT_ID).
PROJECT = '6f70656e737461636b20342065766572'
# The servers the cycles go round.
CYCLED = 10


class NovaLite(fc.NovaLite):
    def __init__(self, vif_timeout):
        self.vif_timeout = vif_timeout

    def __enter__(self):
        self.conf = tempfile.NamedTemporaryFile('w', suffix='.conf',
                                                delete=False)
        self.conf.write(servers.AIO_CONFIG + '\n[DEFAULT]\n'
                        'vif_plugging_timeout = %d\n' % self.vif_timeout)
        self.conf.close()
        fc.NovaLite.EXTRA_ARGS = ['--config-file', self.conf.name]
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        os.unlink(self.conf.name)


def _timed(conn, method, path, body=None):
    start = time.perf_counter()
    status, data = servers._request(conn, method, path, body)
    return time.perf_counter() - start, status, data


def boot(side, count):
    conn = servers._conn(side)
    start = time.perf_counter()
    posts = []
    for i in range(count):
        elapsed, status, data = _timed(conn, 'POST', '/v2.1/servers', {
            'server': {'name': 'if-%04d' % i,
                       'flavorRef': servers.FLAVOR['id'],
                       'imageRef': servers.IMAGE, 'networks': 'auto'}})
        if status != 202:
            raise RuntimeError('POST /servers: %s %s' % (status, data[:300]))
        posts.append(elapsed)
    servers.wait_active(side, count, timeout=1800)
    return time.perf_counter() - start, posts


def _ports(conn, uuid):
    status, data = servers._request(
        conn, 'GET', '/v2.1/servers/%s/os-interface' % uuid)
    return [i['port_id'] for i in json.loads(data)['interfaceAttachments']]


class Cycler(object):
    """One side's attach + detach cycles over its first CYCLED servers,
    one cycle per call; the timings in attach, detach, detached."""

    def __init__(self, side):
        self.side = side
        self.conn = servers._conn(side)
        status, data = servers._request(self.conn, 'GET', '/v2.1/servers')
        self.uuids = sorted(s['id'] for s in
                            json.loads(data)['servers'])[:CYCLED]
        self.attach, self.detach, self.detached = [], [], []

    def __call__(self, i):
        conn = self.conn
        uuid = self.uuids[i % len(self.uuids)]
        path = '/v2.1/servers/%s/os-interface' % uuid
        elapsed, status, data = _timed(conn, 'POST', path, {
            'interfaceAttachment': {'net_id': NETWORK}})
        if status != 200:
            raise RuntimeError('attach: %s %s' % (status, data[:300]))
        self.attach.append(elapsed)
        port = json.loads(data)['interfaceAttachment']['port_id']
        start = time.perf_counter()
        status, data = servers._request(conn, 'DELETE',
                                        '%s/%s' % (path, port))
        self.detach.append(time.perf_counter() - start)
        if status != 202:
            raise RuntimeError('detach: %s %s' % (status, data[:300]))
        while port in _ports(conn, uuid):
            time.sleep(0.01)
        self.detached.append(time.perf_counter() - start)


def _line(name, values):
    return '%s p50 %.1f ms p95 %.1f ms' % (
        name, 1000 * statistics.median(values),
        1000 * servers._pct(values, 0.95))


def booted(side, args):
    servers.ensure_flavor(side)
    wall, posts = boot(side, args.boot)
    print('%s boot %d: wall %.1f s, %s' % (side.name, args.boot, wall,
                                           _line('POST', posts)),
          flush=True)
    return {'wall': wall, 'post': statistics.median(posts)}


def cycled(cycler, args, result):
    print('%s %d cycles: %s; %s; %s' % (
        cycler.side.name, args.cycles, _line('attach (200)', cycler.attach),
        _line('detach (202)', cycler.detach),
        _line('detach until gone', cycler.detached)), flush=True)
    result.update(attach=statistics.median(cycler.attach),
                  detached=statistics.median(cycler.detached))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boot', type=int, default=10)
    parser.add_argument('--cycles', type=int, default=50)
    parser.add_argument('--vif-timeout', type=int, default=300)
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    args = parser.parse_args()
    fc.HEADERS['X-Auth-Token'] = 'admin:%s' % PROJECT
    print('boot %d servers (networks auto; nova_lite vif_plugging_timeout '
          '%d, event delay 0; Nova: its fixture\'s 0), then %d interface '
          'attach+detach cycles over %d of them; project %s' % (
              args.boot, args.vif_timeout, args.cycles,
              min(CYCLED, args.boot), PROJECT), flush=True)
    results = {}
    with contextlib.ExitStack() as running:
        sides = []
        for name in args.sides.split(','):
            side = (NovaLite(args.vif_timeout) if name == 'nova_lite'
                    else fc.RealNova(args.nova_python))
            running.enter_context(side)
            sides.append(side)
        for side in sides:
            results[side.name] = booted(side, args)
        if args.cycles:
            cyclers = [Cycler(side) for side in sides]
            for i in range(args.cycles):
                for cycler in (cyclers if i % 2 == 0
                               else reversed(cyclers)):
                    cycler(i)
            for cycler in cyclers:
                cycled(cycler, args, results[cycler.side.name])
    if len(results) == 2:
        lite, nova = results['nova_lite'], results['nova']
        print('ratios (nova_lite / Nova): boot wall %.3f (Nova %.1fx '
              'slower), POST p50 %.3f' % (
                  lite['wall'] / nova['wall'], nova['wall'] / lite['wall'],
                  lite['post'] / nova['post']), flush=True)
        if args.cycles:
            print('ratios (nova_lite / Nova): attach p50 %.3f, detach '
                  'until gone p50 %.3f' % (
                      lite['attach'] / nova['attach'],
                      lite['detached'] / nova['detached']), flush=True)


if __name__ == '__main__':
    main()
