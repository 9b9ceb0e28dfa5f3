"""A pytest plugin: CPU seconds per test file.

    python -m pytest -p tests.cpu_table --cpu-table=FILE ...

At each test's end (setup, call and teardown, so module fixtures count
for the file that uses them) it adds the CPU this process and its
reaped children used (and the `openstack` commands of tests/clients.py's
fork server) since the previous test's end to the test's file,
and at the session's end merges the figures into FILE (one line per
file: CPU seconds, of which children's, wall seconds, tests; sorted by
CPU), keeping the other files' lines. The machine's load hardly moves
CPU time, so this is what tools/test-durations records and what
tools/run-tests balances its processes by. Session fixtures count for
the first test that uses them.
"""
import os
import resource
import sys
import time

_state = {}
COLUMNS = '# file  cpu_s  children_cpu_s  wall_s  tests\n'


def pytest_addoption(parser):
    parser.addoption('--cpu-table', default=None,
                     help='merge CPU seconds per test file into this file')


def _now():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    # `openstack` commands run by tests/clients.py's fork server
    clients = sys.modules.get('tests.clients')
    cli = clients.CLI_CPU[0] if clients is not None else 0.0
    return (me.ru_utime + me.ru_stime,
            kids.ru_utime + kids.ru_stime + cli, time.monotonic())


def pytest_configure(config):
    if config.getoption('cpu_table'):
        _state['path'] = config.getoption('cpu_table')
        _state['last'] = _now()
        _state['files'] = {}


def pytest_runtest_logfinish(nodeid, location):
    if 'path' not in _state:
        return
    now = _now()
    last = _state['last']
    _state['last'] = now
    path = nodeid.split('::')[0]
    row = _state['files'].setdefault(path, [0.0, 0.0, 0.0, 0])
    row[0] += (now[0] - last[0]) + (now[1] - last[1])
    row[1] += now[1] - last[1]
    row[2] += now[2] - last[2]
    row[3] += 1


def read_table(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            name, cpu, kids, wall, tests = line.split()
            rows[name] = [float(cpu), float(kids), float(wall), int(tests)]
    return rows


def _comments(path):
    """The comment lines at the top of an existing table (kept)."""
    if not os.path.exists(path):
        return []
    kept = []
    with open(path) as f:
        for line in f:
            if not line.startswith('#') or line == COLUMNS:
                break
            kept.append(line)
    return kept


def write_table(path, rows):
    comments = _comments(path)
    with open(path, 'w') as f:
        f.writelines(comments)
        f.write(COLUMNS)
        for name, (cpu, kids, wall, tests) in sorted(
                rows.items(), key=lambda kv: -kv[1][0]):
            f.write('%s %.1f %.1f %.1f %d\n' % (name, cpu, kids, wall, tests))


def pytest_sessionfinish(session):
    if 'path' not in _state:
        return
    rows = read_table(_state['path'])
    rows.update(_state['files'])
    write_table(_state['path'], rows)
