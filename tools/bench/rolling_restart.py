#!/usr/bin/env python3
"""A rolling restart under load: every service restarted, no failed request.

    python tools/bench/rolling_restart.py [--clients 6] [--cells 2]
        [--computes-per-cell 2] [--warmup 5] [--settle 120] [--json FILE]

Starts tools/deployment.py (MariaDB + RabbitMQ, every service its own
process) with two API processes, runs ``--clients`` client threads that
boot, show, list and delete servers through the REST API, and meanwhile
restarts every service one at a time -- each API, the super conductor,
each cell conductor, the scheduler, each compute: SIGTERM, wait for the
exit, start it again with the same command, wait until it is up (an API:
it answers ``GET /``; an RPC service: it answers a ``baseapi`` ping sent
to its own (topic, host) queue). Then the load stops, every client
deletes its last server, and the run waits until every server is gone.

Target: 0 failures, counted by kind:

- ``5xx``: any 5xx answer (never retried);
- ``connection``: a request that could not be delivered (see below);
- ``unexpected``: any other answer than the one the Compute API
  promises (202 for a boot, 204 for a delete, 200 for a show or a
  list);
- ``error``: a server that went to ERROR;
- ``stuck``: a server not ACTIVE (nor ERROR) two minutes after its
  boot, or not gone ``--settle`` seconds after the load ended;
- ``leaked_allocations``: allocations in placement of a server that is
  gone, or anything ``nova-lite-manage placement audit`` reports;
- ``unclean_stop``: a service whose SIGTERM did not end in exit status 0.

**Two API processes, and the client as the load balancer.** One API
process restarting leaves a window with nothing listening on its port.
Operators run several API nodes behind a load balancer (HAProxy) that
sends each new connection to a node that accepts it; that is what this
does: two nova-lite-api processes on two ports (``Deployment(apis=2)``)
and a client (``Balancer``) that takes them in turn and moves on to the
next one when a connection is refused. Rejected: ``[api] workers`` (the
workers are children of one launcher: restarting it restarts them all);
two processes sharing a port with SO_REUSEPORT (the server refuses to
share a port on purpose, to report an address in use; and Linux resets
the connections waiting in a closing listener's queue unless the
operator sets net.ipv4.tcp_migrate_req).

**What a client retries.** Each request opens its own connection
(``Connection: close``). It is sent again, to the next API, when the
connection is refused or reset before any byte of an answer: a stopping
API answers every request it accepted (its server stops accepting,
then finishes what it has), so such a request never reached the
application -- it waited in the queue of a listener that closed. A GET
is also sent again after any connection error or timeout (it is
idempotent). A 5xx is a failure, never retried.

As a library (tests/real/test_rolling_restart.py)::

    report = rolling_restart.run(deployment, clients=3)
    assert report.failures() == {}

The deployment must have been started with ``apis >= 2`` for the API
restarts to be seamless.
"""
import argparse
import collections
import http.client
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = {'name': 'rolling.tiny', 'id': 'rolling.tiny', 'ram': 64,
          'vcpus': 1, 'disk': 1}
VERSION = '2.47'
HEADERS = {'X-Auth-Token': 'admin:admin',
           'Content-Type': 'application/json',
           'OpenStack-API-Version': 'compute %s' % VERSION,
           'Connection': 'close'}
REQUEST_TIMEOUT = 60
# How long a client keeps trying to deliver one request while APIs are
# refusing connections.
DELIVERY_TIMEOUT = 60
POLL_INTERVAL = 0.25
BUILD_TIMEOUT = 120     # longer in BUILD: a stuck server
UP_TIMEOUT = 90


def load_deployment_tool():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_deployment', os.path.join(ROOT, 'tools', 'deployment.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Failures(object):
    """Failures by kind, each with a few words of what happened."""

    def __init__(self):
        self._lock = threading.Lock()
        self.by_kind = collections.defaultdict(list)

    def add(self, kind, what):
        with self._lock:
            self.by_kind[kind].append(what)


