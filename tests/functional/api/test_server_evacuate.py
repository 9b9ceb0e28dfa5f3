"""Evacuate through the REST API on a running plane (one cell of three
computes): a compute stopped and forced down (PUT /os-services/{id}),
its server rebuilt on another host with its addresses (port bindings
moved), an `evacuation` migration, the evacuate action and
instance.evacuate; both hosts held until the source compute starts
again, destroys its stale guest and frees the source allocation (the
migration completed). Refusals as Nova's (a compute still up, unknown
or same host, bad bodies, states, members); no valid host and a failed
rebuild leave the server where it was (ERROR for the failed rebuild)
with the migration in error and the claims freed; anti-affinity kept;
a super conductor stopped before the hand-off and a destination
compute restarted mid-rebuild are recovered on start."""
import hashlib
import os

import nova_lite_test_hooks as step_hooks
import pytest

from nova_lite.compute.service import manager as compute_manager
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor.tasks import evacuate as evacuate_task
from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.placement import consistency
from nova_lite import service
from nova_lite.virt import fake
from nova_lite.volume import api as volume_api
from tests.conftest import set_override
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import boot
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import show
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_volumes import _image_to_volume
from tests.functional import conftest as fconftest
from tests.functional.conftest import wait_for

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
HOST = 'OS-EXT-SRV-ATTR:host'
HOSTS = ['cell1-compute1', 'cell1-compute2', 'cell1-compute3']
EVACUATE = {'evacuate': {'onSharedStorage': False}}


@pytest.fixture(scope='module')
def plane(tmp_path_factory):
    p = fconftest.start_plane(tmp_path_factory.mktemp('evac') / 'state',
                              cells=1, computes_per_cell=3)
    yield p
    fconftest.stop_plane(p)


@pytest.fixture(scope='module')
def api(plane):
    return client_of(plane)


@pytest.fixture
def down(plane, api):
    """down(host): host's compute stopped and forced down; started and
    up again after the test (if the test did not start it)."""
    stopped = []

    def make_down(host):
        _stop(plane, host)
        _forced_down(api, host, True)
        stopped.append(host)
    yield make_down
    for host in stopped:
        if not _running(plane, host):
            _start(plane, host)
        _forced_down(api, host, False)


def _service(plane, host):
    return next((i, s) for i, s in enumerate(plane.services)
                if s.host == host)


def _running(plane, host):
    return not getattr(_service(plane, host)[1], '_evac_stopped', False)


def _stop(plane, host):
    old = _service(plane, host)[1]
    old.stop()
    old._evac_stopped = True


def _start(plane, host):
    """host's compute started again (a new process would: its init_host
    runs the start-up recovery)."""
    index, old = _service(plane, host)
    if not getattr(old, '_evac_stopped', False):
        old.stop()
    new = service.Service(host, old.binary, old.topic,
                          [compute_manager.ComputeManager(host)],
                          base_context=old.context, transport=old.transport,
                          context_hook=old.context_hook)
    plane.services[index] = new
    new.start()


def _forced_down(api, host, value):
    found = api('GET', '/os-services?binary=nova-compute&host=%s' % host,
                version='2.53', token=ADMIN).json()['services']
    resp = api('PUT', '/os-services/%s' % found[0]['id'],
               {'forced_down': value}, version='2.53', token=ADMIN)
    assert resp.status_code == 200, resp.text


def _boot_on(api, host, name='vm', **extra):
    return boot(api, name=name, token=ADMIN,
                availability_zone='nova:' + host, **extra)


def _evacuate(api, uuid, body=None, version='2.1', status=200):
    resp = action(api, uuid, body or EVACUATE, version=version, token=ADMIN)
    assert resp.status_code == status, resp.text
    return resp


def _actions(api, uuid):
    """{action: [(event, result)]} of the server's actions."""
    found = {}
    for act in api('GET', '/servers/%s/os-instance-actions' % uuid,
                   token=ADMIN).json()['instanceActions']:
        events = api('GET', '/servers/%s/os-instance-actions/%s' % (
            uuid, act['request_id']), token=ADMIN).json()[
                'instanceAction']['events']
        found[act['action']] = sorted((e['event'], e['result'])
                                      for e in events)
    return found


