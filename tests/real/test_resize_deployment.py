"""A resize in a real deployment (the session's tools/deployment.py
deployment: every service its own process, MariaDB, RabbitMQ, two cells
of two computes) whose destination compute is killed with SIGKILL in the
middle of the move and started again.

The destination's simulated hypervisor is slowed at finish_migration
([fake_driver] delay_methods, the fake driver's config-driven hook), so
the kill lands while the server is in resize_finish on the destination
(resize_migrated at the latest). Afterwards the server must end ERROR
with its allocations accounted for, or ACTIVE back on the source with
its old flavor -- never stuck in a task state -- and `nova-lite-manage
placement check_allocations` must find no leaked, stale or orphaned
allocation; deleting the server then frees everything.
"""
import json
import os
import signal

import pytest

from tests.functional.conftest import wait_for
from tests.real import test_deployment as deployed

SLOW_FINISH = '[fake_driver]\ndelay_methods = finish_migration:60\n'


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    """The session's deployment (tests/real/conftest.py), shared with
    test_deployment.py: the test leaves it as it found it."""
    yield shared_deployment


def _server(dep, uuid):
    status, body = deployed.api(dep, 'GET', '/servers/%s' % uuid,
                                version='2.47')
    assert status == 200, body
    return body['server']


def _check_allocations(dep):
    result = deployed.manage(dep, 'placement', 'check_allocations',
                             '--json')
    return result.returncode, result.stdout + result.stderr[-2000:]


def _heartbeat(dep, host):
    status, body = deployed.api(dep, 'GET', '/os-services?host=%s' % host)
    assert status == 200, body
    return body['services'][0]['updated_at'] or ''


def _start_compute(dep, host, slow_finish=False):
    """Start host's compute (with finish_migration slowed or not); wait
    until it has sent a heartbeat of its own."""
    conf = os.path.join(dep.workdir, '%s.conf' % host)
    with open(conf) as f:
        text = f.read().replace(SLOW_FINISH, '')
    with open(conf, 'w') as f:
        f.write(text + (SLOW_FINISH if slow_finish else ''))
    before = _heartbeat(dep, host)
    dep._spawn(host, 'nova-lite-compute', conf)
    dep.save()
    wait_for(lambda: _heartbeat(dep, host) > before, 60,
             message='%s heartbeat' % host)


def _running(dep, host):
    pid = dep.procs[host]
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != pid
    except ChildProcessError:
        return False


def _stop_compute(dep, host, sig=signal.SIGTERM):
    pid = dep.procs[host]
    os.killpg(pid, sig)
    wait_for(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 30,
             message='%s stopped' % host)


def _log_tail(dep, host):
    with open(os.path.join(dep.workdir, '%s.log' % host)) as f:
        return f.read()[-3000:]


def test_destination_killed_mid_resize_leaves_no_stuck_state_or_leak(
        deployment):
    dep = deployment
    for flavor in ({'name': 'rz.small', 'id': 'rz.small', 'ram': 256,
                    'vcpus': 1, 'disk': 1},
                   {'name': 'rz.big', 'id': 'rz.big', 'ram': 512,
                    'vcpus': 2, 'disk': 1}):
        status, body = deployed.api(dep, 'POST', '/flavors',
                                    {'flavor': flavor})
        assert status == 200, body
    status, body = deployed.api(dep, 'POST', '/servers', {'server': {
        'name': 'rz', 'flavorRef': 'rz.small', 'imageRef': deployed.IMAGE,
        'networks': 'none'}}, version='2.47')
    assert status == 202, body
    uuid = body['server']['id']
    wait_for(lambda: _server(dep, uuid)['status'] == 'ACTIVE', 60,
             message='ACTIVE')
    source = _server(dep, uuid)['OS-EXT-SRV-ATTR:host']
    # The other compute of the source's cell (no same-host resize).
    dest = source[:-1] + ('2' if source.endswith('1') else '1')
    _stop_compute(dep, dest)
    _start_compute(dep, dest, slow_finish=True)
    try:
        status, body = deployed.api(dep, 'POST',
                                    '/servers/%s/action' % uuid,
                                    {'resize': {'flavorRef': 'rz.big'}})
        assert status == 202, body
        try:
            wait_for(lambda: _server(dep, uuid)['OS-EXT-STS:task_state']
                     == 'resize_finish', 60, message='resize_finish')
        except AssertionError:
            raise AssertionError('%s\n%s' % (_server(dep, uuid),
                                             _log_tail(dep, dest)))
        _stop_compute(dep, dest, signal.SIGKILL)
    finally:
        if _running(dep, dest):
            _stop_compute(dep, dest)
        _start_compute(dep, dest)

    def settled():
        server = _server(dep, uuid)
        if server['OS-EXT-STS:task_state'] is None and \
                server['status'] in ('ERROR', 'ACTIVE'):
            return server
        return None
    try:
        server = wait_for(settled, 60, message='no task state')
    except AssertionError:
        raise AssertionError('stuck: %s\n%s' % (_server(dep, uuid),
                                                _log_tail(dep, dest)))
    print('after the kill: %s on %s, flavor %s' % (
        server['status'], server['OS-EXT-SRV-ATTR:host'],
        server['flavor']['original_name']))
    if server['status'] == 'ACTIVE':
        assert server['OS-EXT-SRV-ATTR:host'] == source
        assert server['flavor']['original_name'] == 'rz.small'
    else:
        assert server.get('fault'), server
    code, out = _check_allocations(dep)
    assert code == 0, (server['status'], out)
    report = json.loads(out)
    assert report['checked']['busy'] == 0

    status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
    assert status == 204
    wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
             == 404, 60, message='deleted')
    status, body = deployed.api(dep, 'GET', '/os-migrations',
                                version='2.59')
    migrations = [m['uuid'] for m in (body or {}).get('migrations', [])
                  if m.get('instance_uuid') == uuid and 'uuid' in m]
    wait_for(lambda: deployed._allocations(dep, [uuid] + migrations) == 0,
             30, message='every allocation freed')
    code, out = _check_allocations(dep)
    assert code == 0, out
