#!/usr/bin/env python3
"""Faults under load: broker and database restarts, kill -9 of each
service type, and what each costs.

    python tools/bench/faults.py [--clients 3] [--down 5]
        [--scenarios broker_restart,database_restart,...] [--json FILE]

Starts a MariaDB server and a RabbitMQ node of its own
(tests/real/private_services.py: other ports, never the machine's
shared ones), a tools/deployment.py deployment on them (two cells, one
compute process each, builds slowed to 2 s and deletes to 1 s by the
fake driver), and ``--clients`` client threads that boot servers, show
and list them, stop and start them, and delete them through the REST
API (a few requests a second in all). Scenarios, one after the other:

- ``broker_restart``: ``rabbitmqctl stop``, ``--down`` seconds, start;
- ``database_restart``: mariadbd shut down, ``--down`` seconds, start;
- ``kill_cell_conductor``, ``kill_scheduler``, ``kill_compute``,
  ``kill_api``: kill -9 of cell1's conductor, cell1's compute, the
  API, while a boot and a delete are in flight (the scenario sends
  both itself and kills as the boot spawns on the compute, or as soon
  as the requests left for the API), then the process started again
  with the same command. The scheduler is restarted first with
  ``NOVA_LITE_TEST_KILL_AT_STEP=select_destinations`` (the tests'
  plugin, tests/plugin) and then dies -9 holding a boot's request, the
  moment a timed kill hits only by chance (the request is taken from
  the queue and lost with it: the conductor's call must give up, the
  server end in ERROR); without the plugin it is killed as the others
  after DIE_WAIT seconds. cell2's compute is disabled meanwhile, so
  every boot goes through cell1.

After each, the load stops and the run waits for recovery: every
service up, every server in a final state (ACTIVE, SHUTOFF or ERROR,
no task state; a server whose DELETE was accepted gone),
``nova-lite-manage placement check_guests`` (no guest without a live
server, none missing, every compute checked), ``placement
check_allocations`` and ``placement audit`` clean. Then every server is
deleted (and must be gone) before the next scenario.

Printed per scenario: requests by kind, answers by status, failures,
seconds the fault lasted (``down``) and until everything was consistent
again (``recovery``, from the start of the fault). Failures, counted
by kind:

- ``5xx``: a 5xx answer, except a 503 during an outage (from the
  fault's start until ``OUTAGE_GRACE`` seconds after the broker, the
  database or the API is back);
- ``connection``: a request not answered (refused, reset, timed out)
  outside the API's own outage;
- ``not_final``: a server still outside a final state, a delete
  accepted but the server still there, when recovery timed out;
- ``check_guests``, ``check_allocations``, ``audit``: the checker's
  report at that time;
- ``stuck_delete``: a server not gone a minute after the clean-up's
  DELETE.

As a library (tests/real/test_faults.py)::

    report = faults.run(dep, db, mq, clients=2)
    assert report.failures() == {}
"""
import argparse
import collections
import http.client
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = {'name': 'faults.tiny', 'id': 'faults.tiny', 'ram': 64,
          'vcpus': 1, 'disk': 1}
HEADERS = {'X-Auth-Token': 'admin:admin',
           'Content-Type': 'application/json',
           'OpenStack-API-Version': 'compute 2.47',
           'Connection': 'close'}
REQUEST_TIMEOUT = 30
POLL = 0.5
SCENARIOS = ('broker_restart', 'database_restart', 'kill_cell_conductor',
             'kill_scheduler', 'kill_compute', 'kill_api')
