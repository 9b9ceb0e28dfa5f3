"""shelve, shelveOffload, unshelve, rescue, unrescue, createBackup,
changePassword and os-server-password through the REST API on a
running plane (two cells): the states each takes a server through, its
snapshot image and its allocations, the states and locks that refuse
them (409), their policies, the 2.77 availability zone, the periodic
offload, backup rotation, the instance actions they record, a delete
of a shelved server, and an unshelve whose super conductor fails or
stops at each of its steps (rolled back at once, or at the next start of
the super conductor)."""
import copy
import os

import nova_lite_test_hooks as step_hooks
import pytest
import requests

from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_backups
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.virt import fake
from tests.functional.api.resize_helpers import guests
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for
from tests.functional import notification_fixtures


def _glance(running, image_id):
    return requests.get('%s/image/v2/images/%s' % (running.plane.endpoint,
                                                   image_id),
                        headers={'X-Auth-Token': ADMIN}, timeout=30)


def _shelved_images(running, uuid):
    images = requests.get('%s/image/v2/images' % running.plane.endpoint,
                          headers={'X-Auth-Token': ADMIN},
                          timeout=30).json()['images']
    return [i for i in images if i.get('instance_uuid') == uuid
            and i['name'].endswith('-shelved')]


def _claims(uuid):
    return allocations.get_allocations(nova_context.get_admin_context(),
                                       uuid)


def _show(running, uuid, version='2.1'):
    return running.api('GET', '/servers/%s' % uuid, version=version,
                       token=ADMIN).json()['server']


def _act(running, uuid, body, token=MEMBER, version='2.1'):
    return running.api('POST', '/servers/%s/action' % uuid, body,
                       version=version, token=token)


def _actions(running, uuid):
    return [a['action'] for a in running.api(
        'GET', '/servers/%s/os-instance-actions' % uuid,
        token=ADMIN).json()['instanceActions']]


def _manager_of(running, host):
    """The ComputeManager of host and its service's context."""
    [(manager, ctxt)] = [(e, s.context) for s in running.plane.services
                         if s.host == host for e in s.endpoints
                         if hasattr(e, 'shelve_instance')]
    return manager, ctxt


@pytest.fixture
def keep_shelved(override):
    override('shelved_offload_time', -1)


@pytest.mark.parametrize('cell', ['cell1', 'cell2'])
def test_shelve_offloads_at_once_and_unshelve_reschedules_in_the_cell(
        running, cell):
    uuid = running.boot(cell)
    held = _claims(uuid)
    assert held
    assert _act(running, uuid, {'shelve': None}).status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    server = _show(running, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert server['OS-EXT-STS:power_state'] == 0
    assert _claims(uuid) == {}
    [image] = _shelved_images(running, uuid)
    assert image['status'] == 'active' and image['name'] == 'vm-shelved'
    assert _act(running, uuid, {'unshelve': None}).status_code == 202
    running.settle(uuid, 'active')
    server = _show(running, uuid)
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-SRV-ATTR:host'].startswith(cell + '-')
    assert server['OS-EXT-STS:power_state'] == 1
    assert list(_claims(uuid).values()) == list(held.values())
    # The snapshot goes once the server is spawned again.
    wait_for(lambda: _glance(running, image['id']).status_code == 404,
             timeout=30, message='shelved image deleted')
    assert _actions(running, uuid)[:2] == ['unshelve', 'shelve']


def test_shelve_kept_and_unshelved_on_its_host(running, keep_shelved):
    uuid = running.boot('cell1')
    host = running.host(uuid)
    held = _claims(uuid)
    assert _act(running, uuid, {'shelve': {}}).status_code == 202
    running.settle(uuid, 'shelved')
    server = _show(running, uuid)
    assert server['status'] == 'SHELVED'
    assert server['OS-EXT-SRV-ATTR:host'] == host
    assert server['OS-EXT-STS:power_state'] == 4
    assert _claims(uuid) == held
    [image] = _shelved_images(running, uuid)
    # Refused states: shelved again, offloaded by a member.
    response = _act(running, uuid, {'shelve': None})
    assert response.status_code == 409, response.text
    assert 'vm_state shelved' in response.json()[
        'conflictingRequest']['message']
    assert _act(running, uuid, {'shelveOffload': None}).status_code == 403
    # 2.77: a zone only for an offloaded server.
    response = _act(running, uuid, {'unshelve': {
        'availability_zone': 'nova'}}, version='2.77')
    assert response.status_code == 409, response.text
    assert _act(running, uuid, {'unshelve': None}).status_code == 202
    running.settle(uuid, 'active')
    assert running.host(uuid) == host
    assert _claims(uuid) == held
    wait_for(lambda: _glance(running, image['id']).status_code == 404,
             timeout=30, message='shelved image deleted')


def test_shelve_offload_by_an_administrator(running, keep_shelved):
    uuid = running.boot('cell2')
    _act(running, uuid, {'shelve': None})
    running.settle(uuid, 'shelved')
    response = _act(running, uuid, {'shelveOffload': None}, token=ADMIN)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'shelved_offloaded')
    assert _claims(uuid) == {}
    assert _act(running, uuid, {'shelveOffload': None},
                token=ADMIN).status_code == 409
    assert _actions(running, uuid)[0] == 'shelveOffload'
    # 2.77: a zone that does not exist, and null (only from 2.91).
    for zone, status in (('elsewhere', 400), (None, 400)):
        response = _act(running, uuid, {'unshelve': {
            'availability_zone': zone}}, version='2.77')
        assert response.status_code == status, response.text
    # Before 2.77 the value is not looked at.
    response = _act(running, uuid, {'unshelve': {
        'availability_zone': 'elsewhere'}}, version='2.76')
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert running.host(uuid).startswith('cell2-')


