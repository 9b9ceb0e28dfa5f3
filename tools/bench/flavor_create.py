#!/usr/bin/env python3
"""One sequential HTTP client creating flavors, against
nova-lite-all-in-one (fresh state directory) and against real Nova 34 in
the same run (../shared/anchors/real_nova_server.py in its own venv).

    python tools/bench/flavor_create.py [--count 1000] [--runs 1]
        [--nova-python /tmp/nova-venv/bin/python] [--no-nova]

Both servers run at once and the client sends one request to each in
turn (the order alternating), so that a machine shared with other work
loads both sides alike. Prints, per side and run, the total (the sum of
the side's request times), POST /flavors p50, p95 and max, and the CPU
seconds the server process used; then the medians over runs and
nova_lite's figures as a fraction of Nova's. Every request must answer
200; any other status stops the run. nova_lite's log is searched for
"database is locked" and failed heartbeats.
Target (issue 13 item 6): nova_lite total <= 0.5 x Nova's.

Figures: doc/performance.rst.

The client is http.client on one keep-alive connection per side, the
same body to both (microversion 2.1, admin token `admin:admin`).
"""
import argparse
import contextlib
import ctypes
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# The anchors' directory: shared/anchors beside the checkout, or
# $NOVA_LITE_ANCHORS (a checkout elsewhere, e.g. a git worktree).
ANCHORS = os.environ.get('NOVA_LITE_ANCHORS') or os.path.join(
    os.path.dirname(REPO), 'shared', 'anchors')
ANCHOR = os.path.join(ANCHORS, 'real_nova_server.py')
HEADERS = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json',
           'Accept': 'application/json'}
START_TIMEOUT = int(os.environ.get('NOVA_LITE_BENCH_START_TIMEOUT', 180))
# A directory where each side's log is copied when it stops (the state
# directories are removed): what a run that went wrong is read from.
KEEP_LOGS = os.environ.get('NOVA_LITE_BENCH_KEEP_LOGS')


def _keep_log(path, name):
    if KEEP_LOGS and os.path.exists(path):
        os.makedirs(KEEP_LOGS, exist_ok=True)
        kept = os.path.join(KEEP_LOGS, '%s-%d.log' % (name, os.getpid()))
        shutil.copyfile(path, kept)
        print('%s log kept: %s' % (name, kept), flush=True)


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _get(port, path):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
    try:
        conn.request('GET', path, headers=HEADERS)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _wait(proc, ready, what):
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError('%s exited with %s' % (what, proc.returncode))
        if time.monotonic() > deadline:
            raise RuntimeError('%s not up after %d s' % (what,
                                                         START_TIMEOUT))
        time.sleep(0.1)


def _started(side, ready, name):
    """Wait until side's process is ready; a wait that fails or is
    interrupted stops it (a context manager's __exit__ does not run
    when its __enter__ raises)."""
    try:
        _wait(side.proc, ready, name)
    except BaseException:
        side.__exit__(None, None, None)
        raise


def _exit_on_sigterm():
    """A bench stopped with SIGTERM (kill, pkill) exits through its
    context managers, which stop the servers it started, instead of
    leaving them running."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


# prctl(2)'s option: the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _dies_with_bench():
    """A server's preexec_fn: it gets SIGTERM when the bench dies, also
    by SIGKILL, which no handler of the bench's sees (Linux), and so
    stops instead of running on (its state directory stays in /tmp)."""
    bench = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                            signal.SIGTERM)
    if os.getppid() != bench:
        # The bench died before the prctl took: its signal never comes.
        os.kill(os.getpid(), signal.SIGTERM)


class NovaLite(object):
    name = 'nova_lite'

    def __enter__(self):
        _exit_on_sigterm()
        self.state = tempfile.mkdtemp(prefix='nl-bench-create-')
        self.port = _free_port()
        binary = os.path.join(os.path.dirname(sys.executable),
                              'nova-lite-all-in-one')
        self.log = open(os.path.join(self.state, 'all-in-one.log'), 'wb')
        self.proc = subprocess.Popen(
            [binary, '--state-dir', self.state, '--port', str(self.port)]
            + list(getattr(self, 'EXTRA_ARGS', [])),
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=_dies_with_bench)
        _started(self, self._all_up, 'nova-lite-all-in-one')
        return self

    def _all_up(self):
        try:
            status, body = _get(self.port, '/v2.1/os-services')
        except OSError:
            return False
        services = json.loads(body)['services'] if status == 200 else []
        # 2 cells x (conductor + 2 computes) + super conductor + scheduler
        return (len(services) >= 8
                and all(s['state'] == 'up' for s in services))

    def log_errors(self):
        """Log lines of the run that report locked databases or failed
        heartbeats."""
        self.log.flush()
        with open(self.log.name, errors='replace') as f:
            return [line.rstrip() for line in f
                    if 'database is locked' in line
                    or 'Heartbeat' in line and 'failed' in line]

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        _keep_log(self.log.name, self.name)
        shutil.rmtree(self.state, ignore_errors=True)


class RealNova(object):
    name = 'nova'
    script = ANCHOR     # the anchor, or a wrapper taking its arguments
    extra_args = ()     # more of the anchor's options

    def __init__(self, python):
        self.python = python

    def __enter__(self):
        _exit_on_sigterm()
        self.dir = tempfile.mkdtemp(prefix='nova-bench-create-')
        self.port = _free_port()
        self.ready = os.path.join(self.dir, 'ready')
        self.stop = os.path.join(self.dir, 'stop')
        self.log = open(os.path.join(self.dir, 'nova.log'), 'wb')
        self.proc = subprocess.Popen(
            [self.python, self.script, '--port', str(self.port),
             '--ready-file', self.ready, '--stop-file', self.stop,
             '--production-warnings']
            + (['--nova-log', os.path.join(self.dir, 'nova-info.log')]
               if KEEP_LOGS else [])
            + list(self.extra_args),
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=_dies_with_bench)
        _started(self, lambda: os.path.exists(self.ready), 'real Nova')
        return self

    def log_errors(self):
        return []

    def __exit__(self, *exc):
        open(self.stop, 'w').close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        _keep_log(self.log.name, self.name)
        _keep_log(os.path.join(self.dir, 'nova-info.log'), 'nova-info')
        shutil.rmtree(self.dir, ignore_errors=True)


def _cpu_seconds(pid):
    """User + system CPU seconds the process has used so far."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def _post(conn, i):
    body = json.dumps({'flavor': {
        'name': 'bench-%05d' % i, 'ram': 512, 'vcpus': 1, 'disk': 1}})
    t0 = time.perf_counter()
    conn.request('POST', '/v2.1/flavors', body=body, headers=HEADERS)
    resp = conn.getresponse()
    payload = resp.read()
    took = time.perf_counter() - t0
    if resp.status != 200:
        raise RuntimeError('POST /flavors #%d: %d %s' % (
            i, resp.status, payload[:300]))
    return took