class Undelivered(Exception):
    """A request that could not be delivered to any API."""


class Balancer(object):
    """A client of several API endpoints, as a load balancer in front of
    them: each request goes to the next endpoint; a connection refused,
    or reset before any answer, sends it to the one after (see the
    module docstring for what is retried)."""

    def __init__(self, endpoints, timeout=REQUEST_TIMEOUT,
                 delivery_timeout=DELIVERY_TIMEOUT, version=VERSION):
        self.endpoints = [urllib.parse.urlsplit(e) for e in endpoints]
        self.headers = dict(HEADERS, **{
            'OpenStack-API-Version': 'compute %s' % version})
        self.timeout = timeout
        self.delivery_timeout = delivery_timeout
        self._next = 0
        self._lock = threading.Lock()
        self.requests = collections.Counter()
        self.retries = collections.Counter()

    def _pick(self):
        with self._lock:
            self._next = (self._next + 1) % len(self.endpoints)
            return self._next

    def _count(self, counter, key):
        with self._lock:
            counter[key] += 1

    def _once(self, endpoint, method, path, body):
        """(status, parsed body); raises (stage, exc) on a connection
        problem, stage 'connect', 'before-answer' or 'after-answer'."""
        conn = http.client.HTTPConnection(endpoint.hostname, endpoint.port,
                                          timeout=self.timeout)
        try:
            try:
                conn.connect()
            except OSError as exc:
                raise _Trouble('connect', exc)
            try:
                conn.request(method, '/v2.1' + path, headers=self.headers,
                             body=None if body is None else json.dumps(body))
                resp = conn.getresponse()
            except OSError as exc:   # reset, broken pipe, timeout
                raise _Trouble('before-answer', exc)
            try:
                raw = resp.read()
            except (OSError, http.client.HTTPException) as exc:
                raise _Trouble('after-answer', exc)
            try:
                return resp.status, json.loads(raw) if raw else None
            except ValueError:
                return resp.status, raw[:200]
        finally:
            conn.close()

    def request(self, kind, method, path, body=None):
        """(status, body) of one request of ``kind`` (counted)."""
        self._count(self.requests, kind)
        deadline = time.monotonic() + self.delivery_timeout
        index = self._pick()
        while True:
            endpoint = self.endpoints[index]
            try:
                return self._once(endpoint, method, path, body)
            except _Trouble as trouble:
                retry = (trouble.stage == 'connect' or (
                    trouble.stage == 'before-answer' and isinstance(
                        trouble.exc, (ConnectionResetError,
                                      BrokenPipeError))) or method == 'GET')
                if not retry or time.monotonic() > deadline:
                    raise Undelivered('%s %s to %s: %s (%s)' % (
                        method, path, endpoint.netloc, trouble.exc,
                        trouble.stage))
                self._count(self.retries, '%s %s' % (
                    trouble.stage, type(trouble.exc).__name__))
            index = (index + 1) % len(self.endpoints)
            if index == 0:
                time.sleep(0.05)


class _Trouble(Exception):
    def __init__(self, stage, exc):
        super().__init__(stage, exc)
        self.stage = stage
        self.exc = exc