def _still_offloaded(running, uuid, image):
    """SHELVED_OFFLOADED with no task, no host, nothing claimed, no
    guest anywhere, its snapshot still there to unshelve from."""
    running.settle(uuid, 'shelved_offloaded')
    server = _show(running, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert _claims(uuid) == {}
    hosts = [s.host for s in running.plane.services
             if s.binary == 'nova-compute']
    assert not [h for h in hosts if uuid in guests(running.plane, h)]
    assert _glance(running, image['id']).json()['status'] == 'active'


def _conductor_event(running, uuid):
    """(request id, conductor_unshelve_instance event) of the newest
    unshelve action."""
    [request_id] = [a['request_id'] for a in running.api(
        'GET', '/servers/%s/os-instance-actions' % uuid,
        token=ADMIN).json()['instanceActions']
        if a['action'] == 'unshelve'][:1]
    action = running.api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, request_id), version='2.51', token=ADMIN).json()[
        'instanceAction']
    return request_id, {e['event']: e for e in action['events']}


@pytest.mark.parametrize('step', ['unshelve_schedule', 'unshelve_dispatch'])
def test_unshelve_steps_fail_or_crash_and_recover(running, step):
    """A failure at a step of the super conductor's unshelve rolls it
    back at once; a crash there (nothing rolled back, no cast sent)
    leaves the server unshelving until the super conductor's next start
    rolls it back: SHELVED_OFFLOADED, no claim, the snapshot kept; a
    cast that went out before the stop and reaches the compute after
    the rollback does nothing. The server unshelves afterwards and its
    snapshot goes."""
    uuid = running.boot('cell2')
    assert _act(running, uuid, {'shelve': None}).status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    [image] = _shelved_images(running, uuid)
    with step_hooks.observing(step_hooks.fail_at(step)):
        assert _act(running, uuid, {'unshelve': None}).status_code == 202
        _still_offloaded(running, uuid, image)
    assert _conductor_event(running, uuid)[1][
        'conductor_unshelve_instance']['result'] == 'Error'

    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at(step)):
        assert _act(running, uuid, {'unshelve': None}).status_code == 202
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30,
                 message='crash at %s' % step)
    server = _show(running, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    assert server['OS-EXT-STS:task_state'] == 'unshelving'
    cell = running.cells['cell2']
    with nova_context.target_cell(running.ctxt, cell) as cctxt:
        stale = objects.Instance.get_by_uuid(cctxt, uuid)
    if step == 'unshelve_dispatch':
        # Claimed and pointed at its host; the cast never sent.
        assert stale.host and server['OS-EXT-SRV-ATTR:host'] == stale.host
        assert _claims(uuid)
    else:
        assert stale.host is None and _claims(uuid) == {}
    conductor_manager.ComputeTaskManager().init_host(
        nova_context.get_admin_context(), None)
    _still_offloaded(running, uuid, image)
    request_id, events = _conductor_event(running, uuid)
    assert events['conductor_unshelve_instance']['result'] == 'Error'
    if step == 'unshelve_dispatch':
        # The cast a stop right after sending it would have left in the
        # compute's queue, delivered after the rollback: the compute
        # finds the task cleared and spawns nothing.
        with nova_context.target_cell(running.ctxt, cell) as cctxt:
            late = copy.copy(cctxt)
            late.request_id = request_id
            compute_rpcapi.ComputeAPI().unshelve_instance(late, stale)
        wait_for(lambda: 'compute_unshelve_instance' in _conductor_event(
            running, uuid)[1], timeout=30, message='late cast handled')
        wait_for(lambda: _conductor_event(running, uuid)[1][
            'compute_unshelve_instance']['finish_time'], timeout=30,
            message='late cast finished')
        _still_offloaded(running, uuid, image)
    # Nothing stuck: it unshelves, and its snapshot goes.
    assert _act(running, uuid, {'unshelve': None}).status_code == 202
    running.settle(uuid, 'active')
    assert _claims(uuid)
    wait_for(lambda: _glance(running, image['id']).status_code == 404,
             timeout=30, message='shelved image deleted')
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.gone(uuid)


def test_unshelve_of_a_shelved_server_crashed_before_its_cast(
        running, keep_shelved):
    """A SHELVED server (guest and claim kept on its host): a failure
    before the cast leaves it SHELVED with no task; a crash there is
    finished by the super conductor's next start, which sends the cast
    again: ACTIVE on its host, its snapshot gone."""
    uuid = running.boot('cell1')
    host = running.host(uuid)
    held = _claims(uuid)
    assert _act(running, uuid, {'shelve': None}).status_code == 202
    running.settle(uuid, 'shelved')
    [image] = _shelved_images(running, uuid)
    with step_hooks.observing(step_hooks.fail_at('unshelve_dispatch')):
        assert _act(running, uuid, {'unshelve': None}).status_code == 202
        running.settle(uuid, 'shelved')
    assert _claims(uuid) == held
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at('unshelve_dispatch')):
        assert _act(running, uuid, {'unshelve': None}).status_code == 202
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30,
                 message='crash at unshelve_dispatch')
    assert _show(running, uuid)['OS-EXT-STS:task_state'] == 'unshelving'
    conductor_manager.ComputeTaskManager().init_host(
        nova_context.get_admin_context(), None)
    running.settle(uuid, 'active')
    server = _show(running, uuid)
    assert (server['OS-EXT-SRV-ATTR:host'], server['OS-EXT-STS:power_state'],
            _claims(uuid)) == (host, 1, held)
    events = _conductor_event(running, uuid)[1]
    assert events['conductor_unshelve_instance']['result'] == 'Success'
    assert events['compute_unshelve_instance']['result'] == 'Success'
    wait_for(lambda: _glance(running, image['id']).status_code == 404,
             timeout=30, message='shelved image deleted')


