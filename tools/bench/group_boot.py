#!/usr/bin/env python3
"""Boot the members of one anti-affinity server group side by side:
nova-lite-all-in-one (fresh state directory, SQLite, 2 cells x
--computes-per-cell computes) and real Nova 34
(../shared/anchors/real_nova_server.py --computes-per-cell N) in the
same run.

    python tools/bench/group_boot.py [--members 50]
        [--computes-per-cell 25] [--mode multi|single]
        [--sides nova_lite,nova] [--nova-python /tmp/nova-venv/bin/python]
        [--poll 0.1]

Per side: the project's server_group_members quota lifted (both
default to 10), one anti-affinity server group (2.64),
then --members servers (networks none, 64 MiB) booted into it with the
'group' scheduler hint: one POST with min_count = max_count = --members
(--mode multi) or one POST per member, sent one after the other
(--mode single). Wall time: from the first POST to the first GET
/servers/detail showing every member ACTIVE. Every member must end
ACTIVE on a host of its own (checked, never timed). Prints the sizes,
both wall times, the POST time alone and Nova's wall time over
nova_lite's (target, issue 34: >= 10x).

Every unexpected answer stops the run; times are printed, never
asserted.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import evacuate  # noqa: E402
import flavor_create as fc  # noqa: E402
import servers  # noqa: E402

TIMEOUT = 1200
# Real Nova starts its computes one after the other: 50 take minutes.
fc.START_TIMEOUT = 900
_checked = evacuate._checked


class NovaLite(servers.NovaLite):
    """The all-in-one with --computes-per-cell computes in each cell."""
    computes = 2

    def __enter__(self):
        import tempfile
        self.conf = tempfile.NamedTemporaryFile('w', suffix='.conf',
                                                delete=False)
        self.conf.write(servers.AIO_CONFIG)
        self.conf.close()
        fc.NovaLite.EXTRA_ARGS = ['--config-file', self.conf.name,
                                  '--computes-per-cell', str(self.computes)]
        return fc.NovaLite.__enter__(self)

    def _all_up(self):
        try:
            status, body = fc._get(self.port,
                                   '/v2.1/os-services?binary=nova-compute')
        except OSError:
            return False
        found = json.loads(body)['services'] if status == 200 else []
        return (len(found) >= 2 * self.computes
                and all(s['state'] == 'up' for s in found))


class RealNova(fc.RealNova):
    """Real Nova with --computes-per-cell computes in each cell."""

    def __enter__(self):
        try:
            return super().__enter__()
        except BaseException:
            # Never leave a half-started Nova behind.
            if getattr(self, 'proc', None) is not None:
                self.proc.kill()
                self.proc.wait()
            raise


def _wait_active(side, uuids, poll):
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = {s['id']: s for s in evacuate._servers(side)
                 if s['id'] in uuids}
        bad = [s for s in found.values() if s['status'] == 'ERROR']
        if bad:
            raise RuntimeError('%s: %d members in ERROR, first: %s' % (
                side.name, len(bad), bad[0].get('fault')))
        if len(found) == len(uuids) and all(
                s['status'] == 'ACTIVE' for s in found.values()):
            return found
        if time.monotonic() > deadline:
            raise RuntimeError('%s: not all ACTIVE after %d s' % (
                side.name, TIMEOUT))
        time.sleep(poll)


def _member_uuids(side, group_id):
    return set(_checked(side, 'GET', '/os-server-groups/%s' % group_id,
                        version='2.64')['server_group']['members'])


def run(side, members, mode, poll):
    _checked(side, 'POST', '/flavors', {'flavor': servers.FLAVOR},
             version='2.1', expected=(200, 409))
    # Both default to 10 members a group: lifted for the project.
    _checked(side, 'PUT', '/os-quota-sets/admin', {'quota_set': {
        'server_group_members': -1, 'server_groups': -1}}, version='2.1')
    group = _checked(side, 'POST', '/os-server-groups', {'server_group': {
        'name': 'bench-anti', 'policy': 'anti-affinity'}},
        version='2.64')['server_group']
    body = {'server': {'flavorRef': servers.FLAVOR['id'],
                       'imageRef': servers.IMAGE, 'networks': 'none'},
            'os:scheduler_hints': {'group': group['id']}}
    start = time.perf_counter()
    if mode == 'multi':
        body['server'].update(name='member', min_count=members,
                              max_count=members)
        _checked(side, 'POST', '/servers', body, version='2.47')
    else:
        for i in range(members):
            body['server']['name'] = 'member-%03d' % i
            _checked(side, 'POST', '/servers', body, version='2.47')
    posted = time.perf_counter() - start
    uuids = _member_uuids(side, group['id'])
    if len(uuids) != members:
        raise RuntimeError('%s: the group has %d members, not %d' % (
            side.name, len(uuids), members))
    found = _wait_active(side, uuids, poll)
    wall = time.perf_counter() - start
    hosts = [s['OS-EXT-SRV-ATTR:host'] for s in found.values()]
    if len(set(hosts)) != members:
        raise RuntimeError('%s: %d members on %d hosts' % (
            side.name, members, len(set(hosts))))
    print('%s: %d anti-affinity members (%s) ACTIVE on %d hosts: wall '
          '%.2f s (POSTs %.2f s)' % (side.name, members, mode,
                                     len(set(hosts)), wall, posted),
          flush=True)
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--members', type=int, default=50)
    parser.add_argument('--computes-per-cell', type=int, default=25)
    parser.add_argument('--mode', choices=('multi', 'single'),
                        default='multi')
    parser.add_argument('--sides', default='nova_lite,nova')
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--poll', type=float, default=0.1)
    args = parser.parse_args()
    per_cell = str(args.computes_per_cell)
    walls = {}
    for name in args.sides.split(','):
        if name == 'nova_lite':
            side = NovaLite()
            side.computes = args.computes_per_cell
        else:
            side = RealNova(args.nova_python)
            side.extra_args = ('--computes-per-cell', per_cell)
        started = time.perf_counter()
        with side:
            print('%s: up with %s computes per cell in %.1f s' % (
                name, per_cell, time.perf_counter() - started), flush=True)
            walls[name] = run(side, args.members, args.mode, args.poll)
    print('sizes: %d members of one anti-affinity group (%s), 2 cells x '
          '%s computes' % (args.members, args.mode, per_cell))
    if len(walls) == 2:
        print('nova wall / nova_lite wall: %.1fx (target >= 10x)'
              % (walls['nova'] / walls['nova_lite']))


if __name__ == '__main__':
    main()
