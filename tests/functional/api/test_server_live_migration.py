"""Live migration through the REST API on a running plane (one cell of
two computes): os-migrateLive to the other host (scheduler-picked, or
named, or forced) with the server ACTIVE all along, the allocations
(the migration holding the source while it runs) and port bindings
after; /servers/{id}/migrations with progress, force_complete, abort
(running and queued); failures at each compute step rolled back; the
microversion rules of the body; a restart of the source in the middle.
"""
import nova_lite_test_hooks as step_hooks
import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import service_version
from nova_lite.placement import allocations
from tests.conftest import set_override
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import boot as boot_server
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import one_cell_plane
from tests.functional.api.resize_helpers import show
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_server_resize_errors import _set_version
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.compute import test_resize_recovery as resize_recovery
from tests.functional import conftest as fconftest
from tests.functional.conftest import wait_for
from tests.functional.notification_fixtures import notifications  # noqa

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
SOURCE, DEST = 'cell1-compute1', 'cell1-compute2'
HOST = 'OS-EXT-SRV-ATTR:host'
MiB = 1024 * 1024


@pytest.fixture
def plane(tmp_path, conf):
    yield from one_cell_plane(tmp_path)


@pytest.fixture
def api(plane):
    return client_of(plane)


def boot(api, name, **extra):
    """A server with a port (its bindings move with it)."""
    return boot_server(api, name=name, networks='auto', **extra)


def _live(api, uuid, host=None, version='2.25', token=ADMIN, **extra):
    body = {'os-migrateLive': dict({'host': host,
                                    'block_migration': 'auto'}, **extra)}
    return action(api, uuid, body, version=version, token=token)


def _other(plane, host):
    return [h for h in (SOURCE, DEST) if h != host][0]


def _bindings(uuid):
    ctxt = nova_context.get_admin_context()
    found = network_api.API().get_instance_bindings(ctxt, uuid)
    return sorted((b['host'], b['status']) for bs in found.values()
                  for b in bs)


def _wait_done(api, uuid, status='completed'):
    server = wait_status(api, uuid, 'ACTIVE')
    assert wait_migration(uuid, status)
    return server


def test_live_migration_moves_the_server_and_its_claims(api, plane):
    uuid = boot(api, 'live1')
    source = show(api, uuid)[HOST]
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    response = _live(api, uuid)
    assert response.status_code == 202, response.text
    server = _wait_done(api, uuid)
    dest = server[HOST]
    assert dest != source
    assert server['OS-EXT-STS:vm_state'] == 'active'
    assert server['OS-EXT-STS:power_state'] == 1
    migration = migration_of(uuid)
    assert migration['migration_type'] == 'live-migration'
    assert (migration['source_compute'], migration['dest_compute']) == (
        source, dest)
    assert held(uuid) == {dest: SMALL}
    assert held(migration['uuid']) == {}
    assert guests(plane, source) == []
    assert guests(plane, dest) == [uuid]
    assert _bindings(uuid) == [(dest, 'ACTIVE')]
    # The instance action and its events.
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  token=ADMIN).json()['instanceActions']
    assert actions[0]['action'] == 'live-migration'
    # os-migrations lists it with its type and status.
    listed = api('GET', '/os-migrations?instance_uuid=%s' % uuid,
                 version='2.23', token=ADMIN).json()['migrations']
    assert [(m['migration_type'], m['status']) for m in listed] == [
        ('live-migration', 'completed')]
    # Back to the source, naming it (administrators only).
    assert _live(api, uuid, host=source, token=MEMBER).status_code == 403
    assert _live(api, uuid, host=source).status_code == 202
    server = _wait_done(api, uuid)
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL}