def test_versioned_notifications_of_each_action(running, override):
    """instance.<action>.start and .end from the server's compute, as
    Nova sends them, the .end showing the state the action left: an
    InstanceActionPayload for shelve, shelve_offload, unshelve,
    unrescue, trigger_crash_dump, soft_delete and restore; rescue's
    names its rescue image, the snapshot of a createBackup its image."""
    override('reclaim_instance_interval', 3600)
    collector = notification_fixtures.Collector().start()
    try:
        uuid = running.boot('cell2')
        assert _act(running, uuid, {'shelve': None}).status_code == 202
        running.settle(uuid, 'shelved_offloaded')
        assert _act(running, uuid, {'unshelve': None}).status_code == 202
        running.settle(uuid, 'active')
        host = running.host(uuid)
        assert _act(running, uuid, {'rescue': {
            'rescue_image_ref': IMAGE}}).status_code == 200
        running.settle(uuid, 'rescued')
        assert _act(running, uuid, {'unrescue': None}).status_code == 202
        running.settle(uuid, 'active')
        backup = _act(running, uuid, {'createBackup': {
            'name': 'nb', 'backup_type': 'daily', 'rotation': 1}},
            version='2.45').json()['image_id']
        running.settle(uuid, 'active')
        assert _act(running, uuid, {'trigger_crash_dump': None},
                    version='2.17').status_code == 202
        collector.wait_for(uuid, 'instance.trigger_crash_dump.end')
        assert running.api('DELETE', '/servers/%s' % uuid,
                           token=MEMBER).status_code == 204
        running.settle(uuid, 'soft-delete')
        assert _act(running, uuid, {'restore': None}).status_code == 202
        running.settle(uuid, 'active')
        ends = {}
        for action, state in (
                ('shelve', 'shelved'), ('shelve_offload', 'shelved_offloaded'),
                ('unshelve', 'active'), ('rescue', 'rescued'),
                ('unrescue', 'active'), ('trigger_crash_dump', 'active'),
                ('soft_delete', 'soft-delete'), ('restore', 'active')):
            [start] = collector.wait_for(uuid, 'instance.%s.start' % action)
            [end] = collector.wait_for(uuid, 'instance.%s.end' % action)
            for sent in (start, end):
                assert sent['priority'] == 'INFO'
                assert sent['payload']['nova_object.name'] == (
                    'InstanceActionRescuePayload' if action == 'rescue'
                    else 'InstanceActionPayload'), sent
                assert sent['publisher_id'].startswith('nova-compute:')
            ends[action] = end['payload']['nova_object.data']
            if state:
                assert ends[action]['state'] == state, (action, ends[action])
        assert ends['shelve_offload']['host'] is None
        assert ends['unshelve']['host'] == host
        assert ends['rescue']['rescue_image_ref'] == IMAGE
        [start] = collector.wait_for(uuid, 'instance.snapshot.start')
        [end] = collector.wait_for(uuid, 'instance.snapshot.end')
        for sent in (start, end):
            assert sent['payload']['nova_object.name'] == (
                'InstanceActionSnapshotPayload')
            assert sent['payload']['nova_object.data'][
                'snapshot_image_id'] == backup
        assert end['payload']['nova_object.data']['task_state'] is None
        assert [n['event_type'] for n in collector.about(uuid)
                if n['event_type'].startswith('instance.shelve')] == [
            'instance.shelve.start', 'instance.shelve.end',
            'instance.shelve_offload.start', 'instance.shelve_offload.end']
    finally:
        collector.stop()


