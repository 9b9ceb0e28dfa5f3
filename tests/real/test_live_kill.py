"""Issue 37 item 4: a live migration and an evacuation killed at every
step, on MariaDB + RabbitMQ (the session's tools/deployment.py
deployment, 2 cells x 2 computes).

The process that runs the step -- the super conductor for its steps
(conductor.tasks.live_migrate, .evacuate), the source or destination
compute for theirs (compute.service.live_migration_tasks,
.evacuate_tasks) -- is restarted with NOVA_LITE_TEST_KILL_AT_STEP=<step>
(the tests' plugin, tests/plugin, SIGKILLs it before that step), the
move is started through the REST API, the process must die by SIGKILL
(its log naming the step) and is started again (the super conductor
with the hook of its next step, until the last). Its start-up recovery
must then settle the server: ACTIVE (or, an
interrupted evacuation rebuild, ERROR) on exactly one host, with no
task; one guest, on that host; its allocation there alone (an
evacuation's migration holding its down source until that compute
returns); every port of the server with one binding, ACTIVE, to that
host; `nova-lite-manage placement check_allocations` clean after the
super conductor's steps and at the end, with `placement audit`.

The super conductor's steps run one after the other (they stop the
process every move needs); then the live migration steps (cell1:
cell1-compute1 to cell1-compute2) and the evacuation steps (cell2:
cell2-compute1 killed and forced down, its servers evacuated to
cell2-compute2, and the source's clean-up when it returns) run side by
side. Before its switch a live migration killed anywhere is rolled
back (ACTIVE on the source); from its switch on it is finished (ACTIVE
on the destination); the destination killed in pre_live_migration
puts the migration in error as it starts again, for the source that
waits for its answer to roll it back.
"""
import functools
import os
import re
import signal
import threading
import time

import nova_lite_test_hooks as step_hooks
import pytest

from nova_lite.virt import fake
from tests.functional.conftest import wait_for
from tests.real import test_cross_cell_kill as killing
from tests.real import test_deployment as deployed
from tests.real import test_evacuate_deployment as evacuated
from tests.real import test_resize_deployment as resized

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FLAVOR = {'name': 'lk.1', 'id': 'lk.1', 'ram': 64, 'vcpus': 1, 'disk': 1}
HELD = {'VCPU': 1, 'MEMORY_MB': 64, 'DISK_GB': 1}
LM_SOURCE, LM_DEST = 'cell1-compute1', 'cell1-compute2'
EV_SOURCE, EV_DEST = 'cell2-compute1', 'cell2-compute2'
FAIL_COPY = '[fake_driver]\nfail_methods = live_migration\n'
FAIL_PRE = '[fake_driver]\nfail_methods = pre_live_migration\n'

# Live migration: step -> (the process killed, its extra config, where
# the server ends: 'source' rolled back, 'dest' finished).
LIVE_STEPS = {
    'live_schedule': ('conductor', None, 'source'),
    'live_dispatch': ('conductor', None, 'source'),
    'live_pre_at_dest': (LM_DEST, None, 'source'),
    'live_copy': (LM_SOURCE, None, 'source'),
    'live_switch': (LM_SOURCE, None, 'dest'),
    'live_post_at_source': (LM_SOURCE, None, 'dest'),
    'live_post_at_dest': (LM_DEST, None, 'dest'),
    # The copy fails on the source; killed as it rolls back.
    'live_rollback': (LM_SOURCE, FAIL_COPY, 'source'),
    # pre_live_migration fails on the destination: the source rolls
    # back and casts the destination's rollback, killed there.
    'live_rollback_at_dest': (LM_DEST, FAIL_PRE, 'source'),
}
# Evacuation: step -> (the process killed, how the server ends: its
# status and host).
EVACUATE_STEPS = {
    'schedule': ('conductor', ('ACTIVE', 'source')),
    'dispatch': ('conductor', ('ACTIVE', 'source')),
    'evacuate_take': (EV_DEST, ('ERROR', 'source')),
    'evacuate_spawn': (EV_DEST, ('ERROR', 'source')),
    'evacuate_done': (EV_DEST, ('ACTIVE', 'dest')),
    # The source, back, killed as it destroys its stale guests.
    'evacuate_clean_source': (EV_SOURCE, ('ACTIVE', 'dest')),
}
TIMES = {}