def _bound_to(uuid):
    ctxt = nova_context.get_admin_context()
    bindings = network_api.API().get_instance_bindings(ctxt, uuid)
    return sorted({b['host'] for found in bindings.values() for b in found
                   if b.get('status', 'ACTIVE') == 'ACTIVE'})


def test_evacuate_rebuilds_elsewhere_and_the_source_cleans_up(
        plane, api, down, notifications):
    uuid = _boot_on(api, HOSTS[0], networks='auto')
    before = show(api, uuid)
    assert _bound_to(uuid) == [HOSTS[0]]
    # A compute that is up refuses it (400, Nova's words).
    up = action(api, uuid, EVACUATE, token=ADMIN)
    assert up.status_code == 400, up.text
    assert ('Compute service of %s is still in use.' % HOSTS[0]
            in up.text)
    down(HOSTS[0])
    resp = _evacuate(api, uuid)
    # Before 2.14 the new admin password is in the body.
    assert set(resp.json()) == {'adminPass'} and resp.json()['adminPass']
    server = wait_status(api, uuid, 'ACTIVE')
    dest = server[HOST]
    assert dest in HOSTS[1:]
    assert server['addresses'] == before['addresses'] != {}
    assert _bound_to(uuid) == [dest]
    migration = wait_migration(uuid, 'done')
    assert (migration['migration_type'], migration['source_compute'],
            migration['dest_compute']) == ('evacuation', HOSTS[0], dest)
    # Both hosts held until the source comes back.
    assert held(uuid) == {dest: SMALL}
    assert held(migration['uuid']) == {HOSTS[0]: SMALL}
    assert guests(plane, dest) == [uuid]
    # The answered password is the guest's.
    guest = fake.load_guests(os.path.join(plane.state_dir,
                                          'fake-hypervisor'), dest)[uuid]
    assert guest['admin_password_sha256'] == hashlib.sha256(
        resp.json()['adminPass'].encode()).hexdigest()
    assert guests(plane, HOSTS[0]) == [uuid]      # the stale one
    # As placement's consistency check expects them.
    report = consistency.check(nova_context.get_admin_context())
    assert report.problems == []
    events = _actions(api, uuid)['evacuate']
    assert ('conductor_evacuate_server', 'Success') in events
    assert ('compute_evacuate_instance', 'Success') in events
    for event_type in ('instance.evacuate', 'instance.rebuild.start',
                       'instance.rebuild.end'):
        notifications.wait_for(uuid, event_type)
    listed = api('GET', '/os-migrations?migration_type=evacuation',
                 version='2.59', token=ADMIN).json()['migrations']
    assert [m['uuid'] for m in listed] == [migration['uuid']]

    _start(plane, HOSTS[0])
    wait_migration(uuid, 'completed')
    assert guests(plane, HOSTS[0]) == []
    assert held(migration['uuid']) == {}
    assert held(uuid) == {dest: SMALL}
    assert show(api, uuid)[HOST] == dest
    assert action(api, uuid, {'os-stop': None},
                  token=ADMIN).status_code == 202
    wait_status(api, uuid, 'SHUTOFF')
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_evacuate_refusals(plane, api, down):
    uuid = _boot_on(api, HOSTS[0])
    # The owner, a member: 403; another project's server: 404.
    own = boot(api, name='own')
    assert action(api, own, EVACUATE, token=MEMBER).status_code == 403
    assert action(api, uuid, EVACUATE, token=MEMBER).status_code == 404
    api('DELETE', '/servers/%s' % own, token=ADMIN)
    paused = _boot_on(api, HOSTS[0], name='paused')
    assert action(api, paused, {'pause': None},
                  token=ADMIN).status_code == 202
    wait_status(api, paused, 'PAUSED')
    down(HOSTS[0])
    for body, version, status, words in (
            ({'evacuate': {}}, '2.1', 400, 'onSharedStorage'),
            ({'evacuate': {'onSharedStorage': 'maybe'}}, '2.1', 400, ''),
            ({'evacuate': {'onSharedStorage': True, 'adminPass': 'x'}},
             '2.1', 400, "admin password can't be changed"),
            ({'evacuate': {'onSharedStorage': False}}, '2.14', 400,
             'onSharedStorage'),
            ({'evacuate': {'force': True}}, '2.14', 400, 'force'),
            ({'evacuate': {'force': True}}, '2.29', 400,
             "Can't force to a non-provided destination"),
            ({'evacuate': {'host': HOSTS[1], 'force': True}}, '2.68', 400,
             'force'),
            ({'evacuate': {'host': 'nosuch'}}, '2.29', 404,
             'Compute host nosuch not found.'),
            ({'evacuate': {'host': HOSTS[0]}}, '2.29', 400,
             "The target host can't be the same one."),
            ({'evacuate': {'host': 'a b'}}, '2.29', 400, 'host'),
            ({'evacuate': None}, '2.29', 400, '')):
        resp = action(api, uuid, body, version=version, token=ADMIN)
        assert resp.status_code == status, (body, version, resp.text)
        assert words in resp.text, resp.text
    # A state that refuses it: 409.
    resp = action(api, paused, {'evacuate': {}}, version='2.14',
                  token=ADMIN)
    assert resp.status_code == 409, resp.text
    assert show(api, uuid)['OS-EXT-STS:task_state'] is None
    assert migration_of(uuid) is None
    for server in (uuid, paused):
        api('DELETE', '/servers/%s' % server, token=ADMIN)