def test_unshelve_into_a_zone_at_277(running):
    uuid = running.boot('cell1')
    _act(running, uuid, {'shelve': None})
    running.settle(uuid, 'shelved_offloaded')
    response = _act(running, uuid, {'unshelve': {
        'availability_zone': 'nova'}}, version='2.77')
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert _show(running, uuid)['OS-EXT-AZ:availability_zone'] == 'nova'


def test_refused_states_locks_and_other_projects(running):
    uuid = running.boot('cell1')
    for action in ('unshelve', 'shelveOffload', 'unrescue'):
        response = _act(running, uuid, {action: None}, token=ADMIN)
        assert response.status_code == 409, (action, response.text)
    for action in ('shelve', 'unshelve', 'rescue', 'unrescue'):
        assert _act(running, uuid, {action: None},
                    token=OTHER).status_code == 404
    _act(running, uuid, {'lock': None}, token=ADMIN)
    for action in ('shelve', 'rescue'):
        response = _act(running, uuid, {action: None})
        assert response.status_code == 409, response.text
        assert 'locked' in response.json()['conflictingRequest']['message']
    assert _shelved_images(running, uuid) == []


def test_delete_of_a_shelved_server_deletes_its_image(running):
    uuid = running.boot('cell2')
    _act(running, uuid, {'shelve': None})
    running.settle(uuid, 'shelved_offloaded')
    [image] = _shelved_images(running, uuid)
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.gone(uuid)
    assert _glance(running, image['id']).status_code == 404


def test_periodic_offload_after_shelved_offload_time(running, override):
    override('shelved_offload_time', 1)
    override('shelved_poll_interval', 1)
    uuid = running.boot('cell1')
    host = running.host(uuid)
    _act(running, uuid, {'shelve': None})
    running.settle(uuid, 'shelved')
    manager, ctxt = _manager_of(running, host)

    def offloaded():
        manager.periodic_tasks(ctxt)
        return _show(running, uuid)['status'] == 'SHELVED_OFFLOADED'
    wait_for(offloaded, timeout=30, message='%s offloaded' % uuid)
    assert _claims(uuid) == {}