def test_progress_force_complete_and_abort(api, plane):
    set_override('live_migration_seconds', 30, group='fake_driver')
    uuid = boot(api, name='live2')
    source = show(api, uuid)[HOST]
    assert _live(api, uuid).status_code == 202
    migration = wait_migration(uuid, 'running')
    mid = migration['id']
    server = show(api, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'MIGRATING', 'migrating')
    # While it runs: the migration holds the source, the instance the
    # destination; the destination has its incoming guest.
    assert held(migration['uuid']) == {source: SMALL}
    assert held(uuid) == {migration['dest_compute']: SMALL}
    assert guests(plane, migration['dest_compute']) == [uuid]

    def progressing():
        found = api('GET', '/servers/%s/migrations' % uuid, version='2.80',
                    token=ADMIN).json()['migrations']
        return found and found[0]['memory_processed_bytes'] and found[0]
    listed = wait_for(progressing, timeout=10)
    assert listed['memory_total_bytes'] == 512 * MiB
    assert listed['disk_total_bytes'] == 1024 * MiB      # block migration
    assert listed['status'] == 'running'
    assert listed['uuid'] == migration['uuid']
    assert listed['project_id'] and listed['user_id']
    one = api('GET', '/servers/%s/migrations/%s' % (uuid, mid),
              version='2.23', token=ADMIN)
    assert one.status_code == 200 and 'uuid' not in one.json()['migration']
    # Abort: rolled back, cancelled, everything on the source again.
    response = api('DELETE', '/servers/%s/migrations/%s' % (uuid, mid),
                   version='2.24', token=ADMIN)
    assert response.status_code == 202, response.text
    server = _wait_done(api, uuid, 'cancelled')
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL}
    assert held(migration['uuid']) == {}
    wait_for(lambda: guests(plane, migration['dest_compute']) == [],
             timeout=10)
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    # Not in progress any more: abort is a 400, force_complete a 409
    # (the server is not migrating).
    again = api('DELETE', '/servers/%s/migrations/%s' % (uuid, mid),
                version='2.24', token=ADMIN)
    assert again.status_code == 409, again.text
    # Force-complete: done long before the 30 simulated seconds.
    assert _live(api, uuid).status_code == 202
    migration = wait_migration(uuid, 'running')
    response = api('POST', '/servers/%s/migrations/%s/action'
                   % (uuid, migration['id']), {'force_complete': None},
                   version='2.22', token=ADMIN)
    assert response.status_code == 202, response.text
    server = _wait_done(api, uuid)
    assert server[HOST] == migration['dest_compute']


@pytest.mark.parametrize('method,dest_side', [
    ('check_can_live_migrate_destination', True),
    ('check_can_live_migrate_source', False),
    ('pre_live_migration', True),
    ('live_migration', False),
])
def test_a_failing_step_rolls_back(api, plane, method, dest_side):
    uuid = boot(api, name='fail-' + method[:10])
    source = show(api, uuid)[HOST]
    dest = _other(plane, source)
    where = dest if dest_side else source
    set_override('fail_methods', ['%s@%s' % (method, where)],
                 group='fake_driver')
    # Asynchronous from 2.34: a 202, then the rollback.
    assert _live(api, uuid, version='2.34').status_code == 202
    assert wait_migration(uuid, 'error')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL}
    assert held(migration_of(uuid)['uuid']) == {}
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    wait_for(lambda: guests(plane, dest) == [], timeout=10)
    assert guests(plane, source) == [uuid]
    # The failure is the server's fault, shown while it is ACTIVE to an
    # administrator? Nova shows a fault only in ERROR: the action's
    # event carries it.
    events = _events(api, uuid)
    assert any(e['result'] == 'Error' for e in events), events


def test_pre_checks_answer_400_before_2_34(api, plane):
    uuid = boot(api, name='sync')
    source = show(api, uuid)[HOST]
    set_override('fail_methods', ['check_can_live_migrate_source'],
                 group='fake_driver')
    response = _live(api, uuid, version='2.33')
    assert response.status_code == 400, response.text
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    # The server's own host: 400 before 2.34.
    set_override('fail_methods', [], group='fake_driver')
    response = _live(api, uuid, host=source, version='2.33')
    assert response.status_code == 400, response.text
    wait_status(api, uuid, 'ACTIVE')