def create_flavors(sides, count):
    """POST count flavors one after another to each side, interleaved (one
    request to each side in turn, the order alternating), so that both
    see the same load from the rest of the machine. Returns {name:
    (seconds per request, server CPU seconds)}."""
    conns = [http.client.HTTPConnection('127.0.0.1', side.port, timeout=60)
             for side in sides]
    times = [[] for _ in sides]
    cpu = [_cpu_seconds(side.proc.pid) for side in sides]
    try:
        for i in range(count):
            order = range(len(sides)) if i % 2 == 0 else \
                reversed(range(len(sides)))
            for n in order:
                times[n].append(_post(conns[n], i))
    finally:
        for conn in conns:
            conn.close()
    return {side.name: (times[n], _cpu_seconds(side.proc.pid) - cpu[n])
            for n, side in enumerate(sides)}


def _pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def summary(times, cpu):
    return {'total_s': sum(times),
            'p50_ms': _pct(times, 0.50) * 1000,
            'p95_ms': _pct(times, 0.95) * 1000,
            'max_ms': max(times) * 1000,
            'over_1s': sum(1 for t in times if t > 1.0),
            'cpu_s': cpu}


def _line(name, s):
    return ('%-9s total %6.2f s  p50 %6.1f ms  p95 %6.1f ms  max %7.1f ms'
            '  (>1 s: %d)  server CPU %5.2f s'
            % (name, s['total_s'], s['p50_ms'], s['p95_ms'], s['max_ms'],
               s['over_1s'], s['cpu_s']))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--count', type=int, default=1000)
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--nova-python', default='/tmp/nova-venv/bin/python')
    parser.add_argument('--no-nova', action='store_true')
    args = parser.parse_args()
    sides = [NovaLite()]
    if not args.no_nova:
        sides.append(RealNova(args.nova_python))
    results = {side.name: [] for side in sides}
    print('%d flavors, one sequential client, requests to the sides '
          'interleaved, %d run(s)' % (args.count, args.runs), flush=True)
    for run in range(args.runs):
        with contextlib.ExitStack() as stack:
            for side in sides:
                stack.enter_context(side)
            figures = create_flavors(sides, args.count)
            errors = sides[0].log_errors()
        for side in sides:
            s = summary(*figures[side.name])
            results[side.name].append(s)
            print('run %d  %s' % (run + 1, _line(side.name, s)), flush=True)
        for line in errors[:5]:
            print('    log: %s' % line[:200])
        if errors:
            print('    log: %d lines about locked databases or failed '
                  'heartbeats' % len(errors))
    print('medians over %d run(s):' % args.runs)
    medians = {}
    for name, runs in results.items():
        medians[name] = {k: statistics.median(r[k] for r in runs)
                         for k in runs[0]}
        print('  ' + _line(name, medians[name]))
    if 'nova' in medians:
        print('  nova_lite / nova: total %.2f (target <= 0.50), server CPU '
              '%.2f' % (medians['nova_lite']['total_s']
                        / medians['nova']['total_s'],
                        medians['nova_lite']['cpu_s']
                        / medians['nova']['cpu_s']))


if __name__ == '__main__':
    main()