class Client(threading.Thread):
    """Boots a server, shows it until ACTIVE (listing now and then),
    deletes it, and again, until ``stop`` is set; then finishes the
    server it has. At most one server of its own at a time."""

    def __init__(self, number, api, stop, failures, booted):
        super().__init__(name='client-%d' % number, daemon=True)
        self.number = number
        self.api = api
        self.stop = stop
        self.failures = failures
        self.booted = booted
        self.deleted = []
        self.active = 0

    def _call(self, kind, method, path, expect, body=None):
        try:
            status, answer = self.api.request(kind, method, path, body)
        except Undelivered as exc:
            self.failures.add('connection', str(exc))
            return None, None
        if status >= 500:
            self.failures.add('5xx', '%s %s: %s %s' % (
                method, path, status, str(answer)[:300]))
        elif status not in expect:
            self.failures.add('unexpected', '%s %s: %s %s' % (
                method, path, status, str(answer)[:300]))
        return status, answer

    def _cycle(self, count):
        status, body = self._call('boot', 'POST', '/servers', (202,), {
            'server': {'name': 'rolling-%d-%d' % (self.number, count),
                       'flavorRef': FLAVOR['id'], 'imageRef': IMAGE,
                       'networks': 'none'}})
        if status != 202:
            return
        server_id = body['server']['id']
        self.booted.append(server_id)
        deadline = time.monotonic() + BUILD_TIMEOUT
        polls = 0
        while True:
            if time.monotonic() > deadline:
                self.failures.add('stuck', '%s not ACTIVE after %ss' % (
                    server_id, BUILD_TIMEOUT))
                break
            time.sleep(POLL_INTERVAL)
            polls += 1
            if polls % 4 == 0:
                self._call('list', 'GET', '/servers/detail?limit=20',
                           (200,))
            status, body = self._call('show', 'GET',
                                      '/servers/%s' % server_id, (200,))
            if status != 200:
                continue
            server = body['server']
            if server['status'] == 'ACTIVE' and not server[
                    'OS-EXT-STS:task_state']:
                self.active += 1
                self.act(server_id)
                break
            if server['status'] == 'ERROR':
                self.failures.add('error', '%s: %s' % (
                    server_id, server.get('fault', {}).get('message')))
                break
        status, _ = self._call('delete', 'DELETE',
                               '/servers/%s' % server_id, (204,))
        if status == 204:
            self.deleted.append(server_id)

    def act(self, server_id):
        """What the client does with its ACTIVE server before deleting
        it (tools/bench/upgrade.py's clients reboot it): nothing."""

    def run(self):
        count = 0
        while not self.stop.is_set():
            count += 1
            try:
                self._cycle(count)
            except Exception as exc:   # a bug here must not pass quietly
                self.failures.add('client', repr(exc))
                time.sleep(1)


def _rpc_targets(dep):
    """{process name: (topic, host, transport URL)} of the RPC services."""
    targets = {'conductor': ('conductor', 'top', dep.mq_url('api')),
               'scheduler': ('scheduler', 'top', dep.mq_url('api'))}
    for cell in dep.cell_names():
        targets['%s-conductor' % cell] = (
            'conductor', '%s-conductor' % cell, dep.mq_url(cell))
        for i in range(1, dep.computes_per_cell + 1):
            host = '%s-compute%d' % (cell, i)
            targets[host] = ('compute', host, dep.mq_url(cell))
    return targets


def restart_order(dep):
    """API processes, super conductor, cell conductors, scheduler,
    computes: the order an operator would take."""
    names = list(dep.api_names()) + ['conductor']
    names += ['%s-conductor' % cell for cell in dep.cell_names()]
    names.append('scheduler')
    names += ['%s-compute%d' % (cell, i) for cell in dep.cell_names()
              for i in range(1, dep.computes_per_cell + 1)]
    return names


class Pinger(object):
    """Asks an RPC service on its own (topic, host) queue whether it
    consumes (the 'baseapi' ping every nova_lite service answers)."""

    def __init__(self, dep):
        from nova_lite import context as nova_context
        self.targets = _rpc_targets(dep)
        self.context = nova_context.get_admin_context()

    def close(self):
        from nova_lite import rpc
        rpc.cleanup()

    def wait_up(self, name, timeout=UP_TIMEOUT):
        import oslo_messaging as messaging

        from nova_lite import baserpc
        from nova_lite import rpc
        topic, host, url = self.targets[name]
        client = rpc.get_client(messaging.Target(
            topic=topic, server=host, namespace=baserpc.BASE_NAMESPACE,
            version=baserpc.BaseAPI.VERSION),
            transport=rpc.get_transport(url))
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.prepare(timeout=1).call(self.context, 'ping',
                                               arg='up?')
                return
            except messaging.MessagingTimeout:
                if time.monotonic() > deadline:
                    raise RuntimeError('%s did not answer a ping within '
                                       '%ss' % (name, timeout))


