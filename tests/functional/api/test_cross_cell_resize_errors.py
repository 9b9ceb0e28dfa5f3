"""Cross-cell resize failures on one running two-cell plane: a failure
at each step of the chain (a driver failure on a compute, or a step
observer of the tests' plugin failing) leaves exactly one visible copy
in the source cell, ACTIVE on its host, the allocations as before the
move, no guest, snapshot image or port binding left at the
destination, the migration in error and the failure in the action's
events; a destination whose prep fails is replaced by an alternate of
the same cell."""
import nova_lite_test_hooks as step_hooks
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.volume import api as volume_api

from nova_lite.conf import CONF
from nova_lite.network import api as network_api
from tests.functional.api.cross_cell_helpers import HOST
from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_volumes import _image_to_volume
from tests.functional.conftest import wait_for
from tests.functional import db_faults

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}


@pytest.fixture
def fake_hooks(xplane):  # noqa: F811
    done = []

    def set_hook(name, value):
        CONF.set_override(name, value, group='fake_driver')
        done.append(name)
    yield set_hook
    for name in done:
        CONF.clear_override(name, group='fake_driver')


def _snapshots(xp):
    images = xp.api('GET', '/images', token=ADMIN).json()['images']
    return [i for i in images if 'resize-snapshot' in i['name']]


def _resize_fails(xp, uuid, target_cell):
    source = xp.host(uuid)
    others = [h for h in xp._computes()
              if not h.startswith(target_cell + '-')]
    xp._set_enabled(others, False)
    try:
        xp.act(uuid, {'resize': {'flavorRef': 'medium'}})
        wait_for(lambda: (migration_of(uuid) or {}).get('status') ==
                 'error', timeout=30, message='migration in error')
        server = xp.wait_status(uuid, 'ACTIVE')
    finally:
        xp._set_enabled(others, True)
    assert server[HOST] == source
    assert server['flavor']['original_name'] == 'small'
    source_cell = source.split('-')[0]
    assert xp.copies(uuid) == {source_cell: False}
    assert xp.mapped_cell(uuid) == source_cell
    migration = migration_of(uuid)
    assert held(uuid) == {source: SMALL}
    assert held(migration['uuid']) == {}
    assert guests(xp.plane, source) == [uuid]
    for host in xp.hosts_of(target_cell):
        assert guests(xp.plane, host) == []
    assert _snapshots(xp) == []
    for port in network_api.API().get_ports(xp.ctxt, device_id=uuid):
        assert port['binding:host_id'] == source
    # No binding to a destination left: the source's alone, ACTIVE.
    assert xp.bound(uuid) == [(source, 'ACTIVE')]
    return server


STEPS = [
    ('hook', 'target_db_setup'),
    ('hook', 'prep_resize_at_dest'),
    ('driver', 'check_resize_claim'),
    ('hook', 'prep_resize_at_source'),
    ('driver', 'snapshot'),
    ('driver', 'migrate_disk_and_power_off'),
    ('hook', 'finish_resize_at_dest'),
    ('driver', 'finish_migration'),
    ('hook', 'mapping_swap'),
]


@pytest.mark.parametrize('kind,step', STEPS)
def test_a_failure_at_each_step_rolls_back(xplane, fake_hooks,  # noqa: F811
                                           kind, step):
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    if kind == 'hook':
        with step_hooks.observing(step_hooks.fail_at(step)):
            _resize_fails(xp, uuid, 'cell2')
    else:
        fake_hooks('fail_methods', [step])
        _resize_fails(xp, uuid, 'cell2')
        fake_hooks('fail_methods', [])
    # And it can be resized again.
    server = xp.resize_into(uuid, 'cell2')
    assert server[HOST].startswith('cell2-')
    xp.act(uuid, {'confirmResize': None}, status=204)
    xp.wait_status(uuid, 'ACTIVE')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_prep_failing_at_the_destination_tries_an_alternate(
        xplane, fake_hooks):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell2', networks='auto')
    source = xp.host(uuid)
    first, second = xp.hosts_of('cell1')
    # Whichever the scheduler picks first fails; the other one takes it.
    fake_hooks('fail_methods', ['check_resize_claim@%s' % first])
    server = xp.resize_into(uuid, 'cell1')
    assert server[HOST] == second
    assert held(uuid) == {second: MEDIUM}
    assert guests(xp.plane, first) == []
    # The failed host's bindings went before the alternate was tried.
    assert xp.bound(uuid) == sorted([(second, 'ACTIVE'),
                                    (source, 'INACTIVE')])
    xp.act(uuid, {'revertResize': None})
    xp.wait_status(uuid, 'ACTIVE')
    assert xp.bound(uuid) == [(source, 'ACTIVE')]
    fake_hooks('fail_methods', ['check_resize_claim@%s' % second])
    server = xp.resize_into(uuid, 'cell1')
    assert server[HOST] == first
    assert held(uuid) == {first: MEDIUM}
    xp.act(uuid, {'revertResize': None})
    xp.wait_status(uuid, 'ACTIVE')
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


