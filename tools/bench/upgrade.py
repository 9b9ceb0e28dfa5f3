#!/usr/bin/env python3
"""A rolling upgrade from the previous release under load.

    python tools/bench/upgrade.py [--clients 2] [--cells 2]
        [--computes-per-cell 2] [--leave-old HOST] [--json FILE]

Builds the previous release (tools/upgrade/release.py: the commit
tools/upgrade/PREVIOUS_RELEASE names, in a venv of its own), starts
tools/deployment.py on it (MariaDB + RabbitMQ, every service its own
process, two API processes, per-cell conductors without the API DB),
gives it state the upgrade must carry (``seed``: flavors, some of them
still in a cell's legacy tables; a key pair; servers ACTIVE, SHUTOFF,
PAUSED, SUSPENDED, VERIFY_RESIZE within a cell and across cells, ERROR in
cell0) and then, while ``--clients`` clients boot, list, show, reboot
and delete servers, upgrades it in the order doc/upgrade.rst gives:

1. the schemas expanded by this release's ``nova-lite-manage`` (API,
   cells, local services) while the previous release runs;
2. each process stopped (SIGTERM) and started again on this release,
   one at a time, waiting until it is up: the super conductor, each cell
   conductor, the scheduler, each API, each compute (``[upgrade_levels]
   = auto``, the default, caps RPC at the oldest peer meanwhile);
3. ``nova-lite-manage db online_data_migrations`` until it exits 0;
4. SIGHUP to every process (the RPC caps are lifted).

Then the load stops and everything is checked: every request's answer
(a failure is any 5xx, any answer but the one the Compute API promises,
any request that could not be delivered, a server in ERROR or stuck),
every seeded server usable (stopped and started, unpaused, resumed, its
resize confirmed or reverted, the ERROR one deleted, one shelved -- an
action only this release's computes take), no leaked or missing
allocation (``placement audit``), every service recorded at this
release's service version and logging this release at its start, every
process having handled the SIGHUP.

``--leave-old`` (the second pass): one compute (the seeded ACTIVE
server's) stays on the previous release through a first round of online
migrations; those that need it are reported blocked (not run), it keeps
serving its server (stopped and started) while the API refuses it what
only this release's computes do (shelve: 409); it is upgraded
afterwards, the migrations run again and everything completes.

Prints the total upgrade time, the requests served and their p50/p95
inside and outside the upgrade window. As a library
(tests/real/test_upgrade.py)::

    report = upgrade.run(dep, new_bindir, clients=2)
    assert report.failures() == {}
"""
import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, *path.split('/')))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rolling = _load('tools/bench/rolling_restart.py', 'rolling_restart')
release_tool = _load('tools/upgrade/release.py', 'nova_lite_release')

SEED_FLAVOR = {'name': 'upgrade.small', 'id': 'upgrade.small', 'ram': 128,
               'vcpus': 1, 'disk': 1}
# Flavors written straight into cell1's legacy tables, as a deployment
# older than the flavor move left them: the online migration moves them.
LEGACY_FLAVORS = ['legacy.%d' % i for i in range(3)]
SERVER_TIMEOUT = 120
# RPC capped at the oldest peer during the upgrade (doc/upgrade.rst,
# step 2: unset means uncapped, as in Nova); quotas only this release
# has (the clients are not bound by them).
EXTRA_CONFIG = {
    'upgrade_levels': {name: 'auto' for name in (
        'compute', 'conductor', 'compute_task', 'scheduler', 'placement')},
    'quota': {'instances': -1, 'cores': -1, 'ram': -1}}


def current_version():
    """This tree's release (what its commands' --version says)."""
    from nova_lite import version
    return version.release_string()