def test_no_valid_host_leaves_the_server_where_it_was(plane, api, down):
    uuid = _boot_on(api, HOSTS[0])
    down(HOSTS[0])
    # The other computes disabled: no valid host.
    with _disabled(api, HOSTS[1:]):
        _evacuate(api, uuid, {'evacuate': {}}, version='2.14')
        migration = wait_migration(uuid, 'error')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == HOSTS[0]
    assert held(uuid) == {HOSTS[0]: SMALL}
    assert held(migration['uuid']) == {}
    assert ('conductor_evacuate_server', 'Error') in _actions(
        api, uuid)['evacuate']
    # Evacuated again, to a host it names and forces (2.29: claimed
    # without the scheduler), it goes there.
    _evacuate(api, uuid, {'evacuate': {'host': HOSTS[2], 'force': True}},
              version='2.29')
    server = wait_status(api, uuid, 'ACTIVE')
    assert wait_migration(uuid, 'done')['dest_compute'] == HOSTS[2]
    assert server[HOST] == HOSTS[2]
    assert held(uuid) == {HOSTS[2]: SMALL}
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


class _disabled(object):
    def __init__(self, api, hosts):
        self.api, self.hosts = api, hosts

    def _set(self, what):
        for host in self.hosts:
            resp = self.api('PUT', '/os-services/%s' % what,
                            {'host': host, 'binary': 'nova-compute'},
                            token=ADMIN)
            assert resp.status_code == 200, resp.text

    def __enter__(self):
        self._set('disable')

    def __exit__(self, *exc):
        self._set('enable')


