"""A boot whose message to the super conductor was lost ends in ERROR.

The API writes a boot's build requests, then casts it to a super
conductor. When that cast never arrives (the API died in between, or a
broker restart dropped it), no conductor picks the build request up;
the super conductors' periodic task buries it once it is older than
[conductor] build_request_timeout: ERROR in cell0 with a fault, the
create action failed, the build request gone, the quota it held freed
when the server is deleted. The API's end between writing and casting
is the `boot_cast` step hook failing the request there (nothing after
it runs, as a killed API). A build request a conductor took is not
buried while that conductor may still be at it, and a message that
arrives after the burial builds nothing. A build request a conductor
took and never finished (it died) is ended once [conductor]
build_request_timeout past [DEFAULT] long_rpc_timeout has gone by: in
the cell its instance got to, or in cell0.
"""
import threading
import time

import nova_lite_test_hooks as step_hooks

from nova_lite.conductor import build as conductor_build
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import build_request as build_request_obj
from nova_lite.objects import instance as instance_obj
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for

TIMEOUT = 2


def _lost_boot(running, name):
    """A boot whose API ends after writing it, before casting it: its
    uuid (the server shows BUILD/scheduling)."""
    with step_hooks.observing(step_hooks.fail_at('boot_cast')):
        resp = running.api('POST', '/servers', _server(name=name),
                           version='2.47')
    assert resp.status_code == 500, resp.text
    servers = running.api('GET', '/servers/detail?name=^%s$' % name,
                          version='2.47').json()['servers']
    assert len(servers) == 1, servers
    server = servers[0]
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'BUILD', 'scheduling')
    return server['id']


def _periodic(running):
    conductor_manager.ComputeTaskManager().periodic_tasks(
        running.ctxt, raise_on_error=True)


def _show(running, uuid):
    return running.api('GET', '/servers/%s' % uuid, version='2.47',
                       token=ADMIN).json()['server']


def _used(running):
    absolute = running.api('GET', '/limits').json()['limits']['absolute']
    return (absolute['totalInstancesUsed'], absolute['totalCoresUsed'],
            absolute['totalRAMUsed'])


def _build_requests(running, uuid):
    return objects.BuildRequestList.get_all(running.ctxt, uuids=[uuid])


def test_lost_boot_ends_in_error_with_a_fault(running, override):
    override('build_request_timeout', TIMEOUT, group='conductor')
    before = _used(running)
    uuid = _lost_boot(running, 'lost-cast')
    assert _used(running) == (before[0] + 1, before[1] + 1,
                              before[2] + 512)
    # Younger than the timeout: left alone.
    _periodic(running)
    assert _show(running, uuid)['status'] == 'BUILD'
    time.sleep(TIMEOUT)

    def buried():
        _periodic(running)
        server = _show(running, uuid)
        return server if 'fault' in server else None
    server = wait_for(buried, timeout=30, message='%s buried' % uuid)
    assert server['status'] == 'ERROR'
    assert server['OS-EXT-STS:task_state'] is None
    assert server['fault']['code'] == 500
    assert 'was not picked up by a conductor within %d seconds' % TIMEOUT \
        in server['fault']['message']
    assert not _build_requests(running, uuid)
    mapping = objects.InstanceMapping.get_by_instance_uuid(running.ctxt,
                                                           uuid)
    assert mapping.cell_mapping.is_cell0()
    actions = running.api('GET', '/servers/%s/os-instance-actions' % uuid,
                          token=ADMIN).json()['instanceActions']
    assert [(a['action'], a['message']) for a in actions] == [
        ('create', 'Error')]
    # Deleting it frees its quota.
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)
    assert _used(running) == before


def test_message_arriving_after_the_burial_builds_nothing(running,
                                                          override):
    override('build_request_timeout', TIMEOUT, group='conductor')
    uuid = _lost_boot(running, 'late-cast')
    spec = objects.RequestSpec.get_by_instance_uuid(running.ctxt, uuid)
    time.sleep(TIMEOUT + 0.1)
    _periodic(running)
    assert _show(running, uuid)['status'] == 'ERROR'
    # The lost message turns up after all: nothing is built.
    conductor_manager.ComputeTaskManager().schedule_and_build_instances(
        running.ctxt, [uuid], spec, 'none')
    server = _show(running, uuid)
    assert server['status'] == 'ERROR'
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)