def test_body_microversions(api, plane):
    uuid = boot(api, name='bodies')
    source = show(api, uuid)[HOST]
    dest = _other(plane, source)
    bad = [
        ('2.1', {'host': None, 'block_migration': 'auto',
                 'disk_over_commit': False}),           # no auto yet
        ('2.1', {'host': None, 'block_migration': False}),
        ('2.25', {'host': None, 'block_migration': False,
                  'disk_over_commit': False}),         # gone at 2.25
        ('2.25', {'host': dest, 'block_migration': False, 'force': True}),
        ('2.30', {'host': None, 'block_migration': False, 'force': True}),
        ('2.68', {'host': dest, 'block_migration': False, 'force': True}),
        ('2.25', {'block_migration': False}),            # host required
        ('2.25', {'host': 'no-such-host', 'block_migration': False}),
    ]
    for version, body in bad:
        response = action(api, uuid, {'os-migrateLive': body},
                          version=version, token=ADMIN)
        assert response.status_code == 400, (version, body, response.text)
    assert show(api, uuid)['OS-EXT-STS:task_state'] is None
    # Forced to a named host (2.30): no scheduler, same outcome.
    response = action(api, uuid, {'os-migrateLive': {
        'host': dest, 'block_migration': False, 'force': True}},
        version='2.30', token=ADMIN)
    assert response.status_code == 202, response.text
    assert _wait_done(api, uuid)[HOST] == dest
    assert held(uuid) == {dest: SMALL}
    # 2.1 body with disk_over_commit.
    response = action(api, uuid, {'os-migrateLive': {
        'host': None, 'block_migration': False,
        'disk_over_commit': False}}, version='2.1', token=ADMIN)
    assert response.status_code == 202, response.text
    assert _wait_done(api, uuid)[HOST] == source
    # A stopped server cannot be live-migrated.
    assert action(api, uuid, {'os-stop': None}).status_code == 202
    wait_status(api, uuid, 'SHUTOFF')
    assert _live(api, uuid).status_code == 409


def test_queued_beyond_max_concurrent_and_abort_queued(api, plane):
    set_override('live_migration_seconds', 30, group='fake_driver')
    first = boot(api, name='q1')
    source = show(api, first)[HOST]
    second = boot(api, name='q2', availability_zone='nova:%s' % source,
                  token=ADMIN)
    assert show(api, second)[HOST] == source
    assert _live(api, first).status_code == 202
    wait_migration(first, 'running')
    assert _live(api, second).status_code == 202
    queued = wait_migration(second, 'queued')
    # Aborting a queued one: 400 before 2.65, done from 2.65.
    path = '/servers/%s/migrations/%s' % (second, queued['id'])
    assert api('DELETE', path, version='2.64',
               token=ADMIN).status_code == 400
    assert api('DELETE', path, version='2.65',
               token=ADMIN).status_code == 202
    wait_migration(second, 'cancelled')
    wait_status(api, second, 'ACTIVE')
    running = migration_of(first)
    assert api('POST', '/servers/%s/migrations/%s/action'
               % (first, running['id']), {'force_complete': None},
               version='2.22', token=ADMIN).status_code == 202
    _wait_done(api, first)
    assert show(api, second)[HOST] == source
    assert held(second) == {source: SMALL}


def _events(api, uuid):
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  version='2.84', token=ADMIN).json()['instanceActions']
    request = [a for a in actions
               if a['action'] == 'live-migration'][0]['request_id']
    return api('GET', '/servers/%s/os-instance-actions/%s'
               % (uuid, request), version='2.84',
               token=ADMIN).json()['instanceAction']['events']


def _interrupted(plane, uuid, status, on_host):
    """What a source that died with its live migration in status leaves:
    the migration holding the source allocation, the instance the
    destination's, the destination's INACTIVE bindings (ACTIVE when
    past the switch) and its incoming guest, the instance migrating on
    on_host."""
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, plane.cells['cell1']) as cctxt:
        node = {n.host: n for n in objects.ComputeNodeList.get_all(cctxt)}
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        migration = objects.Migration(
            cctxt, uuid='0e0e0e0e-0000-4000-8000-%012d' % len(status),
            instance_uuid=uuid, source_compute=SOURCE,
            source_node=node[SOURCE].hypervisor_hostname,
            dest_compute=DEST, dest_node=node[DEST].hypervisor_hostname,
            status=status, migration_type='live-migration',
            old_instance_type_id=inst.flavor.id,
            new_instance_type_id=inst.flavor.id,
            project_id=inst.project_id, user_id=inst.user_id,
            hidden=False, cross_cell_move=False)
        migration.create()
        allocations.claim(admin, uuid, {node[DEST].uuid: SMALL},
                          move_to=migration.uuid)
        net = network_api.API()
        net.create_instance_bindings(admin, uuid, DEST)
        if on_host == DEST:
            net.activate_instance_bindings(admin, uuid, DEST)
        inst.host = on_host
        inst.node = node[on_host].hypervisor_hostname
        inst.task_state = 'migrating'
        inst.save()
    dest = next(s for s in plane.services if s.host == DEST)
    dest.endpoints[0].driver.pre_live_migration(uuid, 1, 512, 0)
    return migration