def test_rescue_and_unrescue(running):
    uuid = running.boot('cell2')
    response = _act(running, uuid, {'rescue': {'adminPass': 's3cret'}})
    assert response.status_code == 200, response.text
    assert response.json() == {'adminPass': 's3cret'}
    running.settle(uuid, 'rescued')
    assert _show(running, uuid)['status'] == 'RESCUE'
    # What a rescued server refuses; a second rescue among them.
    for body in ({'os-stop': None}, {'rescue': None}, {'shelve': None},
                 {'pause': None}, {'reboot': {'type': 'SOFT'}}):
        response = _act(running, uuid, body)
        assert response.status_code == 409, (body, response.text)
    assert _act(running, uuid, {'unrescue': None}).status_code == 202
    running.settle(uuid, 'active')
    assert _actions(running, uuid)[:2] == ['unrescue', 'rescue']
    # A generated password when none is asked for.
    response = _act(running, uuid, {'rescue': None})
    assert response.status_code == 200, response.text
    assert len(response.json()['adminPass']) >= 8
    running.settle(uuid, 'rescued')
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.gone(uuid)


@pytest.mark.parametrize('body, field', [
    ({'rescue': {'rescue_image_ref': 'not-a-uuid'}}, 'rescue_image_ref'),
    ({'rescue': {'adminPass': 1}}, 'adminPass'),
    ({'rescue': {'extra': 1}}, 'extra'),
    ({'rescue': 'x'}, 'rescue'),
])
def test_bad_rescue_bodies_are_400(running, body, field):
    uuid = running.boot('cell1')
    response = _act(running, uuid, body)
    assert response.status_code == 400, response.text
    assert field in response.json()['badRequest']['message']


def test_rescue_with_an_unknown_image_is_400(running):
    uuid = running.boot('cell1')
    response = _act(running, uuid, {'rescue': {
        'rescue_image_ref': '7f0cc2a4-6d6c-4b39-9a3e-8f0b3f6b7c11'}})
    assert response.status_code == 400, response.text
    assert _show(running, uuid)['status'] == 'ACTIVE'


# --- createBackup, changePassword, os-server-password -----------------------

def _backups(running, uuid, backup_type):
    images = requests.get('%s/image/v2/images' % running.plane.endpoint,
                          headers={'X-Auth-Token': ADMIN},
                          timeout=30).json()['images']
    return [i['id'] for i in images if i.get('instance_uuid') == uuid
            and i.get('image_type') == 'backup'
            and i.get('backup_type') == backup_type]


def _backup(running, uuid, rotation, backup_type='daily', version='2.45'):
    response = _act(running, uuid, {'createBackup': {
        'name': 'b', 'backup_type': backup_type, 'rotation': rotation}},
        version=version)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    return response


def test_create_backup_rotates_older_backups_of_its_type(running):
    uuid = running.boot('cell2')
    weekly = _backup(running, uuid, 1, 'weekly').json()['image_id']
    made = [_backup(running, uuid, 2).json()['image_id'] for _ in range(3)]
    wait_for(lambda: set(_backups(running, uuid, 'daily')) == set(made[1:]),
             timeout=30, message='rotated')
    assert _backups(running, uuid, 'weekly') == [weekly]
    assert _glance(running, made[0]).status_code == 404
    # Before 2.45: a Location (none for rotation 0, which keeps nothing).
    response = _backup(running, uuid, '1', 'hourly', version='2.44')
    assert response.text == ''
    image_id = response.headers['Location'].rsplit('/', 1)[-1]
    wait_for(lambda: _backups(running, uuid, 'hourly') == [image_id],
             timeout=30, message='hourly backup')
    response = _backup(running, uuid, 0, 'hourly', version='2.44')
    assert 'Location' not in response.headers
    wait_for(lambda: _backups(running, uuid, 'hourly') == [], timeout=30,
             message='rotation 0')
    assert 'createBackup' in _actions(running, uuid)


@pytest.mark.parametrize('value, field', [
    ({'name': 'b', 'backup_type': 'daily'}, 'rotation'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': -1}, 'rotation'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': 'x'}, 'rotation'),
    ({'backup_type': 'daily', 'rotation': 1}, 'name'),
    ({'name': 'b', 'rotation': 1}, 'backup_type'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': 1, 'x': 1}, 'x'),
])
def test_bad_create_backup_bodies_are_400(running, value, field):
    uuid = running.boot('cell1')
    response = _act(running, uuid, {'createBackup': value})
    assert response.status_code == 400, response.text
    assert field in response.json()['badRequest']['message']