# --- a delete in the middle of a move ---------------------------------------

def _bound_to(xp, uuid, host, status):
    try:
        return (host, status) in xp.bound(uuid)
    except AssertionError:
        return False


def _nothing_left(xp, uuid, migration_uuid, port_ids):
    """What a delete leaves, checked like a user and an operator
    would: 404, no copy in any cell, the mapping queued for delete and
    the request spec gone, no allocation, guest, port, binding or
    snapshot image."""
    assert xp.api('GET', '/servers/%s' % uuid,
                  token=ADMIN).status_code == 404
    listed = xp.api('GET', '/servers/detail?all_tenants=1',
                    token=ADMIN).json()['servers']
    assert uuid not in [s['id'] for s in listed]
    assert xp.copies(uuid) == {}
    mapping = objects.InstanceMapping.get_by_instance_uuid(xp.ctxt, uuid)
    assert mapping.queued_for_delete
    with pytest.raises(exception.RequestSpecNotFound):
        objects.RequestSpec.get_by_instance_uuid(xp.ctxt, uuid)
    assert held(uuid) == {}
    assert held(migration_uuid) == {}
    for host in xp._computes():
        assert not [g for g in guests(xp.plane, host)
                    if g.startswith(uuid)], host
    net = network_api.API()
    assert net.get_ports(xp.ctxt, device_id=uuid) == []
    for port_id in port_ids:
        with pytest.raises(exception.PortNotFound):
            net.get_bindings(xp.ctxt, port_id)
    assert xp.binding_rows(port_ids) == []
    assert _snapshots(xp) == []


def _cleaned_up(xp, uuid, migration_uuid, port_ids):
    try:
        _nothing_left(xp, uuid, migration_uuid, port_ids)
        return True
    except (AssertionError, pytest.fail.Exception):
        return False


# (where the move is held, the driver method that holds it there (on
# the target cell's hosts or the source), when the move is in it)
def _in_prep_at_dest(xp, uuid, source):
    return (xp.copies(uuid).get('cell2') is True and
            len(xp.bound(uuid)) == 2)


def _in_prep_at_source(xp, uuid, source):
    return (migration_of(uuid) or {}).get('status') == 'migrating'


def _in_finish_at_dest(xp, uuid, source):
    return not _bound_to(xp, uuid, source, 'ACTIVE')


HOLDS = [
    ('prep_at_dest', 'check_resize_claim', 'target', _in_prep_at_dest,
     False),
    ('prep_at_source', 'power_off', 'source', _in_prep_at_source, False),
    ('finish_at_dest', 'finish_migration', 'target', _in_finish_at_dest,
     False),
    ('prep_at_dest-volume', 'check_resize_claim', 'target',
     _in_prep_at_dest, True),
    ('finish_at_dest-volume', 'finish_migration', 'target',
     _in_finish_at_dest, True),
]


@pytest.mark.parametrize('where,method,on,reached,volume_backed', HOLDS,
                         ids=[h[0] for h in HOLDS])
def test_a_delete_in_the_middle_of_a_move_wins(
        xplane, fake_hooks, where, method, on, reached,  # noqa: F811
        volume_backed):
    """DELETE /servers/{id} (as its user) while the cross-cell move is
    held in a step: the server goes as after any delete and the move,
    finding it gone, leaves nothing behind in either cell (a kept
    volume of a volume-backed server ends available, unattached)."""
    xp = xplane
    volume_id = None
    if volume_backed:
        uuid = xp.boot(cell='cell1', networks='auto', imageRef='',
                       block_device_mapping_v2=[_image_to_volume(
                           delete=False)])
        [volume] = xp.show(uuid, version='2.79')[
            'os-extended-volumes:volumes_attached']
        volume_id = volume['id']
    else:
        uuid = xp.boot(cell='cell1', networks='auto')
    source = xp.host(uuid)
    port_ids = [p['id'] for p in network_api.API().get_ports(
        xp.ctxt, device_id=uuid)]
    assert port_ids
    hosts = xp.hosts_of('cell2') if on == 'target' else [source]
    fake_hooks('delay_methods', {'%s@%s' % (method, h): 6 for h in hosts})
    others = xp.hosts_of('cell1')
    xp._set_enabled(others, False)
    try:
        xp.act(uuid, {'resize': {'flavorRef': 'medium'}})
        wait_for(lambda: reached(xp, uuid, source), timeout=30,
                 message='move held in %s' % where)
    finally:
        xp._set_enabled(others, True)
    migration = migration_of(uuid)
    assert migration['cross_cell_move']
    assert xp.api('DELETE', '/servers/%s' % uuid).status_code == 204
    xp.gone(uuid)
    try:
        wait_for(lambda: _cleaned_up(xp, uuid, migration['uuid'],
                                     port_ids),
                 timeout=60, message='nothing left of %s' % uuid)
    except AssertionError:
        # Say what is left.
        _nothing_left(xp, uuid, migration["uuid"], port_ids)
        raise
    # And stays so once the held step is over and the move gave up.
    wait_for(lambda: (migration_of(uuid) or {}).get('status') in (
        'error', 'failed'), timeout=60, message='move given up')
    _nothing_left(xp, uuid, migration['uuid'], port_ids)
    fake_hooks('delay_methods', {})
    if volume_id:
        volumes = volume_api.API()
        wait_for(lambda: volumes.get(xp.ctxt, volume_id)['status'] ==
                 'available', timeout=30, message='volume available')
        assert volumes.get(xp.ctxt, volume_id)['attachments'] == []
        volumes.delete(xp.ctxt, volume_id)