def test_restarts_mid_live_migration_end_on_one_host(api, plane):
    """Before the switch (running), a restart of the source rolls the
    live migration back; past it (post-migrating, the instance on the
    destination), a restart of the destination finishes it."""
    first = boot(api, name='r1', availability_zone='nova:' + SOURCE,
                 token=ADMIN)
    migration = _interrupted(plane, first, 'running', SOURCE)
    _restart(plane, SOURCE)
    assert wait_migration(first, 'error')
    server = wait_status(api, first, 'ACTIVE')
    assert server[HOST] == SOURCE
    assert held(first) == {SOURCE: SMALL}
    assert held(migration.uuid) == {}
    assert _bindings(first) == [(SOURCE, 'ACTIVE')]
    wait_for(lambda: guests(plane, DEST) == [], timeout=10)
    assert guests(plane, SOURCE) == [first]

    second = boot(api, name='r2', availability_zone='nova:' + SOURCE,
                  token=ADMIN)
    migration = _interrupted(plane, second, 'post-migrating', DEST)
    _restart(plane, DEST)
    assert wait_migration(second, 'completed')
    server = wait_status(api, second, 'ACTIVE')
    assert server[HOST] == DEST
    assert held(second) == {DEST: SMALL}
    assert guests(plane, DEST) == [second]
    assert held(migration.uuid) == {}
    # The source's guest goes at the source's own restart (a guest of a
    # server living elsewhere).
    _restart(plane, SOURCE)
    wait_for(lambda: guests(plane, SOURCE) == [first], timeout=10)
    assert _bindings(second) == [(DEST, 'ACTIVE')]


def _restart(plane, host):
    resize_recovery._restart(plane, host)


def test_destination_stopped_in_pre_live_migration_is_rolled_back(api,
                                                                  plane):
    """The destination dies in pre_live_migration (a crash there: the
    source's call gets no answer); started again, it puts the
    migration in error and the source, still waiting, rolls it back
    (not after [DEFAULT] long_rpc_timeout)."""
    uuid = boot(api, 'pre-crash', availability_zone='nova:' + SOURCE,
                token=ADMIN)
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at('live_pre_at_dest')):
        assert _live(api, uuid, version='2.34').status_code == 202
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30)
    migration = migration_of(uuid)
    assert migration['status'] == 'preparing'
    assert held(migration['uuid']) == {SOURCE: SMALL}
    _restart(plane, DEST)
    assert wait_migration(uuid, 'error')
    _on_source(api, plane, uuid, SOURCE)
    assert held(migration['uuid']) == {}
    # It live-migrates again afterwards.
    assert _live(api, uuid).status_code == 202
    assert _wait_done(api, uuid)[HOST] == DEST


@pytest.mark.parametrize('step', ['live_schedule', 'live_dispatch'])
def test_conductor_steps_fail_or_crash_and_recover(api, plane, step):
    """A failure at a step of the super conductor rolls the live
    migration back at once; a crash there (no rollback) is rolled back
    by the super conductor's next start."""
    uuid = boot(api, 'steps-' + step, availability_zone='nova:' + SOURCE,
                token=ADMIN)
    source = SOURCE
    with step_hooks.observing(step_hooks.fail_at(step)):
        assert _live(api, uuid, version='2.34').status_code == 202
        assert wait_migration(uuid, 'error')
        wait_status(api, uuid, 'ACTIVE')
    _on_source(api, plane, uuid, source)
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at(step)):
        assert _live(api, uuid, version='2.34').status_code == 202
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30)
    crashed = migration_of(uuid)
    assert crashed['status'] == 'accepted'
    assert show(api, uuid)['OS-EXT-STS:task_state'] == 'migrating'
    if step == 'live_dispatch':
        assert held(crashed['uuid']) == {source: SMALL}
        assert _bindings(uuid) == sorted([(source, 'ACTIVE'),
                                          (DEST, 'INACTIVE')])
    conductor_manager.ComputeTaskManager().init_host(
        nova_context.get_admin_context(), None)
    assert migration_of(uuid)['status'] == 'error'
    _on_source(api, plane, uuid, source)
    assert held(crashed['uuid']) == {}
    # It live-migrates again afterwards.
    assert _live(api, uuid).status_code == 202
    assert _wait_done(api, uuid)[HOST] == DEST


