"""Evacuate in a real deployment (the session's tools/deployment.py
deployment: every service its own process, MariaDB, RabbitMQ, two cells
of two computes): a compute process killed with SIGKILL, forced down
through the API, its servers evacuated to the other compute of its
cell (each keeping its address), then the killed compute started
again: it destroys its stale guests and frees the source allocations
(the evacuation migrations completed), and `nova-lite-manage placement
check_allocations` finds nothing wrong. And a destination compute
killed with SIGKILL while it spawns an evacuated server: started again,
it ends the server in ERROR on its source with the destination's claim
freed (check_allocations clean). And the super conductor killed with
SIGKILL before it handed an evacuation off: started again, it rolls the
evacuation back (the server ACTIVE on its source, the migration in
error, check_allocations clean) and the next one succeeds."""
import json
import os
import signal

import pytest

from tests.functional.conftest import wait_for
from tests.real import test_cross_cell_kill as killing
from tests.real import test_deployment as deployed
from tests.real import test_resize_deployment as resized

SOURCE, DEST = 'cell1-compute1', 'cell1-compute2'
SLOW_SPAWN = '[fake_driver]\ndelay_methods = spawn:60\n'


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    """The session's deployment: the test leaves it as it found it."""
    yield shared_deployment


def _forced_down(dep, host, value):
    status, body = deployed.api(
        dep, 'GET', '/os-services?binary=nova-compute&host=%s' % host,
        version='2.53')
    assert status == 200, body
    status, body = deployed.api(
        dep, 'PUT', '/os-services/%s' % body['services'][0]['id'],
        {'forced_down': value}, version='2.53')
    assert status == 200, body


def _evacuations(dep, uuids):
    status, body = deployed.api(
        dep, 'GET', '/os-migrations?migration_type=evacuation',
        version='2.59')
    assert status == 200, body
    return {m['instance_uuid']: m for m in body['migrations']
            if m['instance_uuid'] in uuids}


def _statuses(dep, uuid):
    status, body = deployed.api(
        dep, 'GET', '/os-migrations?migration_type=evacuation&'
        'instance_uuid=%s' % uuid, version='2.59')
    assert status == 200, body
    return [m['status'] for m in body['migrations']]


def test_killed_compute_is_evacuated_and_cleans_up_on_return(deployment):
    dep = deployment
    status, body = deployed.api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'ev.tiny', 'id': 'ev.tiny', 'ram': 128, 'vcpus': 1,
        'disk': 1}})
    assert status == 200, body
    uuids = []
    for name in ('ev1', 'ev2'):
        status, body = deployed.api(dep, 'POST', '/servers', {'server': {
            'name': name, 'flavorRef': 'ev.tiny', 'imageRef': deployed.IMAGE,
            'networks': 'auto', 'availability_zone': 'nova:' + SOURCE}},
            version='2.47')
        assert status == 202, body
        uuids.append(body['server']['id'])
    deployed._wait_status(dep, uuids, ('ACTIVE',))
    before = {u: resized._server(dep, u)['addresses'] for u in uuids}

    resized._stop_compute(dep, SOURCE, signal.SIGKILL)
    try:
        _forced_down(dep, SOURCE, True)
        for uuid in uuids:
            status, body = deployed.api(
                dep, 'POST', '/servers/%s/action' % uuid,
                {'evacuate': {}}, version='2.14')
            assert status == 200, body

        def evacuated():
            servers = [resized._server(dep, u) for u in uuids]
            return all(s['status'] == 'ACTIVE'
                       and s['OS-EXT-STS:task_state'] is None
                       and s['OS-EXT-SRV-ATTR:host'] == DEST
                       for s in servers)
        wait_for(evacuated, 60, message='evacuated to %s' % DEST)
        for uuid in uuids:
            assert resized._server(dep, uuid)['addresses'] == before[uuid]
        found = _evacuations(dep, uuids)
        assert {m['status'] for m in found.values()} == {'done'}
        # Both hosts held until the source comes back, as placement's
        # check expects.
        assert deployed._allocations(
            dep, [m['uuid'] for m in found.values()]) > 0
        code, out = resized._check_allocations(dep)
        assert code == 0, out
    finally:
        resized._start_compute(dep, SOURCE)
        _forced_down(dep, SOURCE, False)

    wait_for(lambda: {m['status'] for m in _evacuations(
        dep, uuids).values()} == {'completed'}, 60,
        message='evacuations completed')
    assert deployed._allocations(
        dep, [m['uuid'] for m in _evacuations(dep, uuids).values()]) == 0
    code, out = resized._check_allocations(dep)
    assert code == 0, out
    assert json.loads(out)['checked']['busy'] == 0

    for uuid in uuids:
        status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
        assert status == 204
    for uuid in uuids:
        wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
                 == 404, 60, message='deleted')
    status, _ = deployed.api(dep, 'DELETE', '/flavors/ev.tiny')
    assert status == 202