def test_failed_rebuild_ends_in_error_with_claims_freed(plane, api, down):
    uuid = _boot_on(api, HOSTS[0])
    down(HOSTS[0])
    set_override('fail_spawn_on_hosts', [HOSTS[1]], group='fake_driver')
    try:
        _evacuate(api, uuid, {'evacuate': {'host': HOSTS[1]}},
                  version='2.29')
        server = wait_status(api, uuid, 'ERROR')
    finally:
        set_override('fail_spawn_on_hosts', [], group='fake_driver')
    assert server[HOST] == HOSTS[0]
    assert server['fault']['code'] == 500
    migration = wait_migration(uuid, 'error')
    assert held(uuid) == {HOSTS[0]: SMALL}
    assert held(migration['uuid']) == {}
    assert uuid not in guests(plane, HOSTS[1])
    # An administrator evacuates it again from ERROR.
    _evacuate(api, uuid, {'evacuate': {'host': HOSTS[2]}}, version='2.29')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == HOSTS[2]
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_anti_affinity_is_kept(plane, api, down):
    group = api('POST', '/os-server-groups', {'server_group': {
        'name': 'anti', 'policies': ['anti-affinity']}},
        token=ADMIN).json()['server_group']['id']
    hints = {'os:scheduler_hints': {'group': group}}
    members = []
    for host in HOSTS[:2]:
        body = _boot_body(host, hints)
        created = api('POST', '/servers', body, version='2.37',
                      token=ADMIN)
        assert created.status_code == 202, created.text
        members.append(created.json()['server']['id'])
    for uuid in members:
        wait_status(api, uuid, 'ACTIVE')
    down(HOSTS[0])
    _evacuate(api, members[0], {'evacuate': {}}, version='2.14')
    server = wait_status(api, members[0], 'ACTIVE')
    # Not the other member's host.
    assert server[HOST] == HOSTS[2]
    for uuid in members:
        api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_late_check_refuses_a_forced_evacuation_onto_a_member(plane, api,
                                                              down):
    """A forced evacuation (2.29, no scheduler) to the host of another
    member of its anti-affinity group: the destination's late check
    refuses it; the server ends in ERROR on its source with the
    violation as its fault, the claim there freed, the migration in
    error."""
    group = api('POST', '/os-server-groups', {'server_group': {
        'name': 'anti', 'policies': ['anti-affinity']}},
        token=ADMIN).json()['server_group']['id']
    hints = {'os:scheduler_hints': {'group': group}}
    members = []
    for host in HOSTS[:2]:
        created = api('POST', '/servers', _boot_body(host, hints),
                      version='2.37', token=ADMIN)
        assert created.status_code == 202, created.text
        members.append(created.json()['server']['id'])
    for uuid in members:
        wait_status(api, uuid, 'ACTIVE')
    down(HOSTS[0])
    _evacuate(api, members[0], {'evacuate': {'host': HOSTS[1],
                                             'force': True}},
              version='2.29')
    server = wait_status(api, members[0], 'ERROR')
    assert server[HOST] == HOSTS[0]
    assert 'anti-affinity' in server['fault']['message']
    migration = wait_migration(members[0], 'error')
    assert migration['dest_compute'] == HOSTS[1]
    assert held(members[0]) == {HOSTS[0]: SMALL}
    assert held(migration['uuid']) == {}
    assert members[0] not in guests(plane, HOSTS[1])
    assert held(members[1]) == {HOSTS[1]: SMALL}
    for uuid in members:
        api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def _boot_body(host, hints):
    body = _server('member', availability_zone='nova:' + host)
    body.update(hints)
    return body