def _on_source(api, plane, uuid, source):
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL}
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    assert guests(plane, source) == [uuid]
    # The destination drops its incoming guest on a cast.
    wait_for(lambda: guests(plane, DEST) == [], timeout=10)


def _boot_in_group(api, name, group):
    body = _server(name, networks='auto')
    body['os:scheduler_hints'] = {'group': group}
    response = api('POST', '/servers', body, version='2.37', token=MEMBER)
    assert response.status_code == 202, response.text
    uuid = response.json()['server']['id']
    wait_status(api, uuid, 'ACTIVE')
    return uuid


def test_notifications_group_rules_and_old_computes(
        api, plane, notifications):  # noqa: F811
    # An anti-affinity group whose other member is on the only other
    # host: no valid host (400 below 2.34), the server stays.
    group = api('POST', '/os-server-groups', {'server_group': {
        'name': 'apart', 'policies': ['anti-affinity']}},
        token=MEMBER).json()['server_group']['id']
    first, second = (_boot_in_group(api, name, group)
                     for name in ('g1', 'g2'))
    assert show(api, first)[HOST] != show(api, second)[HOST]
    response = _live(api, first, version='2.33')
    assert response.status_code == 400, response.text
    assert 'No valid host' in response.text
    assert wait_status(api, first, 'ACTIVE')[HOST] != show(
        api, second)[HOST]
    # The notifications of a live migration, from both computes.
    api('DELETE', '/servers/%s' % second, token=MEMBER)
    wait_for(lambda: api('GET', '/servers/%s' % second,
                         token=ADMIN).status_code == 404, timeout=30)
    assert _live(api, first).status_code == 202
    _wait_done(api, first)
    for event in ('live_migration_pre', 'live_migration_post',
                  'live_migration_post_dest'):
        for phase in ('start', 'end'):
            notifications.wait_for(first, 'instance.%s.%s' % (event, phase))
    # Computes of the cell too old: 409, nothing written.
    for host in (SOURCE, DEST):
        _set_version(plane, host, 20)
    try:
        response = _live(api, first)
        assert response.status_code == 409, response.text
        assert show(api, first)['OS-EXT-STS:task_state'] is None
    finally:
        for host in (SOURCE, DEST):
            _set_version(plane, host, service_version.SERVICE_VERSION)


def test_late_check_refuses_a_forced_move_onto_a_member(api, plane):
    """A forced live migration (no scheduler) to the host of another
    member of its anti-affinity group: the destination's pre-check
    refuses it (400 below 2.34, as every pre-check; the migration in
    error after 2.34), the server stays ACTIVE on its source with its
    claims as before."""
    group = api('POST', '/os-server-groups', {'server_group': {
        'name': 'apart', 'policies': ['anti-affinity']}},
        token=ADMIN).json()['server_group']['id']
    members = []
    for name, host in (('g1', SOURCE), ('g2', DEST)):
        body = _server(name, availability_zone='nova:' + host)
        body['os:scheduler_hints'] = {'group': group}
        response = api('POST', '/servers', body, version='2.37',
                       token=ADMIN)
        assert response.status_code == 202, response.text
        members.append(response.json()['server']['id'])
    for uuid in members:
        wait_status(api, uuid, 'ACTIVE')
    mover = members[0]
    response = _live(api, mover, host=DEST, version='2.30', force=True)
    assert response.status_code == 400, response.text
    assert 'anti-affinity' in response.text
    first = migration_of(mover)
    assert first['status'] == 'error' and first['dest_compute'] == DEST
    response = _live(api, mover, host=DEST, version='2.67', force=True)
    assert response.status_code == 202, response.text
    wait_for(lambda: migration_of(mover)['id'] != first['id']
             and migration_of(mover)['status'] == 'error', timeout=30,
             message='forced live migration refused')
    server = wait_status(api, mover, 'ACTIVE')
    assert server[HOST] == SOURCE
    assert server['OS-EXT-STS:task_state'] is None
    assert held(mover) == {SOURCE: SMALL}
    assert held(migration_of(mover)['uuid']) == {}
    assert guests(plane, DEST) == [members[1]]


