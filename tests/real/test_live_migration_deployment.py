"""A live migration in a real deployment (the session's
tools/deployment.py deployment: every service its own process, MariaDB,
RabbitMQ, two cells of two computes) between the two compute processes
of a cell, while a client polls the server every 50 ms: the server
never leaves ACTIVE (vm_state active, status ACTIVE or MIGRATING) and
never shows a host other than the source or the destination; at the
end it runs on the destination with its allocation there alone, and
`nova-lite-manage placement check_allocations` finds nothing amiss.

Then the server live-migrates back and its source compute (the
process copying it) is killed with SIGKILL while it copies, and started
again: the migration is rolled back -- the server ACTIVE where it was,
its allocation there alone, the migration error -- and
check_allocations finds nothing amiss.

The cell's computes are restarted with [fake_driver]
live_migration_seconds = 4 (and again without it afterwards), so the
copy lasts long enough for the poller to see the move in progress and
for the kill to land during it.
"""
import json
import os
import signal
import threading
import time

import pytest

from tests.functional.conftest import wait_for
from tests.real import test_deployment as deployed
from tests.real import test_resize_deployment as resize

SLOW_COPY = '[fake_driver]\nlive_migration_seconds = 4\n'
POLL_SECONDS = 0.05


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    """The session's deployment, left as it was found (its computes
    restarted with their own configs)."""
    yield shared_deployment


def _restart(dep, host, extra=''):
    """Restart host's compute with extra appended to its config (none:
    its own config); wait for a heartbeat of the new process."""
    resize._stop_compute(dep, host)
    conf = os.path.join(dep.workdir, '%s.conf' % host)
    with open(conf) as f:
        text = f.read().replace(SLOW_COPY, '')
    with open(conf, 'w') as f:
        f.write(text + extra)
    before = resize._heartbeat(dep, host)
    dep._spawn(host, 'nova-lite-compute', conf)
    dep.save()
    wait_for(lambda: resize._heartbeat(dep, host) > before, 60,
             message='%s heartbeat' % host)


class Poller(threading.Thread):
    """GET /servers/{uuid} every 50 ms until stopped: (HTTP status,
    status, vm_state, task_state, host) of each answer."""

    def __init__(self, dep, uuid):
        super().__init__(daemon=True)
        self.dep = dep
        self.uuid = uuid
        self.seen = []
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            status, body = deployed.api(self.dep, 'GET',
                                        '/servers/%s' % self.uuid,
                                        version='2.47')
            server = (body or {}).get('server', {})
            self.seen.append((status, server.get('status'),
                              server.get('OS-EXT-STS:vm_state'),
                              server.get('OS-EXT-STS:task_state'),
                              server.get('OS-EXT-SRV-ATTR:host')))
            time.sleep(POLL_SECONDS)


def test_live_migration_while_a_client_polls(deployment):
    dep = deployment
    status, body = deployed.api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'lm.tiny', 'id': 'lm.tiny', 'ram': 256, 'vcpus': 1,
        'disk': 1}})
    assert status in (200, 409), body
    source, dest = 'cell1-compute1', 'cell1-compute2'
    for host in (source, dest):
        _restart(dep, host, SLOW_COPY)
    try:
        status, body = deployed.api(dep, 'POST', '/servers', {'server': {
            'name': 'lm', 'flavorRef': 'lm.tiny',
            'imageRef': deployed.IMAGE, 'networks': 'auto',
            'availability_zone': 'nova:' + source}}, version='2.47')
        assert status == 202, body
        uuid = body['server']['id']
        wait_for(lambda: resize._server(dep, uuid)['status'] == 'ACTIVE',
                 60, message='ACTIVE')
        poller = Poller(dep, uuid)
        poller.start()
        try:
            status, body = deployed.api(
                dep, 'POST', '/servers/%s/action' % uuid,
                {'os-migrateLive': {'host': None,
                                    'block_migration': 'auto'}},
                version='2.25')
            assert status == 202, body

            def moved():
                server = resize._server(dep, uuid)
                return (server['OS-EXT-STS:task_state'] is None
                        and server['OS-EXT-SRV-ATTR:host'] == dest
                        and server)
            wait_for(moved, 60, message='on %s' % dest)
            time.sleep(0.5)
        finally:
            poller.done.set()
            poller.join(10)
        seen = poller.seen
        print('%d polls; states seen: %s' % (
            len(seen), sorted({s[1:4] for s in seen}, key=str)))
        assert len(seen) > 20
        assert all(s[0] == 200 for s in seen), seen
        assert {s[2] for s in seen} == {'active'}, seen
        assert {s[1] for s in seen} <= {'ACTIVE', 'MIGRATING'}, seen
        assert {s[4] for s in seen} == {source, dest}, seen
        assert 'migrating' in {s[3] for s in seen}
        # The host never goes back once the destination is shown.
        hosts = [s[4] for s in seen]
        assert hosts == sorted(hosts, key=lambda h: h == dest)
        status, body = deployed.api(
            dep, 'GET', '/os-migrations?instance_uuid=%s' % uuid,
            version='2.59')
        assert [(m['migration_type'], m['status'])
                for m in body['migrations']] == [
                    ('live-migration', 'completed')]
        migration = body['migrations'][0]['uuid']
        assert deployed._allocations(dep, [migration]) == 0
        code, out = resize._check_allocations(dep)
        assert code == 0, out
        assert json.loads(out)['checked']['busy'] == 0
        _kill_mid_copy(dep, uuid, dest)
        status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
        assert status == 204
        wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
                 == 404, 60, message='deleted')
    finally:
        for host in (source, dest):
            _restart(dep, host)


def _kill_mid_copy(dep, uuid, host):
    """Live-migrate uuid away from host, SIGKILL host's compute while it
    copies, start it again: the move rolled back onto host."""
    status, body = deployed.api(
        dep, 'POST', '/servers/%s/action' % uuid,
        {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
        version='2.25')
    assert status == 202, body

    def running():
        status, body = deployed.api(dep, 'GET',
                                    '/servers/%s/migrations' % uuid,
                                    version='2.59')
        found = (body or {}).get('migrations') or []
        return found and found[0]['status'] == 'running' and found[0]
    migration = wait_for(running, 30, message='running')
    resize._stop_compute(dep, host, signal.SIGKILL)
    before = resize._heartbeat(dep, host)
    dep._spawn(host, 'nova-lite-compute',
               os.path.join(dep.workdir, '%s.conf' % host))
    dep.save()
    wait_for(lambda: resize._heartbeat(dep, host) > before, 60,
             message='%s heartbeat' % host)

    def settled():
        server = resize._server(dep, uuid)
        return server['OS-EXT-STS:task_state'] is None and server
    server = wait_for(settled, 60, message='no task')
    assert server['status'] == 'ACTIVE', server
    assert server['OS-EXT-SRV-ATTR:host'] == host
    status, body = deployed.api(
        dep, 'GET', '/os-migrations?instance_uuid=%s' % uuid,
        version='2.59')
    assert body['migrations'][0]['status'] == 'error'
    assert deployed._allocations(dep, [migration['uuid']]) == 0
    assert deployed._allocations(dep, [uuid]) > 0
    code, out = resize._check_allocations(dep)
    assert code == 0, out
