"""A compute restarted in the middle of a shelve, an offload, an
unshelve or a rescue leaves every server usable, with no allocation or
image left behind: the shelve is undone (its queued image deleted), the
offload finished, the unshelve's spawn undone (SHELVED_OFFLOADED, its
claim freed), the rescue ended ACTIVE. The interrupted task states are
written as the steps before the stop left them."""
from nova_lite import context as nova_context
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.placement import allocations
from tests.conftest import set_override
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.compute.test_action_recovery import _boot_on_host
from tests.functional.compute.test_action_recovery import _restart_compute
from tests.functional.compute.test_action_recovery import api  # noqa
from tests.functional.compute.test_action_recovery import HOST


def _write(plane, uuid, **values):
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, plane.cells['cell1']) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        for name, value in values.items():
            setattr(inst, name, value)
        inst.save()


def _claims(uuid):
    return allocations.get_allocations(nova_context.get_admin_context(),
                                       uuid)


def test_restart_leaves_shelve_unshelve_and_rescue_usable(api, plane):  # noqa
    set_override('shelved_offload_time', -1)
    admin = nova_context.get_admin_context()
    images = image_api.API()
    shelving = _boot_on_host(api, 'shelving')
    queued = images.create(admin, 'shelving-shelved', status='queued',
                           properties={'instance_uuid': shelving})['id']
    _write(plane, shelving, task_state='shelving_image_uploading')

    offloading = _boot_on_host(api, 'offloading')
    assert act(api, offloading, {'shelve': None},
               token=ADMIN).status_code == 202
    settled(api, offloading, 'SHELVED', token=ADMIN)
    _write(plane, offloading, task_state='shelving_offloading')

    spawning = _boot_on_host(api, 'spawning')
    assert act(api, spawning, {'shelve': None},
               token=ADMIN).status_code == 202
    settled(api, spawning, 'SHELVED', token=ADMIN)
    assert act(api, spawning, {'shelveOffload': None},
               token=ADMIN).status_code == 202
    settled(api, spawning, 'SHELVED_OFFLOADED', token=ADMIN)
    _write(plane, spawning, task_state='spawning', host=HOST,
           node=HOST)

    rescuing = _boot_on_host(api, 'rescuing')
    _write(plane, rescuing, task_state='rescuing')

    _restart_compute(plane)
    body = settled(api, shelving, 'ACTIVE', token=ADMIN)
    assert body['OS-EXT-STS:power_state'] == 1
    assert _claims(shelving)
    try:
        images.get(admin, queued)
        raise AssertionError('the interrupted shelve left its image')
    except Exception as exc:
        assert 'could not be found' in str(exc)
    body = settled(api, offloading, 'SHELVED_OFFLOADED', token=ADMIN)
    assert body['OS-EXT-SRV-ATTR:host'] is None
    assert _claims(offloading) == {}
    body = settled(api, spawning, 'SHELVED_OFFLOADED', token=ADMIN)
    assert body['OS-EXT-SRV-ATTR:host'] is None
    assert _claims(spawning) == {}
    settled(api, rescuing, 'ACTIVE', token=ADMIN)
    # Each goes on to be used.
    for uuid in (offloading, spawning):
        assert act(api, uuid, {'unshelve': None},
                   token=ADMIN).status_code == 202
        settled(api, uuid, 'ACTIVE', token=ADMIN)
        assert _claims(uuid)
    assert act(api, rescuing, {'rescue': None},
               token=ADMIN).status_code == 200
    settled(api, rescuing, 'RESCUE', token=ADMIN)