def test_change_password_and_the_server_password(running):
    uuid = running.boot('cell1')
    response = _act(running, uuid, {'changePassword': {'adminPass': 'n3w'}})
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert _actions(running, uuid)[0] == 'changePassword'
    assert _act(running, uuid, {'changePassword': {}}).status_code == 400
    running.reach(uuid, 'stopped')
    response = _act(running, uuid, {'changePassword': {'adminPass': 'x'}})
    assert response.status_code == 409, response.text
    path = '/servers/%s/os-server-password' % uuid
    assert running.api('GET', path, token=MEMBER).json() == {'password': ''}
    # What Nova's metadata service keeps when the guest posts it.
    posted = 'x' * 300
    server_backups.set_password(server_actions.get(
        nova_context.get_admin_context(), uuid), posted)
    assert running.api('GET', path, token=MEMBER).json() == {
        'password': posted}
    assert running.api('GET', path, token=OTHER).status_code == 404
    assert running.api('DELETE', path, token=MEMBER).status_code == 204
    assert running.api('GET', path, token=MEMBER).json() == {'password': ''}


# --- soft delete, restore, forceDelete --------------------------------------

def _listed(running, query, token=MEMBER):
    return [s['id'] for s in running.api(
        'GET', '/servers?%s' % query, token=token).json()['servers']]


def test_soft_delete_restore_and_force_delete(running, override):
    override('reclaim_instance_interval', 3600)
    uuid = running.boot('cell1')
    held = _claims(uuid)
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.settle(uuid, 'soft-delete')
    server = _show(running, uuid)
    assert server['status'] == 'SOFT_DELETED'
    assert server['OS-EXT-STS:power_state'] == 4
    assert _claims(uuid) == held
    # Listed only when asked for.
    assert uuid not in _listed(running, 'name=vm')
    assert uuid in _listed(running, 'status=SOFT_DELETED')
    assert uuid in _listed(running, 'deleted=true&all_tenants=1',
                           token=ADMIN)
    assert uuid in _listed(running, 'changes-since=2000-01-01T00:00:00Z')
    # What a soft-deleted server refuses.
    for body in ({'os-start': None}, {'shelve': None}, {'rescue': None}):
        assert _act(running, uuid, body).status_code == 409
    assert _act(running, uuid, {'restore': None},
                token=OTHER).status_code == 404
    assert _act(running, uuid, {'restore': None}).status_code == 202
    running.settle(uuid, 'active')
    assert _show(running, uuid)['OS-EXT-STS:power_state'] == 1
    assert _act(running, uuid, {'restore': None}).status_code == 409
    assert _actions(running, uuid)[:2] == ['restore', 'delete']
    running.api('DELETE', '/servers/%s' % uuid, token=MEMBER)
    running.settle(uuid, 'soft-delete')
    assert _act(running, uuid, {'forceDelete': None}).status_code == 202
    running.gone(uuid)
    assert _claims(uuid) == {}


def test_soft_deleted_servers_are_reclaimed(running, override):
    override('reclaim_instance_interval', 1)
    uuid = running.boot('cell2')
    manager, ctxt = _manager_of(running, running.host(uuid))
    running.api('DELETE', '/servers/%s' % uuid, token=MEMBER)
    running.settle(uuid, 'soft-delete')

    def reclaimed():
        manager.periodic_tasks(ctxt)
        return running.api('GET', '/servers/%s' % uuid,
                           token=ADMIN).status_code == 404
    wait_for(reclaimed, timeout=30, message='%s reclaimed' % uuid)
    assert _claims(uuid) == {}