def restart(dep, name, pinger, failures):
    """SIGTERM ``name``, wait for its exit, start it again, wait until
    it is up: {'name', 'stop_s', 'start_s', 'exit_status'}."""
    t0 = time.monotonic()
    status = dep.terminate(name)
    t1 = time.monotonic()
    if status != 0:
        failures.add('unclean_stop', '%s exited with status %s'
                     % (name, status))
    dep.respawn(name)
    if name in dep.api_names():
        dep.wait_for_api(UP_TIMEOUT, endpoints=[
            dep.endpoints[dep.api_names().index(name)]])
    else:
        pinger.wait_up(name)
    return {'name': name, 'stop_s': round(t1 - t0, 2),
            'start_s': round(time.monotonic() - t1, 2),
            'exit_status': status}


def _leaked_allocations(dep, consumers):
    import sqlalchemy as sa
    if not consumers:
        return {}
    engine = sa.create_engine(dep.db_url('api'), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT consumer_id, COUNT(*) FROM allocations WHERE '
                'consumer_id IN :ids GROUP BY consumer_id').bindparams(
                    sa.bindparam('ids', expanding=True)),
                {'ids': sorted(consumers)}).all()
    finally:
        engine.dispose()
    return dict(rows)


def _settle(api, booted, failures, timeout):
    """Wait until none of ``booted`` is listed; the rest are stuck."""
    booted = set(booted)
    deadline = time.monotonic() + timeout
    left = {}
    while True:
        try:
            status, body = api.request('list', 'GET', '/servers/detail')
        except Undelivered as exc:
            failures.add('connection', str(exc))
            return
        if status == 200:
            left = {s['id']: s for s in body['servers'] if s['id'] in booted}
            if not left:
                return
        if time.monotonic() > deadline:
            break
        time.sleep(1)
    for server_id, server in sorted(left.items()):
        failures.add('stuck', '%s: status %s, task_state %s' % (
            server_id, server['status'], server['OS-EXT-STS:task_state']))


def _audit(dep, failures):
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'nova-lite-manage'),
         '--config-file', os.path.join(dep.workdir, 'top.conf'),
         'placement', 'audit', '--verbose'],
        capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        failures.add('leaked_allocations', 'placement audit exit %d: %s%s'
                     % (proc.returncode, proc.stdout[-1500:],
                        proc.stderr[-500:]))
    return proc.stdout.strip()


class Report(object):
    def __init__(self, requests, retries, booted, active, deleted,
                 restarts, failures, seconds, audit):
        self.requests = dict(requests)
        self.retries = dict(retries)
        self.booted = booted
        self.active = active
        self.deleted = deleted
        self.restarts = restarts
        self.by_kind = {k: list(v) for k, v in failures.items() if v}
        self.seconds = seconds
        self.audit = audit

    def failures(self):
        """{kind: count} of the failures (empty: the target is met)."""
        return {kind: len(items) for kind, items in self.by_kind.items()}

    def as_dict(self):
        return {'requests': self.requests,
                'requests_total': sum(self.requests.values()),
                'retries': self.retries, 'servers_booted': self.booted,
                'servers_active': self.active,
                'servers_deleted': self.deleted,
                'restarts': self.restarts, 'failures': self.failures(),
                'failure_details': self.by_kind,
                'load_seconds': round(self.seconds, 1)}

    def text(self):
        lines = ['requests: %d (%s)' % (
            sum(self.requests.values()), ', '.join(
                '%s %d' % item for item in sorted(self.requests.items()))),
            'retried deliveries: %s' % (', '.join(
                '%s %d' % item for item in sorted(self.retries.items()))
                or 'none'),
            'servers: %d booted, %d ACTIVE, %d deleted' % (
                self.booted, self.active, self.deleted),
            'load ran %.1f s' % self.seconds,
            'restarts (stop s / start-until-up s / exit status):']
        for r in self.restarts:
            lines.append('  %-18s %6.2f %6.2f %s' % (
                r['name'], r['stop_s'], r['start_s'], r['exit_status']))
        failures = self.failures()
        lines.append('failures: %s' % (', '.join(
            '%s %d' % item for item in sorted(failures.items())) or '0'))
        for kind, items in sorted(self.by_kind.items()):
            for item in items[:5]:
                lines.append('  %s: %s' % (kind, item))
        return '\n'.join(lines)


