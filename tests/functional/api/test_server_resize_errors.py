"""Resize and cold migration when things go wrong: a failure injected at
each step (no host, a destination too old for the move, the source's
power-off, the destination's start, the confirm, both halves of a
revert) leaves the allocations and states as they were; the bad
requests (400), the states and locks that refuse (409); the
notifications and instance actions of a move."""
import logging

import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.objects import service_version
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import boot
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import one_cell_plane
from tests.functional.api.resize_helpers import show
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}
HOST = 'OS-EXT-SRV-ATTR:host'


@pytest.fixture
def plane(tmp_path, conf):
    yield from one_cell_plane(tmp_path)


@pytest.fixture
def api(plane):
    client = client_of(plane)
    huge = {'flavor': {'name': 'huge', 'id': 'huge', 'ram': 10 ** 7,
                       'vcpus': 1, 'disk': 1}}
    assert client('POST', '/flavors', huge, token=ADMIN).status_code == 200
    return client


def _events(api, uuid, name):
    """The events of the server's newest action called name."""
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  version='2.84', token=ADMIN).json()['instanceActions']
    request = [a for a in actions if a['action'] == name][0]['request_id']
    return api('GET', '/servers/%s/os-instance-actions/%s'
               % (uuid, request), version='2.84',
               token=ADMIN).json()['instanceAction']['events']


def _set_version(plane, host, version):
    cell = plane.cells[host.split('-')[0]]
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, cell) as cctxt:
        with main_db.get_engine(cctxt).begin() as conn:
            conn.execute(sa.text('UPDATE services SET version = :v WHERE '
                                 'host = :host'), {'v': version,
                                                   'host': host})
    service_version.reset_min_version_cache()


def _failed_back_on_source(api, plane, uuid, source, migration_status):
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    assert server['flavor']['original_name'] == 'small'
    migration = wait_migration(uuid, migration_status)
    wait_for(lambda: held(uuid) == {source: SMALL}, timeout=30,
             message='source allocation back')
    assert held(migration['uuid']) == {}
    assert guests(plane, source) == [uuid]
    assert guests(plane, migration['dest_compute'] or source) in (
        [], [uuid])
    return migration


def test_a_failure_before_the_guest_moves_puts_everything_back(
        api, plane, conf, caplog):
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    # No host has room: the scheduler claims nothing.
    with caplog.at_level(logging.WARNING, logger='nova_lite.conductor'):
        assert action(api, uuid, {'resize': {'flavorRef': 'huge'}}
                      ).status_code == 202
        _failed_back_on_source(api, plane, uuid, source, 'error')
    [event] = _events(api, uuid, 'resize')
    assert (event['event'], event['result']) == (
        'conductor_migrate_server', 'Error')
    # An expected refusal: one warning line, no traceback.
    [warning] = [r for r in caplog.records
                 if 'did not start' in r.getMessage()]
    assert warning.levelno == logging.WARNING and not warning.exc_info
    # The source fails to power off and hand over the guest.
    conf.set_override('fail_methods', ['migrate_disk_and_power_off'],
                      group='fake_driver')
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    _failed_back_on_source(api, plane, uuid, source, 'error')
    # The event's result is written once the failed step has put the
    # server back (the step's wrapper records it as the error leaves).
    wait_for(lambda: 'compute_resize_instance' in [
        e['event'] for e in _events(api, uuid, 'resize')
        if e['result'] == 'Error'], timeout=10,
        message='compute_resize_instance recorded as Error')
    # The destination fails to start it: back to the source.
    conf.set_override('fail_methods', ['finish_migration'],
                      group='fake_driver')
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    migration = _failed_back_on_source(api, plane, uuid, source, 'error')
    assert guests(plane, migration['dest_compute']) == []
    assert show(api, uuid)['OS-EXT-STS:power_state'] == 1
    # The only other host of the cell runs code too old for a move: the
    # super conductor finds out after the claim and rolls it back.
    conf.set_override('fail_methods', [], group='fake_driver')
    conf.set_override('compute', 'auto', group='upgrade_levels')
    other = migration['dest_compute']
    _set_version(plane, other, 8)
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    _failed_back_on_source(api, plane, uuid, source, 'error')
    assert 'too old' in [e for e in _events(api, uuid, 'resize')
                         if e['result'] == 'Error'][0]['details']
    _set_version(plane, other, service_version.SERVICE_VERSION)
    # Nothing left failing: the resize goes through.
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    wait_status(api, uuid, 'VERIFY_RESIZE')


