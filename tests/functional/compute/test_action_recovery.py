"""A compute restarted in the middle of server actions finishes them
(Nova's _init_instance): no server stays in a task state. The servers
are booted through the REST API on one host; the interrupted task
states are what the API wrote before casts that the stopped compute
never ran."""
import pytest

from nova_lite.compute.service import manager as compute_manager
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import service
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN

HOST = 'cell1-compute1'


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def _boot_on_host(api, name):
    uuid = api('POST', '/servers', _server(name, availability_zone='nova:'
                                                 + HOST),
               version='2.37', token=ADMIN).json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE', token=ADMIN)
    return uuid


def _interrupt(plane, uuid, task_state):
    """The task state the API sets before its cast."""
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, plane.cells['cell1']) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        inst.task_state = task_state
        inst.save()


def _restart_compute(plane):
    index, old = next((i, s) for i, s in enumerate(plane.services)
                      if s.host == HOST)
    old.stop()
    new = service.Service(HOST, old.binary, old.topic,
                          [compute_manager.ComputeManager(HOST)],
                          base_context=old.context, transport=old.transport,
                          context_hook=old.context_hook)
    plane.services[index] = new
    new.start()


def test_restart_finishes_interrupted_actions(api, plane):
    stopping = _boot_on_host(api, 'stopping')
    pausing = _boot_on_host(api, 'pausing')
    rebooting = _boot_on_host(api, 'rebooting')
    starting = _boot_on_host(api, 'starting')
    assert act(api, starting, {'os-stop': None},
               token=ADMIN).status_code == 202
    settled(api, starting, 'SHUTOFF', token=ADMIN)
    _interrupt(plane, stopping, 'powering-off')
    _interrupt(plane, pausing, 'pausing')
    _interrupt(plane, rebooting, 'reboot_started_hard')
    _interrupt(plane, starting, 'powering-on')
    _restart_compute(plane)
    for uuid, status, power in ((stopping, 'SHUTOFF', 4),
                                (pausing, 'PAUSED', 3),
                                (rebooting, 'ACTIVE', 1),
                                (starting, 'ACTIVE', 1)):
        body = settled(api, uuid, status, token=ADMIN)
        assert body['OS-EXT-STS:power_state'] == power
    # The guests' states are the driver's too (on disk).
    guests = compute_manager.fake.load_driver(HOST).list_guests()
    assert guests[stopping]['power_state'] == 'shutdown'
    assert guests[pausing]['power_state'] == 'paused'
    assert guests[starting]['power_state'] == 'running'