# --- a revert that fails ----------------------------------------------------

def _reverting(xp, uuid):
    """uuid resized from cell1 into cell2 (VERIFY_RESIZE): (source host,
    destination host, migration uuid)."""
    source = xp.host(uuid)
    server = xp.resize_into(uuid, 'cell2')
    return source, server[HOST], migration_of(uuid)['uuid']


def test_a_database_error_in_a_revert_is_retried_to_the_end(
        xplane):  # noqa: F811
    """A database error once at the revert's mapping swap (the super
    conductor's write of the instance mapping): the revert is tried
    again and completes, ACTIVE in the source cell with its own
    allocation alone -- not left in resize_reverting."""
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    source, dest, muuid = _reverting(xp, uuid)
    with db_faults.fail_once(r'^\s*UPDATE instance_mappings\b') as trap:
        xp.act(uuid, {'revertResize': None})
        server = xp.wait_status(uuid, 'ACTIVE')
    assert trap.fired
    assert server[HOST] == source
    assert xp.copies(uuid) == {'cell1': False}
    assert xp.mapped_cell(uuid) == 'cell1'
    wait_for(lambda: migration_of(uuid)['status'] == 'reverted',
             timeout=30, message='migration reverted')
    assert held(uuid) == {source: SMALL}
    assert held(muuid) == {}
    assert guests(xp.plane, dest) == []
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_a_revert_failing_before_the_mapping_swap_rolls_back(
        xplane):  # noqa: F811
    """The revert's step before the mapping swap fails every time: the
    server is back in VERIFY_RESIZE (no task state, the migration
    finished again, the failure in the action's events), and the
    revert asked for again completes."""
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    source, dest, muuid = _reverting(xp, uuid)
    with step_hooks.observing(step_hooks.fail_at('revert_mapping_swap')):
        xp.act(uuid, {'revertResize': None})
        wait_for(lambda: migration_of(uuid)['status'] == 'finished',
                 timeout=30, message='migration finished again')
        server = xp.wait_status(uuid, 'VERIFY_RESIZE')
    assert server[HOST] == dest
    assert xp.mapped_cell(uuid) == 'cell2'
    assert held(uuid) == {dest: MEDIUM} and held(muuid) == {source: SMALL}
    xp.act(uuid, {'revertResize': None})
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL} and held(muuid) == {}
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


@pytest.mark.parametrize('step', ['revert_at_dest',
                                  'revert_finish_at_source'])
def test_a_revert_failing_after_the_mapping_swap_ends_in_error(
        xplane, step):  # noqa: F811
    """A step of the revert after the mapping swap fails every time: the
    server ends in ERROR with a fault and no task state in the source
    cell, holding its own claim alone (the migration in error holds
    nothing), no copy or guest left in the target cell -- no restart of
    the super conductor needed; deleting it then frees everything."""
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    source, dest, muuid = _reverting(xp, uuid)
    with step_hooks.observing(step_hooks.fail_at(step)):
        xp.act(uuid, {'revertResize': None})
        server = xp.wait_status(uuid, 'ERROR')
    assert 'Reverting the resize failed' in server['fault']['message']
    assert step in server['fault']['message']
    assert server[HOST] == source
    wait_for(lambda: migration_of(uuid)['status'] == 'error',
             timeout=30, message='migration in error')
    assert xp.copies(uuid) == {'cell1': False}
    assert xp.mapped_cell(uuid) == 'cell1'
    assert held(uuid) == {source: SMALL} and held(muuid) == {}
    assert guests(xp.plane, dest) == []
    assert xp.api('DELETE', '/servers/%s' % uuid,
                  token=ADMIN).status_code == 204
    xp.gone(uuid)
    wait_for(lambda: held(uuid) == {} and not guests(xp.plane, source),
             timeout=60, message='nothing held by %s' % uuid)