class TimedBalancer(rolling.Balancer):
    """A Balancer that keeps (start, seconds, kind) of every request."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.samples = []

    def request(self, kind, method, path, body=None):
        t0 = time.monotonic()
        try:
            return super().request(kind, method, path, body)
        finally:
            with self._lock:
                self.samples.append((t0, time.monotonic() - t0, kind))


class ActingClient(rolling.Client):
    """Boots, shows, lists, reboots and deletes (rolling.Client plus a
    soft reboot of each ACTIVE server, waited for)."""

    def act(self, server_id):
        status, _ = self._call('reboot', 'POST',
                               '/servers/%s/action' % server_id, (202,),
                               {'reboot': {'type': 'SOFT'}})
        if status != 202:
            return
        deadline = time.monotonic() + rolling.BUILD_TIMEOUT
        while time.monotonic() < deadline:
            time.sleep(rolling.POLL_INTERVAL)
            status, body = self._call('show', 'GET',
                                      '/servers/%s' % server_id, (200,))
            if status == 200 and not body['server'][
                    'OS-EXT-STS:task_state']:
                if body['server']['status'] != 'ACTIVE':
                    self.failures.add('error', '%s: %s after reboot' % (
                        server_id, body['server']['status']))
                return
        self.failures.add('stuck', '%s rebooting after %ss' % (
            server_id, rolling.BUILD_TIMEOUT))


class SetupError(Exception):
    """The scenario could not be set up (not a failure of the upgrade)."""


def _api_call(api, method, path, expect, body=None, kind='setup'):
    status, answer = api.request(kind, method, path, body)
    if status not in expect:
        raise SetupError('%s %s: %s %s' % (method, path, status,
                                           str(answer)[:500]))
    return answer


def wait_server(api, server_id, status, task_state=None, kind='setup',
                timeout=SERVER_TIMEOUT):
    """The server's body once it is in ``status`` with no task (or
    ``task_state``); SetupError on ERROR or after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        got, body = api.request(kind, 'GET', '/servers/%s' % server_id)
        if got == 200:
            server = body['server']
            if (server['status'] == status and
                    server['OS-EXT-STS:task_state'] == task_state):
                return server
            if server['status'] == 'ERROR' and status != 'ERROR':
                raise SetupError('%s went to ERROR: %s' % (
                    server_id, server.get('fault')))
        if time.monotonic() > deadline:
            raise SetupError('%s not %s within %ss (%s)' % (
                server_id, status, timeout, body))
        time.sleep(0.3)