def test_failed_confirm_and_revert_steps_can_be_retried(api, plane, conf):
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    dest = wait_status(api, uuid, 'VERIFY_RESIZE')[HOST]
    migration = migration_of(uuid)
    # The source cannot drop the old guest: still VERIFY_RESIZE.
    conf.set_override('fail_methods', ['confirm_migration'],
                      group='fake_driver')
    assert action(api, uuid, {'confirmResize': None}).status_code == 204
    wait_for(lambda: migration_of(uuid)['status'] == 'finished' and
             [e for e in _events(api, uuid, 'confirmResize')
              if e['result'] == 'Error'], timeout=30,
             message='confirm failed')
    wait_status(api, uuid, 'VERIFY_RESIZE')
    assert held(migration['uuid']) == {source: SMALL}
    # The destination cannot drop the new guest: still VERIFY_RESIZE.
    conf.set_override('fail_methods', ['destroy@%s' % dest],
                      group='fake_driver')
    assert action(api, uuid, {'revertResize': None}).status_code == 202
    wait_for(lambda: migration_of(uuid)['status'] == 'finished' and
             show(api, uuid)['OS-EXT-STS:task_state'] is None, timeout=30,
             message='revert failed')
    wait_status(api, uuid, 'VERIFY_RESIZE')
    assert held(uuid) == {dest: MEDIUM}
    assert held(migration['uuid']) == {source: SMALL}
    # The source cannot start the old guest again: ERROR there, with
    # the source allocation the instance's again and the destination's
    # released.
    conf.set_override('fail_methods', ['finish_revert_migration'],
                      group='fake_driver')
    assert action(api, uuid, {'revertResize': None}).status_code == 202
    server = wait_status(api, uuid, 'ERROR')
    assert server[HOST] == source
    assert 'finish_revert_migration' in server['fault']['message']
    wait_migration(uuid, 'error')
    assert held(uuid) == {source: SMALL}
    assert held(migration['uuid']) == {}
    assert guests(plane, dest) == []


def test_bad_requests_and_refusing_states(api):
    uuid = boot(api, flavor='medium')
    cases = [
        ({'resize': {'flavorRef': 'medium'}}, 400, 'must change flavor'),
        ({'resize': {'flavorRef': 'nosuch'}}, 400, 'nosuch'),
        ({'resize': {'flavorRef': 'small'}}, 400, 'smaller root disk'),
        ({'resize': {'flavorRef': 'tiny'}}, 400, 'zero disk'),
        ({'resize': {}}, 400, 'flavorRef'),
        ({'resize': {'flavorRef': 'huge', 'x': 1}}, 400, 'x'),
        ({'resize': {'flavorRef': 'huge', 'OS-DCF:diskConfig': 'X'}}, 400,
         'OS-DCF:diskConfig'),
        ({'confirmResize': None}, 409, 'vm_state active'),
        ({'revertResize': None}, 409, 'vm_state active'),
    ]
    for body, status, words in cases:
        response = action(api, uuid, body)
        assert response.status_code == status, (body, response.text)
        fault = response.json()['badRequest' if status == 400
                                else 'conflictingRequest']
        assert fault['code'] == status and words in fault['message'], body
    # Locked by an administrator: the member may not resize.
    assert action(api, uuid, {'lock': None},
                  token=ADMIN).status_code == 202
    locked = action(api, uuid, {'resize': {'flavorRef': 'huge'}})
    assert locked.status_code == 409
    assert 'locked' in locked.json()['conflictingRequest']['message']
    assert action(api, uuid, {'unlock': None},
                  token=ADMIN).status_code == 202
    assert action(api, uuid, {'pause': None}).status_code == 202
    wait_status(api, uuid, 'PAUSED')
    assert action(api, uuid, {'resize': {'flavorRef': 'huge'}}
                  ).status_code == 409
    assert action(api, uuid, {'migrate': None},
                  token=ADMIN).status_code == 409