# 503s (and, for the API, unanswered requests) are expected until this
# long after what was down is back.
OUTAGE_GRACE = 15
RECOVERY_TIMEOUT = 150
# Seconds a process restarted to die at a step is given to die.
DIE_WAIT = 60
KILL_AT_STEP_ENV = 'NOVA_LITE_TEST_KILL_AT_STEP'
FINAL = ('ACTIVE', 'SHUTOFF', 'ERROR')
# What the deployment runs with (tools/deployment.py --set): slow builds
# and deletes (so that a fault finds some in flight), orphans looked for
# every 5 s, a delete stuck in `deleting` sent again after 10 s, an RPC
# call to a killed service given up after 20 s, and durable queues.
#
# Durable queues: with oslo.messaging's default (transient queues) a
# broker restart drops every queue, and a cast sent after the broker is
# back but before its consumer has declared its queue again is routed
# nowhere and lost without an error -- a boot the API accepted (202)
# then stays in BUILD/scheduling for ever (seen here: two boots sent
# 4 s after the restart, while the super conductor's reconnect backed
# off). Durable queues outlive the restart and keep such casts for
# their consumer, as production RabbitMQ set-ups configure
# ([oslo_messaging_rabbit] amqp_durable_queues, or
# rabbit_quorum_queue).
CONFIG = {
    'fake_driver': {'spawn_delay': '2', 'delay_methods': 'destroy:1'},
    'DEFAULT': {'running_deleted_instance_poll_interval': '5',
                'delete_retry_interval': '10',
                'rpc_response_timeout': '20'},
    'oslo_messaging_rabbit': {'amqp_durable_queues': 'true'},
    # A boot the killed API wrote but never sent is buried (ERROR with
    # a fault) 5-10 s after it was written.
    'conductor': {'build_request_timeout': '5'},
    # The clients' servers (one project) are not bound by quotas.
    'quota': {'instances': '-1', 'cores': '-1', 'ram': '-1'},
}


def _load(relpath, name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, *relpath.split('/')))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_deployment_tool():
    return _load('tools/deployment.py', 'nova_lite_deployment')


def load_private_services():
    return _load('tests/real/private_services.py',
                 'nova_lite_private_services')


# --- the client -------------------------------------------------------------

class Api(object):
    """Requests to one API endpoint, each recorded: (start, end, kind,
    status) with status 'connection' when nothing was answered."""

    def __init__(self, endpoint):
        self.endpoint = urllib.parse.urlsplit(endpoint)
        self._lock = threading.Lock()
        self.records = []

    def request(self, kind, method, path, body=None, record=True):
        start = time.monotonic()
        conn = http.client.HTTPConnection(
            self.endpoint.hostname, self.endpoint.port,
            timeout=REQUEST_TIMEOUT)
        try:
            conn.request(method, '/v2.1' + path, headers=HEADERS,
                         body=None if body is None else json.dumps(body))
            resp = conn.getresponse()
            raw = resp.read()
            status = resp.status
            try:
                answer = json.loads(raw) if raw else None
            except ValueError:
                answer = raw[:300]
        except (OSError, http.client.HTTPException) as exc:
            status, answer = 'connection', repr(exc)
        finally:
            conn.close()
        if record:
            with self._lock:
                self.records.append((start, time.monotonic(), kind, status,
                                     method, path, answer))
        return status, answer

    def take(self):
        with self._lock:
            records, self.records = self.records, []
        return records


class Client(threading.Thread):
    """Boots a server, waits until ACTIVE (showing it, listing now and
    then), stops and starts it, deletes it; again until ``stop`` is set,
    when it leaves its server as it is. A 503 or an unanswered request
    is tried again a second later."""

    def __init__(self, number, api, stop, accepted_deletes):
        super().__init__(name='faults-client-%d' % number, daemon=True)
        self.number = number
        self.api = api
        self.stop = stop
        self.accepted_deletes = accepted_deletes
        self.errors = []

    def _retrying(self, kind, method, path, body=None):
        while not self.stop.is_set():
            status, answer = self.api.request(kind, method, path, body)
            if status not in ('connection', 503):
                return status, answer
            self.stop.wait(1)
        return None, None

    def _wait(self, server_id, statuses):
        polls = 0
        while not self.stop.wait(POLL):
            polls += 1
            if polls % 4 == 0:
                self.api.request('list', 'GET', '/servers/detail?limit=10')
            status, body = self.api.request('show', 'GET',
                                            '/servers/%s' % server_id)
            if status == 404:
                return None
            if status != 200:
                continue
            server = body['server']
            if server['OS-EXT-STS:task_state']:
                continue
            if server['status'] in statuses or server['status'] == 'ERROR':
                return server['status']
        return None

    def _cycle(self, count):
        status, body = self._retrying('boot', 'POST', '/servers', {
            'server': {'name': 'faults-%d-%d' % (self.number, count),
                       'flavorRef': FLAVOR['id'], 'imageRef': IMAGE,
                       'networks': 'none'}})
        if status != 202:
            return
        server_id = body['server']['id']
        state = self._wait(server_id, ('ACTIVE',))
        for action, want in (('os-stop', 'SHUTOFF'), ('os-start', 'ACTIVE')):
            if state != ('ACTIVE' if action == 'os-stop' else 'SHUTOFF'):
                break
            status, _ = self._retrying(action.replace('os-', ''), 'POST',
                                       '/servers/%s/action' % server_id,
                                       {action: None})
            if status != 202:
                break
            state = self._wait(server_id, (want,))
        if self.stop.is_set():
            return
        status, _ = self._retrying('delete', 'DELETE',
                                   '/servers/%s' % server_id)
        if status == 204:
            self.accepted_deletes.add(server_id)

    def run(self):
        count = 0
        while not self.stop.is_set():
            count += 1
            try:
                self._cycle(count)
            except Exception as exc:   # a bug here must not pass quietly
                self.errors.append(repr(exc))
                self.stop.wait(1)