def _boundaries(*paths):
    found = set()
    for path in paths:
        with open(os.path.join(ROOT, 'nova_lite', *path)) as f:
            found.update(re.findall(r"step_boundary\('(\w+)'\)", f.read()))
    return found


def test_every_step_is_killed():
    """The steps above are every step_boundary() of the live migration
    and evacuation code."""
    assert _boundaries(
        ('conductor', 'tasks', 'live_migrate.py'),
        ('compute', 'service', 'live_migration_tasks.py')) == set(
            LIVE_STEPS)
    assert _boundaries(
        ('conductor', 'tasks', 'evacuate.py'),
        ('compute', 'service', 'evacuate_tasks.py')) == set(
            EVACUATE_STEPS)


# --- processes ----------------------------------------------------------

def _extra_conf(dep, name, text):
    path = os.path.join(dep.workdir, 'live-kill-%s.conf' % name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def _start_compute(dep, host, extra=(), env=None):
    """Start host's compute with its config and the extra texts; wait
    for a heartbeat of the new process (or, with a kill hook, its death:
    its start-up may reach the step)."""
    confs = [os.path.join(dep.workdir, '%s.conf' % host)] + [
        _extra_conf(dep, '%s-%d' % (host, i), text)
        for i, text in enumerate(extra) if text]
    before = resized._heartbeat(dep, host)
    dep._spawn(host, 'nova-lite-compute', *confs, env=env)
    dep.save()
    pid = dep.procs[host]
    wait_for(lambda: resized._heartbeat(dep, host) > before or (
        env and not os.path.exists('/proc/%d/cmdline' % pid)
        or open('/proc/%d/stat' % pid).read().split()[2] == 'Z'), 60,
        interval=0.2, message='%s heartbeat' % host)


def _kill(dep, host):
    if dep.exit_status(host) is None:
        os.killpg(dep.procs[host], signal.SIGKILL)
        wait_for(lambda: dep.exit_status(host) is not None, 30,
                 interval=0.05, message='%s dead' % host)


def _wait_dead(dep, host, step):
    """host's exit status once it exited (read once: it is reaped)."""
    died = []

    def dead():
        status = dep.exit_status(host)
        if status is not None:
            died.append(status)
        return died
    return wait_for(dead, 90, interval=0.05,
                    message='%s killed at %s' % (host, step))[0]


def _marks(dep, name, step):
    with open(os.path.join(dep.workdir, '%s.log' % name)) as f:
        return f.read().count('Killing myself at step %s ' % step)


def _compute_killed_at(dep, host, step, act, extra=(), settle=()):
    """host's compute restarted with the kill hook at step (and the
    extra configs), act(), the process dead by SIGKILL there; started
    again with settle's configs."""
    _kill(dep, host)
    before = _marks(dep, host, step)
    _start_compute(dep, host, extra, env={step_hooks.KILL_ENV: step})
    act()
    assert _wait_dead(dep, host, step) == -signal.SIGKILL
    assert _marks(dep, host, step) == before + 1
    _start_compute(dep, host, settle)


# --- what is checked ----------------------------------------------------

def _rows(dep, db, sql, **params):
    return killing._rows(dep, db, sql, **params)


def _bindings(dep, uuid):
    """[(host, status)] of the bindings of uuid's ports, and the ports'
    binding hosts."""
    rows = _rows(dep, 'local_services', 'SELECT b.host, b.status FROM '
                 'port_bindings b JOIN ports p ON p.id = b.port_id '
                 'WHERE p.device_id = :u', u=uuid)
    hosts = _rows(dep, 'local_services', 'SELECT binding_host FROM ports '
                  'WHERE device_id = :u', u=uuid)
    return sorted(tuple(r) for r in rows), [h for h, in hosts]


def _guests(dep, cell, uuid):
    found = {}
    for i in (1, 2):
        host = '%s-compute%d' % (cell, i)
        names = [g for g in fake.load_guests(os.path.join(
            dep.workdir, 'state', 'fake-hypervisor'), host)
            if g.startswith(uuid)]
        if names:
            found[host] = sorted(names)
    return found


def _settled(dep, uuid, status, host, timeout=90):
    def reached():
        server = resized._server(dep, uuid)
        if (server['status'] == status and
                server['OS-EXT-STS:task_state'] is None):
            return server
        return None
    server = wait_for(reached, timeout, interval=0.2,
                      message='%s %s on %s' % (uuid, status, host))
    assert server['OS-EXT-SRV-ATTR:host'] == host, server
    return server


def _check(dep, uuid, cell, host, migration, migration_holds=None,
           skip_guests_on=None):
    """uuid on host alone: one visible copy there, one guest (a down
    host's guests aside), its allocation there alone, the migration's
    as said, its ports bound there alone."""
    rows = _rows(dep, cell, 'SELECT host FROM instances WHERE uuid = :u '
                 'AND deleted = 0', u=uuid)
    assert [h for h, in rows] == [host]
    guests = _guests(dep, cell, uuid)
    guests.pop(skip_guests_on, None)
    assert guests == {host: [uuid]}
    assert killing._held(dep, uuid) == {host: HELD}
    assert killing._held(dep, migration) == (
        {migration_holds: HELD} if migration_holds else {})
    bindings, ports = _bindings(dep, uuid)
    assert ports and bindings == [(host, 'ACTIVE')] * len(ports), bindings
    assert ports == [host] * len(ports)


def _consistent(dep, audit=False):
    """check_allocations (and audit) find nothing amiss."""
    code, out = resized._check_allocations(dep)
    assert code == 0, out
    if audit:
        result = deployed.manage(dep, 'placement', 'audit', '--verbose')
        assert result.returncode == 0, (result.stdout +
                                        result.stderr[-2000:])


def _migration(dep, uuid, kind):
    status, body = deployed.api(
        dep, 'GET', '/os-migrations?instance_uuid=%s&migration_type=%s'
        % (uuid, kind), version='2.59')
    assert status == 200, body
    return max(body['migrations'], key=lambda m: m['id'])


# --- the fleet ----------------------------------------------------------

def _boot(dep, name, host):
    status, body = deployed.api(dep, 'POST', '/servers', {'server': {
        'name': name, 'flavorRef': FLAVOR['id'], 'imageRef': deployed.IMAGE,
        'networks': 'auto', 'availability_zone': 'nova:' + host}},
        version='2.47')
    assert status == 202, body
    return body['server']['id']


@pytest.fixture(scope='module')
def fleet(shared_deployment):
    """A server per step (live migration: on LM_SOURCE; evacuation: on
    EV_SOURCE), EV_SOURCE killed and forced down. Put back
    afterwards."""
    dep = shared_deployment
    start = time.monotonic()
    status, body = deployed.api(dep, 'POST', '/flavors', {'flavor': FLAVOR})
    assert status in (200, 409), body
    servers = {}
    try:
        for step in LIVE_STEPS:
            servers[step] = _boot(dep, 'lk-' + step, LM_SOURCE)
        for step in EVACUATE_STEPS:
            servers['ev:' + step] = _boot(dep, 'ek-' + step, EV_SOURCE)
        deployed._wait_status(dep, list(servers.values()), ('ACTIVE',),
                              timeout=120)
        _kill(dep, EV_SOURCE)
        evacuated._forced_down(dep, EV_SOURCE, True)
        TIMES['fleet'] = time.monotonic() - start
        yield dep, servers
    finally:
        if dep.exit_status('conductor') is not None:
            dep.respawn('conductor')
        for host in (LM_SOURCE, LM_DEST, EV_SOURCE, EV_DEST):
            if dep.exit_status(host) is not None or dep.commands[host][
                    1] != [os.path.join(dep.workdir, '%s.conf' % host)]:
                _kill(dep, host)
                _start_compute(dep, host)
        evacuated._forced_down(dep, EV_SOURCE, False)
        for uuid in servers.values():
            deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
        for uuid in servers.values():
            wait_for(lambda: deployed.api(
                dep, 'GET', '/servers/%s' % uuid)[0] == 404, 60,
                interval=0.2, message='%s deleted' % uuid)
        deployed.api(dep, 'DELETE', '/flavors/%s' % FLAVOR['id'])
        print('live kill timings: %s' % ', '.join(
            '%s %.1fs' % kv for kv in TIMES.items()))


def _live(dep, uuid):
    def act():
        status, body = deployed.api(
            dep, 'POST', '/servers/%s/action' % uuid,
            {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
            version='2.34')     # a cast: answered with the conductor dead
        assert status == 202, body
    return act


def _evacuate(dep, uuid):
    def act():
        status, body = deployed.api(dep, 'POST', '/servers/%s/action'
                                    % uuid, {'evacuate': {}},
                                    version='2.14')
        assert status == 200, body
    return act


def _conductor_killed_at(dep, chain):
    """For each (step, act, settled) of chain: the super conductor
    started with the kill hook at step (its start-up recovering the
    previous step's move: settled() then), act(), the process dead by
    SIGKILL there; at the end started without the hook."""
    killing._wait_killed(dep, dep.procs['conductor'])
    previous = None
    for step, act, settled in chain:
        before = _marks(dep, 'conductor', step)
        dep.respawn('conductor', env={step_hooks.KILL_ENV: step})
        if previous:
            previous()
        act()
        assert killing._wait_killed(dep) == -signal.SIGKILL
        assert _marks(dep, 'conductor', step) == before + 1
        previous = settled
    dep.respawn('conductor')
    previous()


def _live_step(dep, servers, step):
    killed, extra, ends = LIVE_STEPS[step]
    uuid = servers[step]
    # The killed one comes back without the failure.
    _compute_killed_at(dep, killed, step, _live(dep, uuid), extra=[extra])
    _live_settled(dep, servers, step)


def _live_settled(dep, servers, step):
    killed, extra, ends = LIVE_STEPS[step]
    uuid = servers[step]
    host = LM_SOURCE if ends == 'source' else LM_DEST
    _settled(dep, uuid, 'ACTIVE', host)
    migration = wait_for(lambda: (lambda m: m if m['status'] in (
        'error', 'completed', 'cancelled') else None)(
            _migration(dep, uuid, 'live-migration')), 60, interval=0.2,
        message='live migration of %s ended' % uuid)
    assert migration['status'] == (
        'completed' if ends == 'dest' else 'error'), migration
    wait_for(lambda: _guests(dep, 'cell1', uuid) == {host: [uuid]}, 30,
             interval=0.2, message='one guest of %s' % uuid)
    _check(dep, uuid, 'cell1', host, migration['uuid'])


def _evacuate_step(dep, servers, step):
    killed, (status, ends) = EVACUATE_STEPS[step]
    uuid = servers['ev:' + step]
    if killed != EV_DEST:
        return      # the source's clean-up: _evacuate_source_returns
    _compute_killed_at(dep, killed, step, _evacuate(dep, uuid))
    _evacuate_settled(dep, servers, step)


def _evacuate_settled(dep, servers, step):
    killed, (status, ends) = EVACUATE_STEPS[step]
    uuid = servers['ev:' + step]
    host = EV_SOURCE if ends == 'source' else EV_DEST
    _settled(dep, uuid, status, host)
    migration = wait_for(lambda: (lambda m: m if m['status'] in (
        'error', 'done') else None)(_migration(dep, uuid, 'evacuation')),
        60, interval=0.2, message='evacuation of %s ended' % uuid)
    assert migration['status'] == (
        'done' if ends == 'dest' else 'error'), migration
    # The down source keeps its guest (and, once evacuated, its
    # allocation held by the migration) until it returns.
    _check(dep, uuid, 'cell2', host, migration['uuid'],
           migration_holds=EV_SOURCE if ends == 'dest' else None,
           skip_guests_on=EV_SOURCE if ends == 'dest' else None)


def _evacuate_source_returns(dep, servers):
    """The last server evacuated normally; the source started with the
    kill hook in its clean-up, killed there, started again: every
    evacuation done is completed, the stale guests gone."""
    step = 'evacuate_clean_source'
    uuid = servers['ev:' + step]
    _evacuate(dep, uuid)()
    _settled(dep, uuid, 'ACTIVE', EV_DEST)
    before = _marks(dep, EV_SOURCE, step)
    _start_compute(dep, EV_SOURCE, env={step_hooks.KILL_ENV: step})
    assert _wait_dead(dep, EV_SOURCE, step) == -signal.SIGKILL
    assert _marks(dep, EV_SOURCE, step) == before + 1
    _start_compute(dep, EV_SOURCE)
    evacuated._forced_down(dep, EV_SOURCE, False)
    for name, (killed, (status, ends)) in EVACUATE_STEPS.items():
        uuid = servers['ev:' + name]
        host = EV_SOURCE if ends == 'source' else EV_DEST
        migration = _migration(dep, uuid, 'evacuation')
        if ends == 'dest':
            wait_for(lambda: _migration(dep, uuid, 'evacuation')[
                'status'] == 'completed', 60, interval=0.2,
                message='evacuation of %s completed' % uuid)
        wait_for(lambda: _guests(dep, 'cell2', uuid) == {host: [uuid]}, 30,
                 interval=0.2, message='one guest of %s' % uuid)
        server = resized._server(dep, uuid)
        assert (server['status'], server['OS-EXT-SRV-ATTR:host']) == (
            status, host), server
        _check(dep, uuid, 'cell2', host, migration['uuid'])


def test_killed_at_every_step(fleet):
    dep, servers = fleet
    start = time.monotonic()
    # The super conductor's steps, one after the other.
    chain = [(step, _live(dep, servers[step]),
              functools.partial(_live_settled, dep, servers, step))
             for step, (killed, _, _) in LIVE_STEPS.items()
             if killed == 'conductor']
    chain += [(step, _evacuate(dep, servers['ev:' + step]),
               functools.partial(_evacuate_settled, dep, servers, step))
              for step, (killed, _) in EVACUATE_STEPS.items()
              if killed == 'conductor']
    _conductor_killed_at(dep, chain)
    _consistent(dep)
    TIMES['conductor steps'] = time.monotonic() - start
    # The computes' steps: cell1's live migrations beside cell2's
    # evacuations.
    failures = []

    def live_steps():
        try:
            for step, (killed, _, _) in LIVE_STEPS.items():
                if killed != 'conductor':
                    _live_step(dep, servers, step)
        except BaseException as exc:
            failures.append(exc)
        TIMES['live steps'] = time.monotonic() - started

    started = time.monotonic()
    thread = threading.Thread(target=live_steps, daemon=True)
    thread.start()
    try:
        for step, (killed, _) in EVACUATE_STEPS.items():
            if killed != 'conductor':
                _evacuate_step(dep, servers, step)
        _evacuate_source_returns(dep, servers)
        TIMES['evacuate steps'] = time.monotonic() - started
    finally:
        thread.join(300)
    if failures:
        raise failures[0]
    _consistent(dep, audit=True)
    TIMES['all steps'] = time.monotonic() - start