def test_volume_backed_shelve_offloads_with_no_image_and_rescue_at_287(
        running):
    uuid = running.boot('cell1', imageRef='', block_device_mapping_v2=[{
        'boot_index': 0, 'uuid': IMAGE, 'source_type': 'image',
        'destination_type': 'volume', 'volume_size': 1,
        'delete_on_termination': True}])
    response = _act(running, uuid, {'rescue': None}, version='2.86')
    assert response.status_code == 400, response.text
    response = _act(running, uuid, {'rescue': {'rescue_image_ref': IMAGE}},
                    version='2.87')
    assert response.status_code == 400, response.text
    assert 'hw_rescue' in response.json()['badRequest']['message']
    assert _act(running, uuid, {'shelve': None}).status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    assert _shelved_images(running, uuid) == []
    assert _claims(uuid) == {}
    assert _act(running, uuid, {'unshelve': None}).status_code == 202
    running.settle(uuid, 'active')
    assert _claims(uuid)


def test_delete_overtakes_a_backup_in_flight(running, override):  # noqa
    """A DELETE while the backup's snapshot is being taken (task state
    image_pending_upload/uploading) is accepted, as in Nova: the server
    goes and the half-made image with it (Tempest deletes its servers
    right after createBackup)."""
    uuid = running.boot('cell2')
    override('delay_methods', {'snapshot': 3}, group='fake_driver')
    response = _act(running, uuid, {'createBackup': {
        'name': 'b', 'backup_type': 'daily', 'rotation': 1}},
        version='2.45')
    assert response.status_code == 202, response.text
    image_id = response.json()['image_id']
    wait_for(lambda: running.api('GET', '/servers/%s' % uuid).json()[
        'server']['OS-EXT-STS:task_state'] in (
        'image_pending_upload', 'image_uploading'), timeout=30,
        message='snapshot in flight')
    deleted = running.api('DELETE', '/servers/%s' % uuid)
    assert deleted.status_code == 204, deleted.text
    running.gone(uuid)
    wait_for(lambda: _glance(running, image_id).status_code == 404,
             timeout=30, message='half-made backup deleted')


def test_attach_and_detach_on_a_shelved_offloaded_server(running):
    """As Nova from 2.20 (Tempest's AttachVolumeShelveTestJSON): a
    volume attached to a shelved-offloaded server is in-use at once with
    its mapping and no host; the unshelving host connects it (the guest
    has it); a detach while offloaded frees it at once. Below 2.20: 409."""
    from tests.functional.api.test_volumes import Volumes
    volumes = Volumes(running.plane.endpoint)
    uuid = running.boot('cell1')
    assert _act(running, uuid, {'shelve': None}).status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    kept, dropped = volumes.create(name='kept'), volumes.create(name='gone')
    path = '/servers/%s/os-volume_attachments' % uuid
    for volume in (kept, dropped):
        body = {'volumeAttachment': {'volumeId': volume['id']}}
        response = running.api('POST', path, body, version='2.19')
        assert response.status_code == 409, response.text
        assert volumes.status(volume['id']) == 'available'
        response = running.api('POST', path, body, version='2.20')
        assert response.status_code == 200, response.text
        assert response.json()['volumeAttachment']['device']
        # In-use on return: no compute is involved.
        assert volumes.status(volume['id']) == 'in-use'
    [attachment] = volumes.get(kept['id']).json()['volume']['attachments']
    assert (attachment['server_id'], attachment['host_name']) == (uuid, None)
    gone = '%s/%s' % (path, dropped['id'])
    assert running.api('DELETE', gone, version='2.19').status_code == 409
    assert running.api('DELETE', gone, version='2.20').status_code == 202
    assert volumes.status(dropped['id']) == 'available'
    assert running.api('GET', gone).status_code == 404
    assert _actions(running, uuid)[:3] == [
        'detach_volume', 'attach_volume', 'attach_volume']
    # Unshelved: connected on its new host, in the guest.
    assert _act(running, uuid, {'unshelve': None}).status_code == 202
    running.settle(uuid, 'active')
    host = running.host(uuid)
    shown = running.api('GET', '%s/%s' % (path, kept['id'])).json()[
        'volumeAttachment']
    assert shown['device'] and shown['serverId'] == uuid
    volume = volumes.get(kept['id']).json()['volume']
    assert volume['status'] == 'in-use'
    assert [a['host_name'] for a in volume['attachments']] == [host]
    guest = fake.load_guests(os.path.join(
        running.plane.state_dir, 'fake-hypervisor'), host)[uuid]
    assert guest['volumes'][shown['device']] == kept['id']
    # And it detaches as any other.
    assert running.api('DELETE', '%s/%s' % (path, kept['id'])).status_code \
        == 202
    volumes.wait(kept['id'], 'available')
