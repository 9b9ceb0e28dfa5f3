#!/usr/bin/env python3
"""Time from launching nova-lite-all-in-one to the API answering with every
service up, on a fresh state directory and on a restart.

    python tools/bench/startup.py [--runs 3] [--computes-per-cell 2]

Targets (issue 3): restart <= 5 s, first start <= 10 s.
"""
import argparse
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
import urllib.request


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _all_up(port, expected):
    req = urllib.request.Request(
        'http://127.0.0.1:%d/v2.1/os-services' % port,
        headers={'X-Auth-Token': 'admin:admin'})
    try:
        with urllib.request.urlopen(req, timeout=2) as resp:
            services = json.load(resp)['services']
    except OSError:
        return False
    return (len(services) >= expected
            and all(s['state'] == 'up' for s in services))


def run_once(state_dir, computes_per_cell, cells=2):
    port = _free_port()
    binary = os.path.join(os.path.dirname(sys.executable),
                          'nova-lite-all-in-one')
    started = time.monotonic()
    proc = subprocess.Popen([binary, '--state-dir', state_dir, '--port',
                             str(port), '--computes-per-cell',
                             str(computes_per_cell)],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # computes + one conductor per cell + super conductor + scheduler
    expected = cells * (computes_per_cell + 1) + 2
    try:
        while not _all_up(port, expected):
            if proc.poll() is not None:
                raise RuntimeError('all-in-one exited with %s'
                                   % proc.returncode)
            if time.monotonic() - started > 60:
                raise RuntimeError('not up after 60 s')
            time.sleep(0.05)
        return time.monotonic() - started
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    args = parser.parse_args()
    fresh, restart = [], []
    for _ in range(args.runs):
        state = tempfile.mkdtemp(prefix='nl-startup-')
        try:
            fresh.append(run_once(state, args.computes_per_cell))
            restart.append(run_once(state, args.computes_per_cell))
        finally:
            shutil.rmtree(state, ignore_errors=True)
    for name, values, target in (('first start', fresh, 10.0),
                                 ('restart', restart, 5.0)):
        print('%-12s min %.2fs  median %.2fs  max %.2fs  (target <= %.0fs, '
              '%d runs, 2 cells x %d computes)'
              % (name, min(values), statistics.median(values), max(values),
                 target, len(values), args.computes_per_cell))


if __name__ == '__main__':
    main()
