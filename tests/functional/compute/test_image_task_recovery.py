"""A compute restarted in the middle of a rebuild or a snapshot leaves
no server in a task state (as Nova's _init_instance): the rebuild goes
to ERROR with a fault, the snapshot's task is cleared. And a rebuild
that fails on the hypervisor leaves the server in ERROR, its action's
event an Error."""
import pytest

from tests.conftest import set_override
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_server_rebuild import _rebuild
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.compute.test_action_recovery import _boot_on_host
from tests.functional.compute.test_action_recovery import _interrupt
from tests.functional.compute.test_action_recovery import _restart_compute
from tests.functional.conftest import wait_for

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def test_restart_ends_interrupted_rebuilds_and_snapshots(api, plane):
    rebuilding = _boot_on_host(api, 'rebuilding')
    snapshotting = _boot_on_host(api, 'snapshotting')
    _interrupt(plane, rebuilding, 'rebuild_spawning')
    _interrupt(plane, snapshotting, 'image_uploading')
    _restart_compute(plane)
    body = settled(api, rebuilding, 'ERROR', token=ADMIN)
    assert 'interrupted' in body['fault']['message']
    settled(api, snapshotting, 'ACTIVE', token=ADMIN)


def test_failed_rebuild_leaves_the_server_in_error(api):
    uuid = _boot_on_host(api, 'vm')
    set_override('fail_spawn_for_names', ['doomed'], group='fake_driver')
    response = _rebuild(api, uuid, token=ADMIN, imageRef=CIRROS,
                        name='doomed')
    assert response.status_code == 202, response.text
    body = settled(api, uuid, 'ERROR', token=ADMIN)
    assert 'Simulated rebuild failure' in body['fault']['message']
    [action] = [a for a in api(
        'GET', '/servers/%s/os-instance-actions' % uuid, version='2.51',
        token=ADMIN).json()['instanceActions'] if a['action'] == 'rebuild']

    def finished_events():
        # The event finishes once the compute's method has raised, just
        # after the server shows ERROR.
        shown = api('GET', '/servers/%s/os-instance-actions/%s'
                    % (uuid, action['request_id']), version='2.51',
                    token=ADMIN).json()['instanceAction']
        events = [(e['event'], e['result']) for e in shown['events']]
        return events if all(result for _e, result in events) else None
    assert wait_for(finished_events, timeout=30, message='event done') == [
        ('compute_rebuild_instance', 'Error')]
    # A server in error may be rebuilt (and recovers).
    set_override('fail_spawn_for_names', [], group='fake_driver')
    assert _rebuild(api, uuid, token=ADMIN, imageRef=CIRROS,
                    name='vm').status_code == 202
    settled(api, uuid, 'ACTIVE', token=ADMIN)