# --- the faults -------------------------------------------------------------

class Scenario(object):
    def __init__(self, name):
        self.name = name
        self.requests = collections.Counter()
        self.statuses = collections.Counter()
        self.failures = collections.defaultdict(list)
        self.down_s = None
        self.recovery_s = None
        self.notes = []
        # {name: (status, fault message)} of boots the API died without
        # answering that it had written (Runner._note_unanswered_boots).
        self.unanswered_boots = {}

    def fail(self, kind, what):
        self.failures[kind].append(what)

    def as_dict(self):
        return {'name': self.name, 'requests': dict(self.requests),
                'statuses': {str(k): v for k, v in self.statuses.items()},
                'failures': {k: len(v) for k, v in self.failures.items()},
                'failure_details': {k: v[:10] for k, v
                                    in self.failures.items()},
                'down_s': self.down_s, 'recovery_s': self.recovery_s,
                'unanswered_boots': self.unanswered_boots,
                'notes': self.notes}


class Runner(object):
    def __init__(self, dep, db, mq, clients=2, down=5.0, warmup=4.0,
                 log=None):
        self.dep = dep
        self.db = db
        self.mq = mq
        self.clients = clients
        self.down = down
        self.warmup = warmup
        self.log = log or (lambda message: None)
        self.api = Api(dep.endpoint)
        self.accepted_deletes = set()
        # Names of boots the API died without answering.
        self.unanswered_boots = set()
        self.pinger = _load('tools/bench/rolling_restart.py',
                            'nova_lite_rolling_restart').Pinger(dep)

    # helpers ------------------------------------------------------------

    def _call(self, method, path, body=None, expect=(200, 202, 204)):
        """An API call of the scenario itself (not counted as load),
        tried again while the API does not answer or answers 503."""
        deadline = time.monotonic() + RECOVERY_TIMEOUT
        while True:
            status, answer = self.api.request('driver', method, path, body,
                                              record=False)
            if status in expect:
                return answer
            if status not in ('connection', 503) or \
                    time.monotonic() > deadline:
                raise RuntimeError('%s %s: %s %s' % (method, path, status,
                                                     answer))
            time.sleep(1)

    def _servers(self):
        return self._call('GET', '/servers/detail?all_tenants=1')['servers']

    def _show(self, server_id):
        status, body = self.api.request('driver', 'GET',
                                        '/servers/%s' % server_id,
                                        record=False)
        return body['server'] if status == 200 else None

    def _set_cell2_computes(self, enabled):
        for i in range(1, self.dep.computes_per_cell + 1):
            self._call('PUT', '/os-services/%s' % (
                'enable' if enabled else 'disable'),
                {'host': 'cell2-compute%d' % i, 'binary': 'nova-compute'})

    def _boot(self, name):
        return self._call('POST', '/servers', {'server': {
            'name': name, 'flavorRef': FLAVOR['id'], 'imageRef': IMAGE,
            'networks': 'none'}})['server']['id']

    def _wait_for(self, predicate, timeout, interval=0.2):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        return None

    def _active(self, server_id):
        server = self._show(server_id)
        return server and server['status'] in ('ACTIVE', 'ERROR') and \
            not server['OS-EXT-STS:task_state']

    def _kill_and_respawn(self, name):
        """kill -9 process ``name``, start it again, wait until it is
        up: seconds from the kill until up."""
        pid = self.dep.procs[name]
        t0 = time.monotonic()
        os.killpg(pid, signal.SIGKILL)
        while self.dep.exit_status(name) is None:
            time.sleep(0.05)
        self.dep.respawn(name)
        if name in self.dep.api_names():
            self.dep.wait_for_api(90, endpoints=[self.dep.endpoint])
        else:
            self.pinger.wait_up(name)
        return time.monotonic() - t0

    # the faults ---------------------------------------------------------

    def broker_restart(self, scenario):
        t0 = time.monotonic()
        self.mq.restart(down=self.down)
        return t0, time.monotonic(), True

    def database_restart(self, scenario):
        t0 = time.monotonic()
        self.db.restart(down=self.down)
        return t0, time.monotonic(), True

    def _kill_in_flight(self, scenario, name, moment):
        """Boot V1 and wait until ACTIVE; then DELETE V1 and boot V2;
        kill -9 ``name`` at ``moment`` ('spawning': as V2 spawns on its
        compute; 'sent': as soon as both requests left); respawn."""
        victim = self._boot('faults-victim-%s' % scenario.name)
        self._wait_for(lambda: self._active(victim), 60)
        requests = []
        answers = {}

        def send(method, path, body=None):
            answers[method] = self.api.request('fault', method, path, body)
            requests.append(answers[method])

        delete = threading.Thread(target=send, args=(
            'DELETE', '/servers/%s' % victim))
        boot = threading.Thread(target=send, args=('POST', '/servers', {
            'server': {'name': 'faults-inflight-%s' % scenario.name,
                       'flavorRef': FLAVOR['id'], 'imageRef': IMAGE,
                       'networks': 'none'}}))
        delete.start()
        boot.start()
        if moment == 'sent':
            time.sleep(0.1)
        else:
            boot.join()
            delete.join()

            def spawning():
                for s in self._servers():
                    if s['name'] == 'faults-inflight-%s' % scenario.name \
                            and s['OS-EXT-STS:task_state'] == 'spawning':
                        return s
            if not self._wait_for(spawning, 30):
                scenario.notes.append('killed before the boot spawned')
        t0 = time.monotonic()
        self._kill_and_respawn(name)
        t1 = time.monotonic()
        boot.join()
        delete.join()
        for status, answer in requests:
            if status == 204:
                self.accepted_deletes.add(victim)
        if not isinstance(answers.get('POST', ('none',))[0], int):
            # The API died with the boot unanswered: not written, sent
            # (it builds), or written and never sent (the super
            # conductors bury it: ERROR with a fault). Recovery waits
            # for its final state like any other server's.
            self.unanswered_boots.add('faults-inflight-%s' % scenario.name)
        scenario.notes.append('in-flight requests answered %s' % sorted(
            str(s) for s, _ in requests))
        return t0, t1, name in self.dep.api_names()

    def kill_cell_conductor(self, scenario):
        return self._kill_in_flight(scenario, 'cell1-conductor', 'spawning')

    def kill_scheduler(self, scenario):
        return self._die_at_step(scenario, 'scheduler',
                                 'select_destinations')

    def _die_at_step(self, scenario, name, step):
        """Restart ``name`` (SIGTERM, start) so that it kills itself at
        ``step``, boot a server (the clients' boots may reach it
        first), wait until it died (killed after DIE_WAIT s if it does
        not), start it again as it was."""
        self.dep.terminate(name)
        self.dep.respawn(name, env={KILL_AT_STEP_ENV: step})
        self._call('POST', '/servers', {'server': {
            'name': 'faults-inflight-%s' % scenario.name,
            'flavorRef': FLAVOR['id'], 'imageRef': IMAGE,
            'networks': 'none'}}, expect=(202,))
        t0 = time.monotonic()
        if self._wait_for(lambda: self.dep.exit_status(name) is not None,
                          DIE_WAIT, interval=0.05) is None:
            scenario.notes.append('%s did not die at %s: killed'
                                  % (name, step))
            os.killpg(self.dep.procs[name], signal.SIGKILL)
            while self.dep.exit_status(name) is None:
                time.sleep(0.05)
        else:
            scenario.notes.append('%s died at %s' % (name, step))
        self.dep.respawn(name)
        self.pinger.wait_up(name)
        return t0, time.monotonic(), False

    def kill_compute(self, scenario):
        return self._kill_in_flight(scenario, 'cell1-compute1', 'spawning')

    def kill_api(self, scenario):
        return self._kill_in_flight(scenario, 'api', 'sent')

    # recovery -----------------------------------------------------------

    def _manage_all(self, *calls):
        """{command: (exit code, output)} of nova-lite-manage commands
        run at once."""
        binary = os.path.join(os.path.dirname(sys.executable),
                              'nova-lite-manage')
        conf = os.path.join(self.dep.workdir, 'top.conf')
        procs = {call[1]: subprocess.Popen(
            [binary, '--config-file', conf] + list(call),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for call in calls}
        results = {}
        for name, proc in procs.items():
            output = proc.communicate(timeout=180)[0]
            results[name] = (proc.returncode, output)
        return results

    def _unsettled(self):
        """What keeps the deployment from counting as recovered (empty:
        nothing)."""
        problems = {}
        status, body = self.api.request('driver', 'GET', '/os-services',
                                        record=False)
        if status != 200:
            return {'api': ['GET /os-services: %s' % status]}
        down = ['%s %s' % (s['binary'], s['host'])
                for s in body['services'] if s['state'] != 'up']
        if down:
            problems['services_down'] = down
        status, body = self.api.request(
            'driver', 'GET', '/servers/detail?all_tenants=1', record=False)
        if status != 200:
            return {'api': ['GET /servers/detail: %s' % status]}
        for s in body['servers']:
            if s['status'] not in FINAL or s['OS-EXT-STS:task_state']:
                problems.setdefault('not_final', []).append('%s %s/%s' % (
                    s['id'], s['status'], s['OS-EXT-STS:task_state']))
            elif s['id'] in self.accepted_deletes:
                problems.setdefault('not_final', []).append(
                    '%s %s: its DELETE was accepted' % (s['id'],
                                                        s['status']))
        if problems:
            return problems
        results = self._manage_all(
            ('placement', 'check_guests', '--json'),
            ('placement', 'check_allocations', '--json'),
            ('placement', 'audit', '--verbose'))
        for name, (code, output) in results.items():
            if code != 0:
                problems[name] = [output[-1500:]]
        code, output = results['check_guests']
        if code == 0:
            try:
                not_checked = json.loads(output)['not_checked']
            except (ValueError, KeyError):
                not_checked = {'?': output[-300:]}
            if not_checked:
                problems['check_guests'] = ['not checked: %s'
                                            % not_checked]
        return problems

    def recover(self, scenario, t0):
        deadline = time.monotonic() + RECOVERY_TIMEOUT
        said = time.monotonic()
        while True:
            problems = self._unsettled()
            if not problems:
                scenario.recovery_s = round(time.monotonic() - t0, 1)
                self._note_unanswered_boots(scenario)
                return
            if time.monotonic() > deadline:
                for kind, items in problems.items():
                    for item in items:
                        scenario.fail(kind, item)
                return
            if time.monotonic() - said > 30:
                said = time.monotonic()
                self.log('%s: waiting for %s' % (scenario.name, '; '.join(
                    '%s: %s' % (k, ', '.join(v)[:300])
                    for k, v in sorted(problems.items()))))
            time.sleep(1)

    def _note_unanswered_boots(self, scenario):
        """scenario.unanswered_boots: {name: (status, fault message or
        None)} of the servers of boots the API died without answering
        (a boot it never wrote has none)."""
        for s in self._servers():
            if s['name'] in self.unanswered_boots:
                detail = self._show(s['id']) or {}
                scenario.unanswered_boots[s['name']] = (
                    detail.get('status'),
                    (detail.get('fault') or {}).get('message'))
        if scenario.unanswered_boots:
            scenario.notes.append('unanswered boots ended %s' % sorted(
                (n, st) for n, (st, _) in scenario.unanswered_boots.items()))

    def clean_up(self, scenario):
        servers = self._servers()
        for s in servers:
            self._call('DELETE', '/servers/%s' % s['id'],
                       expect=(204, 404))
            self.accepted_deletes.add(s['id'])
        ids = {s['id'] for s in servers}
        if not self._wait_for(lambda: not ids & {
                s['id'] for s in self._servers()}, 60, interval=1):
            for s in self._servers():
                scenario.fail('stuck_delete', '%s %s/%s' % (
                    s['id'], s['status'], s['OS-EXT-STS:task_state']))

    def _classify(self, scenario, records, outage, api_outage):
        for start, end, kind, status, method, path, answer in records:
            scenario.requests[kind] += 1
            scenario.statuses[status] += 1
            during = outage and start <= outage[1] and end >= outage[0]
            if status == 'connection':
                if not (api_outage and during):
                    scenario.fail('connection', '%s %s: %s' % (
                        method, path, answer))
            elif status >= 500 and not (status == 503 and during):
                scenario.fail('5xx', '%s %s: %s %s' % (
                    method, path, status, str(answer)[:300]))

    def scenario(self, name):
        scenario = Scenario(name)
        killing = name.startswith('kill_')
        if killing:
            self._set_cell2_computes(False)
        stop = threading.Event()
        clients = [Client(i, self.api, stop, self.accepted_deletes)
                   for i in range(1, self.clients + 1)]
        self.api.take()
        for client in clients:
            client.start()
        try:
            time.sleep(self.warmup)
            self.log('%s: fault' % name)
            t0, t1, outage = getattr(self, name)(scenario)
            scenario.down_s = round(t1 - t0, 1)
            self.log('%s: back after %.1fs' % (name, t1 - t0))
            time.sleep(self.warmup)
        finally:
            stop.set()
            for client in clients:
                client.join(2 * REQUEST_TIMEOUT)
        for client in clients:
            for error in client.errors:
                scenario.fail('client', error)
        self._classify(scenario, self.api.take(),
                       (t0, t1 + OUTAGE_GRACE) if outage else None,
                       name == 'kill_api')
        self.recover(scenario, t0)
        self.log('%s: recovered in %ss' % (name, scenario.recovery_s))
        if killing:
            self._set_cell2_computes(True)
        self.clean_up(scenario)
        return scenario


def ensure_flavor(api):
    status, body = api.request('setup', 'POST', '/flavors',
                               {'flavor': FLAVOR}, record=False)
    if status not in (200, 409):
        raise RuntimeError('flavor: %s %s' % (status, body))


class Report(object):
    def __init__(self, scenarios, seconds):
        self.scenarios = scenarios
        self.seconds = seconds

    def failures(self):
        """{scenario: {kind: count}} of the scenarios that failed."""
        return {s.name: {k: len(v) for k, v in s.failures.items()}
                for s in self.scenarios if s.failures}

    def as_dict(self):
        return {'scenarios': [s.as_dict() for s in self.scenarios],
                'seconds': round(self.seconds, 1)}

    def text(self):
        lines = ['%-20s %8s %10s %6s %9s  %s' % (
            'scenario', 'requests', 'non-2xx', 'down s', 'recovery',
            'failures')]
        for s in self.scenarios:
            bad = {k: v for k, v in s.statuses.items()
                   if k == 'connection' or k >= 300}
            lines.append('%-20s %8d %10s %6s %9s  %s' % (
                s.name, sum(s.requests.values()),
                ','.join('%s:%d' % (k, v) for k, v in sorted(
                    bad.items(), key=str)) or '-',
                s.down_s, s.recovery_s,
                ', '.join('%s %d' % (k, len(v)) for k, v in sorted(
                    s.failures.items())) or '0'))
        for s in self.scenarios:
            lines.append('  %s: %s; %s' % (s.name, ', '.join(
                '%s %d' % item for item in sorted(s.requests.items())),
                '; '.join(s.notes)))
            for kind, items in sorted(s.failures.items()):
                for item in items[:5]:
                    lines.append('    %s: %s' % (kind, item))
        lines.append('run took %.1f s' % self.seconds)
        return '\n'.join(lines)


def _rabbit_overrides(overrides):
    """This process's [oslo_messaging_rabbit] as the deployment's (its
    pings declare the same exchanges: durable, as CONFIG says); returns
    the undo."""
    import oslo_messaging

    from nova_lite.conf import CONF
    group = 'oslo_messaging_rabbit'
    for name, opts in oslo_messaging.opts.list_opts():
        if name == group:
            CONF.register_opts(opts, group=group)
    for key, value in overrides.items():
        CONF.set_override(key, value, group=group)

    def undo():
        for key in overrides:
            CONF.clear_override(key, group=group)
    return undo


def run(dep, db, mq, scenarios=SCENARIOS, clients=2, down=5.0, warmup=4.0,
        log=None):
    """Every scenario on deployment ``dep`` (started on ``db`` and
    ``mq``, with CONFIG): a Report."""
    undo = _rabbit_overrides(CONFIG['oslo_messaging_rabbit'])
    try:
        runner = Runner(dep, db, mq, clients=clients, down=down,
                        warmup=warmup, log=log)
        ensure_flavor(runner.api)
        started = time.monotonic()
        done = []
        try:
            for name in scenarios:
                done.append(runner.scenario(name))
        finally:
            runner.pinger.close()
    finally:
        undo()
    return Report(done, time.monotonic() - started)


def start(workdir, prefix=None, log=None):
    """(deployment, db, mq): a private MariaDB and RabbitMQ, and a
    deployment on them with CONFIG (two cells, one compute each)."""
    log = log or (lambda message: None)
    services = load_private_services()
    db = services.PrivateMariaDB(workdir)
    mq = services.PrivateRabbitMQ(workdir)
    t0 = time.monotonic()
    services.start_all(db, mq)
    log('MariaDB on port %d, RabbitMQ %s on port %d: up in %.1fs' % (
        db.port, mq.node, mq.port, time.monotonic() - t0))
    dep = load_deployment_tool().Deployment(
        os.path.join(workdir, 'deployment'), cells=2, computes_per_cell=1,
        prefix=prefix, database_url=db.url, transport_url=mq.url,
        rabbit_node=mq.node, extra_config=CONFIG)
    t0 = time.monotonic()
    try:
        dep.start()
    except BaseException:
        stop(dep, db, mq)
        raise
    log('deployment up in %.1fs' % (time.monotonic() - t0))
    return dep, db, mq


def stop(dep, db, mq):
    """Stop the deployment's services and the private servers (their
    data goes with them: nothing to drop)."""
    try:
        dep.stop(keep_data=True)
    finally:
        mq.cleanup()
        db.cleanup()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', type=int, default=3)
    parser.add_argument('--down', type=float, default=5.0,
                        help='seconds the broker and the database stay '
                             'stopped')
    parser.add_argument('--warmup', type=float, default=4.0,
                        help='seconds of load before and after each fault')
    parser.add_argument('--scenarios', default=','.join(SCENARIOS))
    parser.add_argument('--workdir', default=None)
    parser.add_argument('--json', default=None,
                        help='also write the report to this file')
    args = parser.parse_args(argv)
    workdir = args.workdir or tempfile.mkdtemp(prefix='faults-')
    # SIGTERM (timeout, kill) stops what was started, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))

    def log(message):
        print(message, flush=True)

    dep, db, mq = start(workdir, log=log)
    try:
        report = run(dep, db, mq, scenarios=args.scenarios.split(','),
                     clients=args.clients, down=args.down,
                     warmup=args.warmup, log=log)
    finally:
        stop(dep, db, mq)
    print('clients: %d; broker/database down %.0fs; config: %s' % (
        args.clients, args.down, json.dumps(CONFIG, sort_keys=True)))
    print(report.text())
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report.as_dict(), f, indent=2, sort_keys=True)
    return 1 if report.failures() else 0


if __name__ == '__main__':
    sys.exit(main())