def test_delete_mid_copy_and_a_failure_after_the_switch(api, plane):
    """A server deleted while its memory is copied: nothing of it stays
    on either host. A destination that cannot run the guest after the
    switch: the server ERROR there with its fault, no task, the
    migration error, the source's allocation freed."""
    set_override('live_migration_seconds', 2, group='fake_driver')
    uuid = boot(api, 'deleted', availability_zone='nova:' + SOURCE,
                token=ADMIN)
    assert _live(api, uuid).status_code == 202
    migration = wait_migration(uuid, 'running')
    assert api('DELETE', '/servers/%s' % uuid,
               token=ADMIN).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid,
                         token=ADMIN).status_code == 404, timeout=30)
    assert wait_migration(uuid, 'error')
    wait_for(lambda: guests(plane, DEST) == [] and
             guests(plane, SOURCE) == [], timeout=30)
    assert held(uuid) == {} and held(migration['uuid']) == {}

    set_override('live_migration_seconds', 0, group='fake_driver')
    set_override('fail_methods',
                 ['post_live_migration_at_destination@' + DEST],
                 group='fake_driver')
    uuid = boot(api, 'post-dest', availability_zone='nova:' + SOURCE,
                token=ADMIN)
    assert _live(api, uuid).status_code == 202
    server = wait_status(api, uuid, 'ERROR')
    assert server[HOST] == DEST
    assert 'post_live_migration_at_destination' in show(
        api, uuid)['fault']['message']
    migration = wait_migration(uuid, 'error')
    assert held(uuid) == {DEST: SMALL}
    assert held(migration['uuid']) == {}
    assert guests(plane, SOURCE) == []


@pytest.fixture
def two_cells(tmp_path, conf):
    """The default plane: two cells of two computes."""
    p = fconftest.start_plane(tmp_path / 'two')
    yield p
    fconftest.stop_plane(p)


def test_a_host_of_another_cell_is_refused(two_cells):
    api = client_of(two_cells)
    uuid = boot(api, 'cells', availability_zone='nova:cell1-compute1',
                token=ADMIN)
    other = 'cell2-compute1'
    response = _live(api, uuid, host=other, version='2.33')
    assert response.status_code == 400, response.text
    assert 'cell' in response.json()['badRequest']['message']
    # Asynchronous from 2.34: the action's event says why.
    assert _live(api, uuid, host=other, version='2.34').status_code == 202
    assert wait_migration(uuid, 'error')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == 'cell1-compute1'
    assert held(uuid) == {'cell1-compute1': SMALL}
    # The other compute of its own cell is fine.
    assert _live(api, uuid, version='2.34').status_code == 202
    assert _wait_done(api, uuid)[HOST] == 'cell1-compute2'


def test_abort_while_preparing(api, plane):
    """From 2.65 an abort takes a live migration still preparing its
    destination: it stops there, rolled back, cancelled."""
    set_override('delay_methods', {'pre_live_migration@' + DEST: '2'},
                 group='fake_driver')
    uuid = boot(api, 'preparing', availability_zone='nova:' + SOURCE,
                token=ADMIN)
    assert _live(api, uuid).status_code == 202
    migration = wait_migration(uuid, 'preparing')
    path = '/servers/%s/migrations/%s' % (uuid, migration['id'])
    assert api('DELETE', path, version='2.64',
               token=ADMIN).status_code == 400
    assert api('DELETE', path, version='2.65',
               token=ADMIN).status_code == 202
    assert wait_migration(uuid, 'cancelled')
    _on_source(api, plane, uuid, SOURCE)
    assert held(migration['uuid']) == {}