def test_a_build_a_conductor_took_is_never_buried(running, override):
    override('build_request_timeout', TIMEOUT, group='conductor')
    uuid = _lost_boot(running, 'taken')
    # A conductor took it and is still scheduling it.
    assert [br.instance_uuid for br in build_request_obj.take(
        running.ctxt, 'busy-conductor', [uuid])] == [uuid]
    time.sleep(TIMEOUT + 0.1)
    _periodic(running)
    server = _show(running, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'BUILD', 'scheduling')
    assert _build_requests(running, uuid)
    # Another conductor sent the same boot takes nothing.
    assert build_request_obj.take(running.ctxt, 'other', [uuid]) == []
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)


def test_two_super_conductors_bury_each_build_once(running, override):
    override('build_request_timeout', TIMEOUT, group='conductor')
    uuids = [_lost_boot(running, 'twice-%d' % i) for i in range(3)]
    time.sleep(TIMEOUT + 0.1)
    errors = []

    def bury():
        try:
            _periodic(running)
        except Exception as exc:   # reported by the assertion below
            errors.append(exc)
    threads = [threading.Thread(target=bury) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    for uuid in uuids:
        server = _show(running, uuid)
        assert server['status'] == 'ERROR', server
        actions = running.api(
            'GET', '/servers/%s/os-instance-actions' % uuid,
            token=ADMIN).json()['instanceActions']
        assert len(actions) == 1, actions
    # One instance each in cell0, not two.
    listed = running.api('GET', '/servers/detail?name=^twice-',
                         version='2.47', token=MEMBER).json()['servers']
    assert sorted(s['id'] for s in listed) == sorted(uuids)
    for uuid in uuids:
        assert running.api('DELETE',
                           '/servers/%s' % uuid).status_code == 204
        running.gone(uuid)


def _stranded_quickly(override):
    """Builds taken and not finished count as stranded after
    TIMEOUT + 1 s."""
    override('build_request_timeout', TIMEOUT, group='conductor')
    override('long_rpc_timeout', 1)


def _ended(running, uuid):
    def ended():
        _periodic(running)
        server = _show(running, uuid)
        return server if 'fault' in server else None
    return wait_for(ended, timeout=30, message='%s ended' % uuid)


def test_a_build_whose_conductor_died_before_scheduling_is_buried(
        running, override):
    _stranded_quickly(override)
    before = _used(running)
    uuid = _lost_boot(running, 'dead-taker')
    # A conductor took it, then died: nothing else of it happens.
    assert [br.instance_uuid for br in build_request_obj.take(
        running.ctxt, 'dead-conductor', [uuid])] == [uuid]
    _periodic(running)
    assert _show(running, uuid)['status'] == 'BUILD'
    time.sleep(TIMEOUT + 1.1)
    server = _ended(running, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'ERROR', None)
    assert 'did not finish it within 3 seconds' in \
        server['fault']['message']
    assert not _build_requests(running, uuid)
    assert objects.InstanceMapping.get_by_instance_uuid(
        running.ctxt, uuid).cell_mapping.is_cell0()
    # The dead conductor, were it only slow, finds it no longer its own.
    assert not build_request_obj.renew(running.ctxt, 'dead-conductor',
                                       uuid)
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)
    assert _used(running) == before


def test_a_build_whose_conductor_died_in_the_cell_is_failed_there(
        running, override):
    _stranded_quickly(override)
    before = _used(running)
    uuid = _lost_boot(running, 'dead-builder')
    # A conductor took it, made its instance in cell1 and died before
    # it pointed the mapping there (as _build_one's first steps).
    [taken] = build_request_obj.take(running.ctxt, 'dead-conductor',
                                     [uuid])
    with nova_context.target_cell(running.ctxt,
                                  running.cells['cell1']) as cctxt:
        conductor_build._fresh_instance(
            cctxt, taken.instance, vm_state=instance_obj.BUILDING,
            task_state=instance_obj.SCHEDULING).create()
    assert _show(running, uuid)['status'] == 'BUILD'
    time.sleep(TIMEOUT + 1.1)
    server = _ended(running, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'ERROR', None)
    assert 'did not finish' in server['fault']['message']
    assert not _build_requests(running, uuid)
    mapping = objects.InstanceMapping.get_by_instance_uuid(running.ctxt,
                                                           uuid)
    assert not mapping.cell_mapping.is_cell0()
    listed = [s['id'] for s in running.api(
        'GET', '/servers', version='2.47').json()['servers']]
    assert listed.count(uuid) == 1
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)
    assert _used(running) == before