def _moved_hosts(notifications, uuid):
    """(source, destination) of the first move, from its notifications."""
    [start] = notifications.about(uuid, 'instance.resize.start')
    [finish] = notifications.about(uuid, 'instance.resize_finish.start')
    return (start['payload']['nova_object.data']['host'],
            finish['payload']['nova_object.data']['host'])


def test_notifications_and_instance_actions_of_a_move(api, notifications):
    uuid = boot(api)
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    wait_status(api, uuid, 'VERIFY_RESIZE')
    assert action(api, uuid, {'revertResize': None}).status_code == 202
    wait_status(api, uuid, 'ACTIVE')
    notifications.wait_for(uuid, 'instance.resize_revert.end')
    names = [n['event_type'] for n in notifications.about(uuid)
             if n['event_type'] != 'instance.update']
    moved = names[names.index('instance.exists'):]
    assert moved == [
        'instance.exists', 'instance.resize_prep.start',
        'instance.resize_prep.end', 'instance.resize.start',
        'instance.resize.end', 'instance.resize_finish.start',
        'instance.resize_finish.end', 'instance.resize_revert.start',
        'instance.resize_revert.end']
    source, dest = _moved_hosts(notifications, uuid)
    assert source != dest
    # Each step's notifications come from the host it runs on and carry
    # the flavor the server has at that moment.
    for name, host, flavor in (
            ('instance.resize_prep.start', dest, 'small'),
            ('instance.resize_prep.end', dest, 'small'),
            ('instance.resize.start', source, 'small'),
            ('instance.resize.end', source, 'small'),
            ('instance.resize_finish.start', dest, 'medium'),
            ('instance.resize_finish.end', dest, 'medium'),
            ('instance.resize_revert.start', dest, 'medium'),
            ('instance.resize_revert.end', source, 'small')):
        [sent] = notifications.about(uuid, name)
        data = sent['payload']['nova_object.data']
        assert sent['publisher_id'] == 'nova-compute:%s' % host, name
        assert data['uuid'] == uuid
        assert data['flavor']['nova_object.data']['name'] == flavor, name
        assert data['task_state'] in (
            'resize_prep', 'resize_migrating', 'resize_migrated',
            'resize_finish', 'resize_reverting', None), name
    [exists] = notifications.about(uuid, 'instance.exists')
    assert exists['payload']['nova_object.data']['flavor'][
        'nova_object.data']['name'] == 'small'
    [prep] = notifications.about(uuid, 'instance.resize_prep.start')
    data = prep['payload']['nova_object.data']
    assert prep['payload']['nova_object.name'] == \
        'InstanceActionResizePrepPayload'
    assert data['new_flavor']['nova_object.data']['name'] == 'medium'
    states = [(u['payload']['nova_object.data']['state_update'][
        'nova_object.data']['new_task_state'])
        for u in notifications.about(uuid, 'instance.update')]
    for task in ('resize_prep', 'resize_migrating', 'resize_migrated',
                 'resize_finish', 'resize_reverting'):
        assert task in states
    assert sorted(e['event'] for e in _events(api, uuid, 'resize')) == [
        'compute_finish_resize', 'compute_prep_resize',
        'compute_resize_instance', 'conductor_migrate_server']
    assert sorted(e['event'] for e in _events(api, uuid, 'revertResize')
                  ) == ['compute_finish_revert_resize',
                        'compute_revert_resize']
    assert action(api, uuid, {'migrate': None},
                  token=ADMIN).status_code == 202
    wait_status(api, uuid, 'VERIFY_RESIZE')
    assert action(api, uuid, {'confirmResize': None}).status_code == 204
    notifications.wait_for(uuid, 'instance.resize_confirm.end')
    assert 'conductor_migrate_server' in [
        e['event'] for e in _events(api, uuid, 'migrate')]
    assert [e['event'] for e in _events(api, uuid, 'confirmResize')] == [
        'compute_confirm_resize']
