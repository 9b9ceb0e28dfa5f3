"""Resize and cold migration through the REST API on a running plane:
VERIFY_RESIZE with the migration holding the source allocation and the
instance the destination's, confirm (ACTIVE, or SHUTOFF when it was
stopped), revert (also when the source is full), migrate (admin; a host
at 2.56), same-host resize, delete in VERIFY_RESIZE and during a resize,
auto-confirm."""
import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from tests.conftest import set_override
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
from tests.functional import conftest as fconftest
from tests.functional.conftest import wait_for

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}
HOST = 'OS-EXT-SRV-ATTR:host'


@pytest.fixture
def plane(tmp_path, conf):
    yield from one_cell_plane(tmp_path)


@pytest.fixture
def api(plane):
    return client_of(plane)


@pytest.fixture
def two_cells(tmp_path, conf):
    """The default plane: two cells of two computes."""
    p = fconftest.start_plane(tmp_path / 'state')
    yield p
    fconftest.stop_plane(p)


def _resize(api, uuid, flavor='medium'):
    response = action(api, uuid, {'resize': {'flavorRef': flavor}})
    assert response.status_code == 202, response.text
    return wait_status(api, uuid, 'VERIFY_RESIZE')


def test_resize_to_verify_then_confirm(two_cells):
    plane, api = two_cells, client_of(two_cells)
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    response = action(api, uuid, {'resize': {'flavorRef': 'medium',
                                             'OS-DCF:diskConfig': 'AUTO'}})
    assert response.status_code == 202, response.text
    assert response.text == ''
    server = wait_status(api, uuid, 'VERIFY_RESIZE')
    dest = server[HOST]
    # Another host of the same cell (cross-cell moves are not done).
    assert dest != source and dest.split('-')[0] == source.split('-')[0]
    assert server['flavor']['original_name'] == 'medium'
    assert server['OS-EXT-STS:vm_state'] == 'resized'
    migration = migration_of(uuid)
    assert (migration['status'], migration['migration_type']) == (
        'finished', 'resize')
    assert (migration['source_compute'], migration['dest_compute']) == (
        source, dest)
    # The migration holds the source, the instance the destination.
    assert held(migration['uuid']) == {source: SMALL}
    assert held(uuid) == {dest: MEDIUM}
    assert guests(plane, source) == [uuid + '_resize']
    assert guests(plane, dest) == [uuid]
    # Confirming twice: the second finds no resize to confirm.
    assert action(api, uuid, {'confirmResize': None}).status_code == 204
    again = action(api, uuid, {'confirmResize': None})
    assert again.status_code in (400, 409), again.text
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == dest
    assert wait_migration(uuid, 'confirmed')
    assert held(migration['uuid']) == {}
    assert held(uuid) == {dest: MEDIUM}
    assert guests(plane, source) == []
    # A stopped server resizes shut off and confirms to SHUTOFF.
    assert action(api, uuid, {'os-stop': None}).status_code == 202
    wait_status(api, uuid, 'SHUTOFF')
    server = _resize(api, uuid, 'large')
    assert server['OS-EXT-STS:power_state'] == 4
    assert action(api, uuid, {'confirmResize': None}).status_code == 204
    wait_status(api, uuid, 'SHUTOFF')


def test_revert_goes_back_to_the_old_flavor_on_the_source(api, plane):
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    dest = _resize(api, uuid)[HOST]
    migration = migration_of(uuid)
    response = action(api, uuid, {'revertResize': None})
    assert response.status_code == 202, response.text
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    assert server['flavor']['original_name'] == 'small'
    assert wait_migration(uuid, 'reverted')
    assert held(uuid) == {source: SMALL}
    assert held(migration['uuid']) == {}
    assert guests(plane, source) == [uuid]
    assert guests(plane, dest) == []
    # The request spec has the old flavor again: a migration now moves
    # the small flavor.
    assert action(api, uuid, {'migrate': None},
                  token=ADMIN).status_code == 202
    server = wait_status(api, uuid, 'VERIFY_RESIZE')
    assert server['flavor']['original_name'] == 'small'
    assert held(uuid) == {server[HOST]: SMALL}


def test_migrate_is_for_administrators_and_may_name_a_host(api, plane):
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    assert action(api, uuid, {'migrate': None}).status_code == 403
    # 2.56 names a host (in the server's cell); not below it.
    cell = source.split('-')[0]
    target = [h for h in ('%s-compute1' % cell, '%s-compute2' % cell)
              if h != source][0]
    # Below 2.56 (as Nova) the value is not looked at: a host in it is
    # ignored, the scheduler picks (tested where migrate is shown moving).
    assert action(api, uuid, {'migrate': {'host': source}}, '2.56',
                  token=ADMIN).status_code == 400
    assert action(api, uuid, {'migrate': {'host': 'nosuch'}}, '2.56',
                  token=ADMIN).status_code == 400
    response = action(api, uuid, {'migrate': {'host': target}}, '2.56',
                      token=ADMIN)
    assert response.status_code == 202, response.text
    server = wait_status(api, uuid, 'VERIFY_RESIZE')
    assert server[HOST] == target
    assert server['flavor']['original_name'] == 'small'
    migration = migration_of(uuid)
    assert migration['migration_type'] == 'migration'
    assert held(migration['uuid']) == {source: SMALL}
    assert held(uuid) == {target: SMALL}
    # Delete in VERIFY_RESIZE: both hosts and both allocations cleaned.
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='deleted')
    wait_for(lambda: held(uuid) == {} and held(migration['uuid']) == {},
             timeout=30, message='allocations released')
    wait_for(lambda: guests(plane, source) == [] and
             guests(plane, target) == [], timeout=30, message='guests gone')
    assert migration_of(uuid)['status'] in ('confirmed', 'error')


