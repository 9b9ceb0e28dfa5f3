"""A super conductor stopped between two steps of a cross-cell resize,
confirm or revert (simulated: the tests' step observer raises SimulatedCrash,
so nothing after it runs and no rollback either), then started again (its
compute_task endpoint's init_host): each move is completed or rolled
back, leaving one visible copy of the server, its mapping in that
copy's cell and allocations matching it."""
import nova_lite_test_hooks as step_hooks
import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite.volume import api as volume_api
from tests.functional.api.cross_cell_helpers import HOST
from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_volumes import _image_to_volume
from tests.functional.api.test_volumes import Volumes
from tests.functional.conftest import wait_for

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}

# step -> (what is interrupted, how the server ends after the restart)
STEPS = [
    ('target_db_setup', 'resize', 'source'),
    ('prep_resize_at_dest', 'resize', 'source'),
    ('prep_resize_at_source', 'resize', 'source'),
    ('finish_resize_at_dest', 'resize', 'source'),
    ('mapping_swap', 'resize', 'verify'),
    ('confirm_at_source', 'confirmResize', 'target'),
    ('confirm_delete_source', 'confirmResize', 'target'),
    ('confirm_finish', 'confirmResize', 'target'),
    ('revert_sync_to_source', 'revertResize', 'source'),
    ('revert_mapping_swap', 'revertResize', 'source'),
    ('revert_at_dest', 'revertResize', 'source'),
    ('revert_delete_target', 'revertResize', 'source'),
    ('revert_finish_at_source', 'revertResize', 'source'),
]


def _crash_at(step, trigger):
    before = len(step_hooks.CRASHES)
    with step_hooks.observing(step_hooks.crash_at(step)):
        trigger()
        wait_for(lambda: len(step_hooks.CRASHES) > before,
                 timeout=30, message='crash at %s' % step)


def _crash_resize(xp, uuid, step, into):
    """Resize uuid to medium with every compute outside cell `into`
    disabled, the super conductor 'crashing' at step."""
    others = [h for h in xp._computes() if not h.startswith(into + '-')]
    xp._set_enabled(others, False)
    try:
        _crash_at(step, lambda: xp.act(
            uuid, {'resize': {'flavorRef': 'medium'}}))
    finally:
        xp._set_enabled(others, True)
    return migration_of(uuid)


@pytest.mark.parametrize('step,interrupted,ends', STEPS)
def test_a_restart_completes_or_rolls_back(xplane,  # noqa: F811
                                           step, interrupted, ends):
    xp = xplane
    uuid = xp.boot(cell='cell1')
    source = xp.host(uuid)
    if interrupted == 'resize':
        _crash_resize(xp, uuid, step, 'cell2')
    else:
        xp.resize_into(uuid, 'cell2')
        status = 204 if interrupted == 'confirmResize' else 202
        _crash_at(step, lambda: xp.act(
            uuid, {interrupted: None}, status=status))
    migration = migration_of(uuid)
    # The super conductor starts again.
    conductor_manager.ComputeTaskManager().init_host(xp.ctxt, None)
    expected = {'source': 'ACTIVE', 'target': 'ACTIVE',
                'verify': 'VERIFY_RESIZE'}[ends]
    server = xp.wait_status(uuid, expected)
    host = server[HOST]
    cell = host.split('-')[0]
    assert cell == ('cell1' if ends == 'source' else 'cell2')
    assert xp.copies(uuid) in ({cell: False},
                               {cell: False, 'cell1': True})
    assert xp.mapped_cell(uuid) == cell
    if ends == 'source':
        assert host == source
        assert held(uuid) == {source: SMALL}
        assert held(migration['uuid']) == {}
        assert guests(xp.plane, source) == [uuid]
    elif ends == 'target':
        assert held(uuid) == {host: MEDIUM}
        assert held(migration['uuid']) == {}
        assert guests(xp.plane, source) == []
        assert xp.copies(uuid) == {cell: False}
    else:
        assert held(uuid) == {host: MEDIUM}
        assert held(migration['uuid']) == {source: SMALL}
        xp.act(uuid, {'confirmResize': None}, status=204)
        xp.wait_status(uuid, 'ACTIVE')
    for h in xp.hosts_of('cell1') + xp.hosts_of('cell2'):
        assert [g for g in guests(xp.plane, h) if g.startswith(uuid)] in (
            [], [uuid])
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


@pytest.mark.parametrize('step', ['target_db_setup', 'prep_resize_at_dest',
                                  'prep_resize_at_source'])
def test_a_rolled_back_volume_backed_move_keeps_its_attachment(
        xplane, step):  # noqa: F811
    """The target copy carries the source's attachment ids until the
    destination's prep replaces them: rolling back a move stopped
    before then must not delete the attachment the source still uses
    (found by tests/real/test_cross_cell_kill.py)."""
    xp = xplane
    uuid = xp.boot(cell='cell1', imageRef='', flavorRef='small',
                   block_device_mapping_v2=[_image_to_volume()])
    source = xp.host(uuid)
    volume_id = xp.show(uuid, version='2.79')[
        'os-extended-volumes:volumes_attached'][0]['id']
    volumes = Volumes(xp.plane.endpoint)

    def attachments():
        # The attachments' status is the volume service's own (Cinder's
        # volume bodies do not show it).
        return [(a['server_id'], a['host_name'], a['attach_status'])
                for a in volume_api.API().get(xp.ctxt, volume_id)[
                    'attachments']]
    assert attachments() == [(uuid, source, 'attached')]
    _crash_resize(xp, uuid, step, 'cell2')
    conductor_manager.ComputeTaskManager().init_host(xp.ctxt, None)
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST] == source
    assert xp.copies(uuid) == {'cell1': False}
    assert attachments() == [(uuid, source, 'attached')]
    assert volumes.status(volume_id) == 'in-use'
    # Still movable: resized into cell2 and confirmed, with its volume.
    dest = xp.resize_into(uuid, 'cell2')[HOST]
    xp.act(uuid, {'confirmResize': None}, status=204)
    xp.wait_status(uuid, 'ACTIVE')
    assert attachments() == [(uuid, dest, 'attached')]
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)