def _legacy_flavors(dep):
    import sqlalchemy as sa

    from nova_lite.db.main import legacy_flavors
    t = legacy_flavors.GEN
    engine = sa.create_engine(dep.db_url(dep.cell_names()[0]),
                              poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(t.flavors.insert(), [
                {'name': name, 'flavorid': name, 'memory_mb': 64,
                 'vcpus': 1, 'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0,
                 'rxtx_factor': 1.0, 'vcpu_weight': 0, 'disabled': False,
                 'is_public': True, 'deleted': 0}
                for name in LEGACY_FLAVORS])
    finally:
        engine.dispose()


def _boot(api, name, flavor=None):
    body = _api_call(api, 'POST', '/servers', (202,), {'server': {
        'name': name, 'flavorRef': flavor or SEED_FLAVOR['id'],
        'imageRef': rolling.IMAGE, 'networks': 'none',
        'key_name': 'upgrade-key'}})
    return body['server']['id']


def _action(api, server_id, body, kind='setup', expect=(202,)):
    return _api_call(api, 'POST', '/servers/%s/action' % server_id,
                     expect, body, kind=kind)


def seed(dep, api):
    """State the upgrade must carry, made on the previous release:
    {role: server id}."""
    _legacy_flavors(dep)
    _api_call(api, 'POST', '/flavors', (200,), {'flavor': SEED_FLAVOR})
    _api_call(api, 'POST', '/flavors', (200, 409), {'flavor': rolling.FLAVOR})
    _api_call(api, 'POST', '/os-keypairs', (200, 201),
              {'keypair': {'name': 'upgrade-key'}})
    roles = ['active', 'shutoff', 'paused', 'suspended', 'migrated',
             'resized', 'shelve']
    servers = {role: _boot(api, 'upgrade-%s' % role) for role in roles}
    for server_id in servers.values():
        wait_server(api, server_id, 'ACTIVE')
    _action(api, servers['shutoff'], {'os-stop': None})
    _action(api, servers['paused'], {'pause': None})
    _action(api, servers['suspended'], {'suspend': None})
    # Within the cell: cold-migrated to the other compute of its cell.
    host = wait_server(api, servers['migrated'], 'ACTIVE')[
        'OS-EXT-SRV-ATTR:host']
    cell, number = host.rsplit('-compute', 1)
    other = '%s-compute%d' % (cell, 1 + int(number) % dep.computes_per_cell)
    # (a target host needs 2.56)
    api_256 = TimedBalancer(dep.endpoints, version='2.56')
    _api_call(api_256, 'POST', '/servers/%s/action' % servers['migrated'],
              (202,), {'migrate': {'host': other}})
    # Across cells (the deployment prefers other cells for resizes).
    _action(api, servers['resized'], {'resize': {
        'flavorRef': rolling.FLAVOR['id']}})
    # ERROR in cell0: no host has that much memory.
    _api_call(api, 'POST', '/flavors', (200,), {'flavor': {
        'name': 'upgrade.huge', 'id': 'upgrade.huge', 'ram': 10 ** 8,
        'vcpus': 1, 'disk': 1}})
    servers['error'] = _boot(api, 'upgrade-error', 'upgrade.huge')
    wait_server(api, servers['shutoff'], 'SHUTOFF')
    wait_server(api, servers['paused'], 'PAUSED')
    wait_server(api, servers['suspended'], 'SUSPENDED')
    wait_server(api, servers['migrated'], 'VERIFY_RESIZE')
    wait_server(api, servers['resized'], 'VERIFY_RESIZE')
    wait_server(api, servers['error'], 'ERROR')
    return servers


def verify(api, servers, failures):
    """Every seeded server usable on the new release (failures added as
    'seeded')."""
    def step(role, action, want, expect=(202,)):
        try:
            if action is not None:
                _action(api, servers[role], action, kind='seeded',
                        expect=expect)
            wait_server(api, servers[role], want, kind='seeded')
        except SetupError as exc:
            failures.add('seeded', '%s: %s' % (role, exc))
            return False
        return True

    step('active', {'os-stop': None}, 'SHUTOFF') and step(
        'active', {'os-start': None}, 'ACTIVE')
    step('shutoff', {'os-start': None}, 'ACTIVE')
    step('paused', {'unpause': None}, 'ACTIVE')
    step('suspended', {'resume': None}, 'ACTIVE')
    step('migrated', {'confirmResize': None}, 'ACTIVE', expect=(204,))
    step('resized', {'revertResize': None}, 'ACTIVE')
    # Shelve: only this release's computes take it (service version 18).
    # ([DEFAULT] shelved_offload_time = 0: offloaded at once)
    step('shelve', {'shelve': None}, 'SHELVED_OFFLOADED')
    try:
        _api_call(api, 'DELETE', '/servers/%s' % servers['error'], (204,),
                  kind='seeded')
    except SetupError as exc:
        failures.add('seeded', 'error: %s' % exc)
    status, body = api.request('seeded', 'GET', '/flavors')
    names = {f['name'] for f in (body or {}).get('flavors', [])}
    missing = set(LEGACY_FLAVORS) - names
    if status != 200 or missing:
        failures.add('seeded', 'legacy flavors not listed: %s'
                     % sorted(missing))


def on_old_compute(api, servers, failures):
    """While the seeded 'active' server's compute still runs the
    previous release (the second pass): it keeps serving the server (a
    stop and a start), and the API refuses what only this release's
    computes do (shelve: 409)."""
    server_id = servers['active']
    for action, want in (({'os-stop': None}, 'SHUTOFF'),
                         ({'os-start': None}, 'ACTIVE')):
        try:
            _action(api, server_id, action, kind='old-compute')
            wait_server(api, server_id, want, kind='old-compute')
        except SetupError as exc:
            failures.add('old_compute', str(exc))
            return
    status, body = api.request('old-compute', 'POST',
                               '/servers/%s/action' % server_id,
                               {'shelve': None})
    if status != 409:
        failures.add('old_compute', 'shelve on a previous-release compute: '
                     '%s %s (409 expected)' % (status, str(body)[:300]))


def host_of(api, server_id):
    return wait_server(api, server_id, 'ACTIVE')['OS-EXT-SRV-ATTR:host']


def upgrade_order(dep, leave_old=()):
    """The order doc/upgrade.rst gives: super conductor, cell conductors,
    scheduler, APIs, computes."""
    names = ['conductor'] + ['%s-conductor' % c for c in dep.cell_names()]
    names += ['scheduler'] + list(dep.api_names())
    names += ['%s-compute%d' % (c, i) for c in dep.cell_names()
              for i in range(1, dep.computes_per_cell + 1)]
    return [n for n in names if n not in leave_old]


def _manage(dep, bindir, *args):
    return subprocess.run(
        [os.path.join(bindir, 'nova-lite-manage'), '--config-file',
         os.path.join(dep.workdir, 'top.conf')] + list(args),
        capture_output=True, text=True, timeout=300,
        env=dep.environ(bindir=bindir))


def expand(dep, bindir):
    """The API database's schema, then the cells' and the local
    services' side by side (each command spends seconds importing)."""
    for batch in ([('api_db', 'sync')],
                  [('db', 'sync'), ('local_services', 'sync')]):
        results = [None] * len(batch)

        def one(i, args):
            results[i] = _manage(dep, bindir, *args)

        threads = [threading.Thread(target=one, args=(i, args))
                   for i, args in enumerate(batch)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for args, proc in zip(batch, results):
            if proc.returncode != 0:
                raise SetupError('nova-lite-manage %s: %s%s' % (
                    ' '.join(args), proc.stdout[-1000:],
                    proc.stderr[-2000:]))


def online_migrations(dep, bindir, rounds=10):
    """Run them until exit 0 or a round changes nothing: the last
    round's {'migrations': rows, 'exit_code': code}."""
    last = None
    for _ in range(rounds):
        proc = _manage(dep, bindir, 'db', 'online_data_migrations', '--json')
        try:
            result = json.loads(proc.stdout)
        except ValueError:
            raise SetupError('online_data_migrations: %s%s' % (
                proc.stdout[-1000:], proc.stderr[-2000:]))
        if result['exit_code'] != 1 or result == last:
            return result
        last = result
    return last


def service_versions(dep):
    """{(cell, binary, host): version} of every live service record."""
    import sqlalchemy as sa
    found = {}
    for cell in ['cell0'] + dep.cell_names():
        engine = sa.create_engine(dep.db_url(cell),
                                  poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                for binary, host, version in conn.execute(sa.text(
                        'SELECT `binary`, host, version FROM services '
                        'WHERE deleted = 0')):
                    found[(cell, binary, host)] = version
        finally:
            engine.dispose()
    return found


def sighup_all(dep):
    for name, pid in dep.procs.items():
        os.kill(pid, signal.SIGHUP)


def handled_sighup(dep):
    """Names of the processes whose log shows a SIGHUP reset."""
    done = []
    for name in dep.procs:
        try:
            with open(os.path.join(dep.workdir, '%s.log' % name)) as f:
                if 'reset (SIGHUP)' in f.read():
                    done.append(name)
        except FileNotFoundError:
            pass
    return done


def running_releases(dep):
    """{process name: the release its last start logged, or None}."""
    found = {}
    for name in dep.procs:
        found[name] = None
        try:
            with open(os.path.join(dep.workdir, '%s.log' % name)) as f:
                for line in f:
                    if ' Starting ' in line and '(version ' in line:
                        found[name] = line.rsplit('(version ', 1)[1].split(
                            ')')[0]
        except FileNotFoundError:
            pass
    return found


def _percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


class Report(object):
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def failures(self):
        return {kind: len(items) for kind, items in self.by_kind.items()}

    def latency(self):
        """{'inside'|'outside': (count, p50 ms, p95 ms)} of the requests
        started inside and outside the upgrade window."""
        inside, outside = [], []
        for start, seconds, _ in self.samples:
            (inside if self.window[0] <= start <= self.window[1]
             else outside).append(seconds * 1000)
        return {name: (len(v), _percentile(v, 0.5), _percentile(v, 0.95))
                for name, v in (('inside', inside), ('outside', outside))}

    def as_dict(self):
        return {'upgrade_seconds': round(self.window[1] - self.window[0], 1),
                'requests': self.requests, 'steps': self.steps,
                'latency_ms': self.latency(), 'failures': self.failures(),
                'failure_details': self.by_kind,
                'online_migrations': self.migrations,
                'blocked': self.blocked}

    def text(self):
        lines = ['upgrade: %.1f s, %d steps' % (
            self.window[1] - self.window[0], len(self.steps)),
            'requests: %d (%s)' % (sum(self.requests.values()), ', '.join(
                '%s %d' % kv for kv in sorted(self.requests.items())))]
        for name, (count, p50, p95) in sorted(self.latency().items()):
            lines.append('  %s the upgrade window: %d requests, p50 %s ms, '
                         'p95 %s ms' % (name, count,
                                        p50 and round(p50, 1),
                                        p95 and round(p95, 1)))
        for step in self.steps:
            lines.append('  %-28s %6.2f s' % (step['name'], step['seconds']))
        if self.blocked:
            lines.append('blocked migrations: %s' % self.blocked)
        failures = self.failures()
        lines.append('failures: %s' % (', '.join(
            '%s %d' % kv for kv in sorted(failures.items())) or '0'))
        for kind, items in sorted(self.by_kind.items()):
            for item in items[:5]:
                lines.append('  %s: %s' % (kind, item))
        return '\n'.join(lines)


def _timed(steps, name, fn, *args):
    t0 = time.monotonic()
    result = fn(*args)
    steps.append({'name': name, 'seconds': round(time.monotonic() - t0, 2)})
    return result


def _replace(dep, name, pinger, failures):
    """SIGTERM ``name`` and start it on dep.bindir (rolling.restart)."""
    return rolling.restart(dep, name, pinger, failures)


def run(dep, new_bindir, clients=2, warmup=2.0, settle=120,
        leave_old=False, log=None):
    """Seed ``dep`` (running the previous release), upgrade it to the
    release in ``new_bindir`` under load and check the outcome: a
    Report. ``leave_old``: the compute of the seeded 'active' server
    stays on the previous release through a first round of online
    migrations (the second pass: on_old_compute), then is upgraded and
    the migrations run again."""
    from nova_lite.objects import service_version
    log = log or (lambda message: None)
    api = TimedBalancer(dep.endpoints)
    failures = rolling.Failures()
    seeded = seed(dep, api)
    log('seeded: %s' % ', '.join(sorted(seeded)))
    leave_old = [host_of(api, seeded['active'])] if leave_old else []
    stop = threading.Event()
    booted = []
    threads = [ActingClient(i, api, stop, failures, booted)
               for i in range(1, clients + 1)]
    pinger = rolling.Pinger(dep)
    steps = []
    for thread in threads:
        thread.start()
    blocked = None
    try:
        time.sleep(warmup)
        start = time.monotonic()
        _timed(steps, 'expand schemas', expand, dep, new_bindir)
        dep.bindir = new_bindir
        for name in upgrade_order(dep, leave_old):
            log('upgrading %s' % name)
            _timed(steps, 'upgrade %s' % name, _replace, dep, name, pinger,
                   failures)
        migrations = _timed(steps, 'online data migrations',
                            online_migrations, dep, new_bindir)
        if leave_old:
            blocked = [r['name'] for r in migrations['migrations']
                       if r['blocked']]
            log('with %s on the previous release: exit %s, blocked %s' % (
                ', '.join(leave_old), migrations['exit_code'], blocked))
            on_old_compute(api, seeded, failures)
            for name in leave_old:
                _timed(steps, 'upgrade %s' % name, _replace, dep, name,
                       pinger, failures)
            migrations = _timed(steps, 'online data migrations again',
                                online_migrations, dep, new_bindir)
        if migrations['exit_code'] != 0:
            failures.add('migrations', 'online_data_migrations exit %s: %s'
                         % (migrations['exit_code'],
                            migrations['migrations']))
        _timed(steps, 'SIGHUP', sighup_all, dep)
        end = time.monotonic()
        time.sleep(warmup)
    finally:
        stop.set()
        for thread in threads:
            thread.join(rolling.BUILD_TIMEOUT + 2 * rolling.REQUEST_TIMEOUT)
    log('load stopped; checking the seeded servers')
    verify(api, seeded, failures)
    rolling._settle(api, booted, failures, settle)
    leaked = rolling._leaked_allocations(dep, booted)
    for consumer, count in sorted(leaked.items()):
        failures.add('leaked_allocations', '%s: %d allocations of a '
                     'deleted server' % (consumer, count))
    rolling._audit(dep, failures)
    versions = service_versions(dep)
    old = {k: v for k, v in versions.items()
           if v != service_version.SERVICE_VERSION}
    if old:
        failures.add('service_versions', 'not at %d: %s' % (
            service_version.SERVICE_VERSION, old))
    behind = {name: release for name, release in running_releases(
        dep).items() if release != current_version()}
    if behind:
        failures.add('releases', 'not running %s: %s' % (
            current_version(), behind))
    missing = sorted(set(dep.procs) - set(handled_sighup(dep)))
    if missing:
        failures.add('sighup', 'no SIGHUP reset logged by %s' % missing)
    pinger.close()
    return Report(requests=dict(api.requests), samples=list(api.samples),
                  window=(start, end), steps=steps, by_kind={
                      k: list(v) for k, v in failures.by_kind.items() if v},
                  migrations=migrations, blocked=blocked,
                  booted=len(booted), left_old=leave_old)


def start_previous(workdir, release, cells=2, computes_per_cell=2,
                   prefix=None):
    """tools/deployment.py on the previous release (not started)."""
    tool = rolling.load_deployment_tool()
    return tool.Deployment(workdir, cells=cells,
                           computes_per_cell=computes_per_cell, apis=2,
                           prefix=prefix, allow_cross_cell_resize=True,
                           extra_config=EXTRA_CONFIG,
                           bindir=release['bindir'])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', type=int, default=2)
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--leave-old', action='store_true',
                        help='the second pass: one compute stays on the '
                             'previous release through a first round of '
                             'online migrations')
    parser.add_argument('--workdir', default=None)
    parser.add_argument('--json', default=None)
    args = parser.parse_args(argv)
    release = release_tool.build(log=print)
    workdir = args.workdir or tempfile.mkdtemp(prefix='upgrade-')
    dep = start_previous(workdir, release, args.cells,
                         args.computes_per_cell)
    print('release %s (%s) -> this tree; %d cells x %d computes, 2 APIs, '
          '%d clients' % (release['version'], release['commit'][:10],
                          args.cells, args.computes_per_cell, args.clients),
          flush=True)
    try:
        dep.start()
        report = run(dep, os.path.dirname(sys.executable),
                     clients=args.clients, leave_old=args.leave_old,
                     log=lambda m: print(m, flush=True))
    finally:
        dep.stop()
    print(report.text())
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report.as_dict(), f, indent=2, sort_keys=True)
    return 1 if report.failures() else 0


if __name__ == '__main__':
    sys.exit(main())
