"""A compute restarted in the middle of a resize (Nova's _init_instance):
no server stays in a resize task state and no claim leaks. The servers
are booted and resized through the REST API; the interrupted moves are
the states a compute that died mid-step leaves (written here: a running
plane cannot kill one of its computes halfway through a driver call;
tests/real kills a process)."""
import os

import pytest

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.placement import allocations
from nova_lite.virt import fake
from tests.functional.api.resize_helpers import boot
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.compute import test_action_recovery as recovery
from tests.functional.conftest import wait_for

SOURCE, DEST = 'cell1-compute1', 'cell1-compute2'
SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}


@pytest.fixture
def api(plane):
    return client_of(plane)


def _restart(plane, host):
    # (test_action_recovery restarts its HOST: pointed at host for this
    # restart only, so that later modules find it as they expect.)
    saved, recovery.HOST = recovery.HOST, host
    try:
        recovery._restart_compute(plane)
    finally:
        recovery.HOST = saved


def _interrupted_move(plane, uuid, task_state, status, on_host,
                      prepared=True, vm_state='active', number=None):
    """What a compute that died in task_state leaves: the migration
    (in status) holding the source allocation, the instance the
    destination's, the instance on on_host with its migration context,
    the source guest shut off and set aside."""
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, plane.cells['cell1']) as cctxt:
        node = {n.host: n for n in objects.ComputeNodeList.get_all(cctxt)}
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        medium = embedded_flavor.EmbeddedFlavor.from_flavor(
            objects.Flavor.get_by_flavor_id(admin, 'medium'))
        migration = objects.Migration(
            cctxt, uuid='0f0f0f0f-0000-4000-8000-%012d' % (
                number or len(task_state or '') * 10 + len(status)),
            instance_uuid=uuid, source_compute=SOURCE,
            source_node=node[SOURCE].hypervisor_hostname,
            dest_compute=DEST, dest_node=node[DEST].hypervisor_hostname,
            dest_host=DEST, status=status, migration_type='resize',
            old_instance_type_id=inst.flavor.id,
            new_instance_type_id=medium.id, project_id=inst.project_id,
            user_id=inst.user_id, hidden=False, cross_cell_move=False)
        migration.create()
        allocations.claim(admin, uuid, {node[DEST].uuid: {
            'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}},
            move_to=migration.uuid)
        if prepared:
            inst.old_flavor = inst.flavor
            inst.new_flavor = medium
            inst.migration_context = {
                'migration_id': migration.id,
                'migration_uuid': migration.uuid, 'source_compute': SOURCE,
                'source_node': migration.source_node, 'dest_compute': DEST,
                'dest_node': migration.dest_node,
                'migration_type': 'resize', 'old_vm_state': 'active'}
        if vm_state == 'resized':
            inst.flavor = medium
        inst.host = on_host
        inst.node = node[on_host].hypervisor_hostname
        inst.task_state = task_state
        inst.vm_state = vm_state
        inst.save()
    if on_host == DEST:
        source = next(s for s in plane.services if s.host == SOURCE)
        source.endpoints[0].driver.migrate_disk_and_power_off(uuid, DEST)
    return migration


def test_restarts_put_interrupted_moves_back_on_their_source(api, plane):
    names = ('preparing', 'powering-off', 'finishing', 'confirming')
    uuids = {name: boot(api, name, token=ADMIN,
                        availability_zone='nova:' + SOURCE)
             for name in names}
    moves = {
        # The destination died preparing (nothing recorded yet).
        'preparing': _interrupted_move(plane, uuids['preparing'],
                                       'resize_prep', 'pre-migrating',
                                       SOURCE, prepared=False),
        # The source died powering off.
        'powering-off': _interrupted_move(plane, uuids['powering-off'],
                                          'resize_migrating', 'migrating',
                                          SOURCE),
        # The destination died starting the guest.
        'finishing': _interrupted_move(plane, uuids['finishing'],
                                       'resize_finish', 'post-migrating',
                                       DEST),
        # The source died confirming.
        'confirming': _interrupted_move(plane, uuids['confirming'], None,
                                        'confirming', DEST,
                                        vm_state='resized')}
    assert held(moves['finishing'].uuid) == {SOURCE: SMALL}
    _restart(plane, SOURCE)
    _restart(plane, DEST)
    for name in names[:3]:
        uuid, migration = uuids[name], moves[name]
        server = wait_status(api, uuid, 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
        assert server['flavor']['original_name'] == 'small'
        wait_for(lambda: held(uuid) == {SOURCE: SMALL}, timeout=30,
                 message='source allocation back')
        assert held(migration.uuid) == {}
        assert migration_of(uuid)['status'] == 'error'
    confirmed = uuids['confirming']
    server = wait_status(api, confirmed, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == DEST
    assert held(confirmed) == {DEST: MEDIUM}
    assert held(moves['confirming'].uuid) == {}
    assert migration_of(confirmed)['status'] == 'confirmed'
    assert guests(plane, SOURCE) == sorted(uuids[n] for n in names[:3])
    assert guests(plane, DEST) == []


def _guest(plane, host, uuid):
    return fake.load_guests(os.path.join(plane.state_dir, 'fake-hypervisor'),
                            host).get(uuid)


def test_restarts_finish_interrupted_reverts(api, plane):
    """Issue 16: a source restarted while a revert was being finished
    finishes it (the instance still on the destination, or back on the
    source); a revert whose destination has not dropped its claim yet
    is left to the destination, whose own restart sends it back; a
    destination restarted in resize_migrated sends it back too."""
    names = ('dest-done', 'on-source', 'dest-pending', 'migrated')
    uuids = {name: boot(api, name, token=ADMIN,
                        availability_zone='nova:' + SOURCE)
             for name in names}
    moves = {}
    for number, name in enumerate(names[:3], 1):
        moves[name] = _interrupted_move(
            plane, uuids[name], 'resize_reverting', 'reverting',
            SOURCE if name == 'on-source' else DEST, vm_state='resized',
            number=900 + number)
    # The destination did its part of these two (guest and claim gone);
    # not yet for dest-pending.
    for name in ('dest-done', 'on-source'):
        allocations.remove_allocations(nova_context.get_admin_context(),
                                       uuids[name])
    moves['migrated'] = _interrupted_move(
        plane, uuids['migrated'], 'resize_migrated', 'post-migrating', DEST)
    _restart(plane, SOURCE)
    for name in ('dest-done', 'on-source'):
        uuid = uuids[name]
        server = wait_status(api, uuid, 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
        assert server['flavor']['original_name'] == 'small'
        assert held(uuid) == {SOURCE: SMALL}
        assert held(moves[name].uuid) == {}
        assert migration_of(uuid)['status'] == 'reverted'
        guest = _guest(plane, SOURCE, uuid)
        assert (guest['memory_mb'], guest['power_state']) == (512, 'running')
    # Left to the destination: both claims still held.
    pending = uuids['dest-pending']
    assert held(pending) == {DEST: MEDIUM}
    assert held(moves['dest-pending'].uuid) == {SOURCE: SMALL}
    _restart(plane, DEST)
    for name in ('dest-pending', 'migrated'):
        uuid = uuids[name]
        server = wait_status(api, uuid, 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
        assert server['flavor']['original_name'] == 'small'
        wait_for(lambda: held(uuid) == {SOURCE: SMALL}, timeout=30,
                 message='source allocation back')
        assert held(moves[name].uuid) == {}
    assert migration_of(pending)['status'] == 'reverted'
    assert migration_of(uuids['migrated'])['status'] == 'error'
    assert guests(plane, SOURCE) == sorted(uuids.values())
    assert guests(plane, DEST) == []