@pytest.fixture
def small_plane(tmp_path, conf):
    """One cell, one compute with room for 4 GB of disk; resizes may
    go to the same host; auto-confirm after 1 second."""
    set_override('local_gb', 4, group='fake_driver')
    set_override('allow_resize_to_same_host', True)
    set_override('resize_confirm_window', 1)
    set_override('periodic_interval', 1)
    p = fconftest.start_plane(tmp_path / 'state', cells=1,
                              computes_per_cell=1)
    yield p
    fconftest.stop_plane(p)


def test_same_host_resize_and_auto_confirm(small_plane):
    api = client_of(small_plane)
    uuid = boot(api)
    host = show(api, uuid)[HOST]
    response = action(api, uuid, {'resize': {'flavorRef': 'medium'}})
    assert response.status_code == 202, response.text
    wait_for(lambda: (migration_of(uuid) or {}).get('status') in (
        'finished', 'confirming', 'confirmed'), timeout=30,
        message='resized')
    migration = wait_migration(uuid, 'confirmed', timeout=30)
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == host == migration['dest_compute']
    assert server['flavor']['original_name'] == 'medium'
    assert held(uuid) == {host: MEDIUM}
    assert held(migration['uuid']) == {}
    assert guests(small_plane, host) == [uuid]
    # Full: the migration's claim is gone, so 2 GB are left, not 3.
    assert action(api, uuid, {'migrate': None},
                  token=ADMIN).status_code == 202
    # (a cold migration never stays on its host: no valid host)
    wait_for(lambda: migration_of(uuid)['status'] == 'error', timeout=30,
             message='migration failed')
    server = wait_status(api, uuid, 'ACTIVE')
    assert held(uuid) == {host: MEDIUM}


def test_revert_succeeds_when_the_source_is_full(tmp_path, conf):
    set_override('local_gb', 3, group='fake_driver')
    plane = fconftest.start_plane(tmp_path / 'state', cells=1,
                                  computes_per_cell=2)
    try:
        api = client_of(plane)
        uuid = boot(api)
        source = show(api, uuid)[HOST]
        dest = _resize(api, uuid)[HOST]
        # Fill the source: 3 GB, 1 held by the migration, 2 by another.
        filler = boot(api, 'filler', 'medium', token=ADMIN,
                      availability_zone='nova:%s' % source)
        assert show(api, filler)[HOST] == source
        response = action(api, uuid, {'revertResize': None})
        assert response.status_code == 202
        server = wait_status(api, uuid, 'ACTIVE')
        assert server[HOST] == source
        assert held(uuid) == {source: SMALL}
        assert held(filler) == {source: MEDIUM}
        assert guests(plane, dest) == []
    finally:
        fconftest.stop_plane(plane)


def test_delete_racing_a_resize_leaves_nothing_behind(api, plane, conf):
    uuid = boot(api)
    source = show(api, uuid)[HOST]
    # The destination takes a while to start the guest: delete then.
    conf.set_override('delay_methods', {'finish_migration': '1.0'},
                      group='fake_driver')
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}}
                  ).status_code == 202
    wait_for(lambda: show(api, uuid)['OS-EXT-STS:task_state'] ==
             'resize_finish', timeout=30, message='finishing')
    dest = show(api, uuid)[HOST]
    migration = migration_of(uuid)
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='deleted')
    wait_for(lambda: held(uuid) == {} and held(migration['uuid']) == {}
             and guests(plane, source) == [] and guests(plane, dest) == [],
             timeout=30, message='nothing left')
    assert migration_of(uuid)['status'] == 'error'


def test_a_move_that_arrives_after_the_delete_leaves_no_trace(api, plane):
    """The super conductor's migrate_server for a server deleted after
    the API sent it (the message waited in the queue): no migration
    record, no allocation, the server stays deleted."""
    uuid = boot(api)
    admin = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, uuid)
    with nova_context.target_cell(admin, mapping.cell_mapping) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, uuid)
    instance.task_state = 'resize_prep'     # as the API left it
    flavor = embedded_flavor.EmbeddedFlavor.from_flavor(
        objects.Flavor.get_by_flavor_id(admin, 'medium'))
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='deleted')
    conductor_manager.ComputeTaskManager().migrate_server(
        admin, instance, flavor)
    assert migration_of(uuid) is None
    assert held(uuid) == {}
    with nova_context.target_cell(admin, mapping.cell_mapping) as cctxt:
        gone = objects.Instance.get_by_uuid(cctxt, uuid, read_deleted='yes')
    assert gone.deleted and gone.task_state is None