def ensure_flavor(api):
    status, body = api.request('setup', 'POST', '/flavors',
                               {'flavor': FLAVOR})
    if status not in (200, 409):
        raise RuntimeError('flavor: %s %s' % (status, body))
    # The clients' servers (project admin) are not bound by quotas.
    status, body = api.request('setup', 'PUT', '/os-quota-sets/admin', {
        'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})
    if status != 200:
        raise RuntimeError('quotas: %s %s' % (status, body))


def run(dep, clients=4, warmup=3.0, settle=120, names=None, log=None):
    """Load ``dep`` with ``clients`` clients, restart every process of
    ``names`` (default: restart_order) one at a time, stop the load and
    check the outcome: a Report."""
    log = log or (lambda message: None)
    api = Balancer(dep.endpoints)
    ensure_flavor(api)
    failures = Failures()
    stop = threading.Event()
    booted = []
    threads = [Client(i, api, stop, failures, booted)
               for i in range(1, clients + 1)]
    pinger = Pinger(dep)
    started = time.monotonic()
    for thread in threads:
        thread.start()
    restarts = []
    try:
        time.sleep(warmup)
        for name in names or restart_order(dep):
            log('restarting %s' % name)
            restarts.append(restart(dep, name, pinger, failures))
            log('  %(name)s: stopped in %(stop_s)ss, up again in '
                '%(start_s)ss (exit %(exit_status)s)' % restarts[-1])
        time.sleep(warmup)
    finally:
        stop.set()
        for thread in threads:
            thread.join(BUILD_TIMEOUT + 2 * REQUEST_TIMEOUT)
    seconds = time.monotonic() - started
    log('load stopped; waiting for %d servers to be gone' % len(booted))
    _settle(api, booted, failures, settle)
    leaked = _leaked_allocations(dep, booted)
    for consumer, count in sorted(leaked.items()):
        failures.add('leaked_allocations', '%s: %d allocations of a '
                     'deleted server' % (consumer, count))
    audit = _audit(dep, failures)
    pinger.close()
    return Report(api.requests, api.retries, len(booted),
                  sum(t.active for t in threads),
                  sum(len(t.deleted) for t in threads), restarts,
                  failures.by_kind, seconds, audit)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', type=int, default=6)
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--warmup', type=float, default=5.0,
                        help='seconds of load before the first restart '
                             'and after the last')
    parser.add_argument('--settle', type=float, default=120,
                        help='seconds for every server to be gone')
    parser.add_argument('--workdir', default=None)
    parser.add_argument('--json', default=None,
                        help='also write the report to this file')
    args = parser.parse_args(argv)
    tool = load_deployment_tool()
    workdir = args.workdir or tempfile.mkdtemp(prefix='rolling-')
    dep = tool.Deployment(workdir, cells=args.cells,
                          computes_per_cell=args.computes_per_cell, apis=2)
    t0 = time.monotonic()
    try:
        dep.start()
        print('deployment up in %.1fs (%s)' % (time.monotonic() - t0,
                                               workdir), flush=True)
        report = run(dep, clients=args.clients, warmup=args.warmup,
                     settle=args.settle,
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