def test_stopped_server_and_2_95_end_shutoff(plane, api, down):
    stopped = _boot_on(api, HOSTS[0], name='stopped')
    running = _boot_on(api, HOSTS[0], name='running')
    assert action(api, stopped, {'os-stop': None},
                  token=ADMIN).status_code == 202
    wait_status(api, stopped, 'SHUTOFF')
    down(HOSTS[0])
    _evacuate(api, stopped, {'evacuate': {}}, version='2.14')
    resp = _evacuate(api, running, {'evacuate': {}}, version='2.95')
    assert resp.text == ''
    for uuid in (stopped, running):
        server = wait_status(api, uuid, 'SHUTOFF')
        assert server[HOST] != HOSTS[0]
        assert server['OS-EXT-STS:power_state'] == 4
        api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_conductor_stopped_before_hand_off_is_rolled_back(plane, api,
                                                          down):
    uuid = _boot_on(api, HOSTS[0])
    down(HOSTS[0])
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at('dispatch')):
        _evacuate(api, uuid, {'evacuate': {}}, version='2.14')
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30,
                 message='crash at dispatch')
    migration = migration_of(uuid)
    assert migration['status'] == 'accepted'
    assert show(api, uuid)['OS-EXT-STS:task_state'] == 'rebuilding'
    # The scheduler claimed a destination for it.
    assert held(migration['uuid']) == {HOSTS[0]: SMALL}
    conductor_manager.ComputeTaskManager().init_host(
        nova_context.get_admin_context(), None)
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == HOSTS[0]
    assert migration_of(uuid)['status'] == 'error'
    assert held(uuid) == {HOSTS[0]: SMALL}
    assert held(migration['uuid']) == {}
    assert ('conductor_evacuate_server', 'Error') in _actions(
        api, uuid)['evacuate']
    assert evacuate_task.recover(nova_context.get_admin_context()) == {}
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_destination_restarted_mid_rebuild_is_undone(plane, api, down):
    uuid = _boot_on(api, HOSTS[0])
    down(HOSTS[0])
    _evacuate(api, uuid, {'evacuate': {'host': HOSTS[1]}}, version='2.29')
    wait_status(api, uuid, 'ACTIVE')
    # What a destination killed while spawning leaves: the migration
    # migrating, the server on it in rebuild_spawning.
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, plane.cells['cell1']) as cctxt:
        migration = objects.Migration.get_by_uuid(
            cctxt, migration_of(uuid)['uuid'])
        migration.status = 'migrating'
        migration.save()
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        inst.task_state = instance_obj.REBUILD_SPAWNING
        inst.migration_context = {'migration_type': 'evacuation',
                                  'migration_uuid': migration.uuid}
        inst.save()
    _start(plane, HOSTS[1])
    server = wait_status(api, uuid, 'ERROR')
    assert server[HOST] == HOSTS[0]
    assert migration_of(uuid)['status'] == 'error'
    assert held(uuid) == {HOSTS[0]: SMALL}
    assert held(migration.uuid) == {}
    assert uuid not in guests(plane, HOSTS[1])
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_destination_restarted_after_the_rebuild_finishes_it(plane, api,
                                                              down):
    """A destination that stops after the server was rebuilt on it, its
    migration not yet done: started again, it completes the evacuation
    (it does not undo a rebuild that finished)."""
    uuid = _boot_on(api, HOSTS[0], networks='auto')
    down(HOSTS[0])
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at('evacuate_done')):
        _evacuate(api, uuid, {'evacuate': {'host': HOSTS[1]}},
                  version='2.29')
        wait_for(lambda: len(step_hooks.CRASHES) > before, timeout=30,
                 message='crash at evacuate_done')
    assert migration_of(uuid)['status'] == 'migrating'
    _start(plane, HOSTS[1])
    assert wait_migration(uuid, 'done')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == HOSTS[1]
    assert guests(plane, HOSTS[1]) == [uuid]
    assert held(uuid) == {HOSTS[1]: SMALL}
    # The migration holds the down source until it returns.
    assert held(migration_of(uuid)['uuid']) == {HOSTS[0]: SMALL}
    assert _bound_to(uuid) == [HOSTS[1]]
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)


def test_volume_backed_server_keeps_its_volume(plane, api, down):
    uuid = _boot_on(api, HOSTS[0], imageRef='',
                    block_device_mapping_v2=[_image_to_volume()])
    volume_id = show(api, uuid, version='2.79')[
        'os-extended-volumes:volumes_attached'][0]['id']

    def attachments():
        ctxt = nova_context.get_admin_context()
        return [(a['server_id'], a['host_name'], a['attach_status'])
                for a in volume_api.API().get(ctxt, volume_id)[
                    'attachments']]
    assert attachments() == [(uuid, HOSTS[0], 'attached')]
    down(HOSTS[0])
    _evacuate(api, uuid, {'evacuate': {'host': HOSTS[1]}}, version='2.29')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == HOSTS[1]
    # Its root is the same volume, now attached on the destination; no
    # local root disk is claimed there.
    assert attachments() == [(uuid, HOSTS[1], 'attached')]
    assert held(uuid) == {HOSTS[1]: {'VCPU': 1, 'MEMORY_MB': 512}}
    _start(plane, HOSTS[0])
    wait_migration(uuid, 'completed')
    assert attachments() == [(uuid, HOSTS[1], 'attached')]
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)