def _start_compute(dep, host, slow_spawn=False):
    """Start host's compute (its spawns slowed or not) and wait for a
    heartbeat of its own."""
    conf = os.path.join(dep.workdir, '%s.conf' % host)
    with open(conf) as f:
        text = f.read().replace(SLOW_SPAWN, '')
    with open(conf, 'w') as f:
        f.write(text + (SLOW_SPAWN if slow_spawn else ''))
    before = resized._heartbeat(dep, host)
    dep._spawn(host, 'nova-lite-compute', conf)
    dep.save()
    wait_for(lambda: resized._heartbeat(dep, host) > before, 60,
             message='%s heartbeat' % host)


def test_destination_killed_mid_evacuation_ends_in_error_on_source(
        deployment):
    dep = deployment
    status, body = deployed.api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'ev.kill', 'id': 'ev.kill', 'ram': 128, 'vcpus': 1,
        'disk': 1}})
    assert status == 200, body
    status, body = deployed.api(dep, 'POST', '/servers', {'server': {
        'name': 'ev-kill', 'flavorRef': 'ev.kill',
        'imageRef': deployed.IMAGE, 'networks': 'none',
        'availability_zone': 'nova:' + SOURCE}}, version='2.47')
    assert status == 202, body
    uuid = body['server']['id']
    deployed._wait_status(dep, [uuid], ('ACTIVE',))
    resized._stop_compute(dep, SOURCE, signal.SIGKILL)
    try:
        _forced_down(dep, SOURCE, True)
        resized._stop_compute(dep, DEST)
        _start_compute(dep, DEST, slow_spawn=True)
        try:
            status, body = deployed.api(
                dep, 'POST', '/servers/%s/action' % uuid,
                {'evacuate': {}}, version='2.14')
            assert status == 200, body
            wait_for(lambda: resized._server(dep, uuid)[
                'OS-EXT-STS:task_state'] == 'rebuild_spawning', 60,
                message='rebuild_spawning')
            resized._stop_compute(dep, DEST, signal.SIGKILL)
        finally:
            if resized._running(dep, DEST):
                resized._stop_compute(dep, DEST)
            _start_compute(dep, DEST)

        def settled():
            server = resized._server(dep, uuid)
            return server if (server['OS-EXT-STS:task_state'] is None and
                              server['status'] == 'ERROR') else None
        try:
            server = wait_for(settled, 60, message='ERROR')
        except AssertionError:
            raise AssertionError('stuck: %s\n%s' % (
                resized._server(dep, uuid), resized._log_tail(dep, DEST)))
        assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
        assert server.get('fault'), server
        assert {m['status'] for m in _evacuations(
            dep, [uuid]).values()} == {'error'}
        code, out = resized._check_allocations(dep)
        assert code == 0, out
    finally:
        resized._start_compute(dep, SOURCE)
        _forced_down(dep, SOURCE, False)
    status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
    assert status == 204
    wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
             == 404, 60, message='deleted')
    status, _ = deployed.api(dep, 'DELETE', '/flavors/ev.kill')
    assert status == 202


def test_super_conductor_killed_before_the_hand_off_rolls_back(
        deployment):
    dep = deployment
    status, body = deployed.api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'ev.cond', 'id': 'ev.cond', 'ram': 128, 'vcpus': 1,
        'disk': 1}})
    assert status == 200, body
    status, body = deployed.api(dep, 'POST', '/servers', {'server': {
        'name': 'ev-cond', 'flavorRef': 'ev.cond',
        'imageRef': deployed.IMAGE, 'networks': 'none',
        'availability_zone': 'nova:' + SOURCE}}, version='2.47')
    assert status == 202, body
    uuid = body['server']['id']
    deployed._wait_status(dep, [uuid], ('ACTIVE',))
    resized._stop_compute(dep, SOURCE, signal.SIGKILL)
    try:
        _forced_down(dep, SOURCE, True)

        def evacuate():
            status, body = deployed.api(
                dep, 'POST', '/servers/%s/action' % uuid,
                {'evacuate': {}}, version='2.14')
            assert status == 200, body
        try:
            killing._killed_at(dep, 'dispatch', evacuate)
        except AssertionError:
            with open(os.path.join(dep.workdir, 'conductor.log')) as f:
                raise AssertionError('%s\n%s' % (
                    resized._server(dep, uuid), f.read()[-6000:]))

        def rolled_back():
            server = resized._server(dep, uuid)
            return server if (server['OS-EXT-STS:task_state'] is None and
                              server['status'] == 'ACTIVE') else None
        server = wait_for(rolled_back, 60, message='rolled back')
        assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
        assert _statuses(dep, uuid) == ['error']
        code, out = resized._check_allocations(dep)
        assert code == 0, out
        evacuate()
        wait_for(lambda: (lambda s: s['status'] == 'ACTIVE' and s[
            'OS-EXT-SRV-ATTR:host'] == DEST)(resized._server(dep, uuid)),
            60, message='evacuated')
    finally:
        resized._start_compute(dep, SOURCE)
        _forced_down(dep, SOURCE, False)
    wait_for(lambda: sorted(_statuses(dep, uuid)) == ['completed', 'error'],
             60, message='completed')
    code, out = resized._check_allocations(dep)
    assert code == 0, out
    status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
    assert status == 204
    wait_for(lambda: deployed.api(dep, 'GET', '/servers/%s' % uuid)[0]
             == 404, 60, message='deleted')
    status, _ = deployed.api(dep, 'DELETE', '/flavors/ev.cond')
    assert status == 202
