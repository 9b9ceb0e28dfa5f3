"""POST /servers/{id}/action through the REST API on a running plane
(two cells, cell0): each action in the states it is allowed in, the
states it refuses (409), locks by persona, and the state a user sees
after it."""
from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite import objects
from nova_lite.objects import service_version
from tests.conftest import set_override
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

# Another user of the server's own project.
PEER = 'carol:project-a'


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def client_with_flavor(plane):
    """A REST client of the plane, with flavor 'small' created."""
    client = Client(plane.endpoint)
    flavor = {'flavor': {'name': 'small', 'id': 'small', 'ram': 512,
                         'vcpus': 1, 'disk': 1}}
    assert client('POST', '/flavors', flavor, token=ADMIN).status_code == 200
    return client


def boot(api, name='vm', token=MEMBER):
    uuid = api('POST', '/servers', _server(name), version='2.37',
               token=token).json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE', token=token)
    return uuid


def act(api, uuid, body, token=MEMBER, version='2.1'):
    return api('POST', '/servers/%s/action' % uuid, body, token=token,
               version=version)


def settled(api, uuid, status, token=MEMBER):
    """The server's body once it shows status with no task."""
    def reached():
        body = api('GET', '/servers/%s' % uuid, token=token).json()['server']
        return body if (body['status'] == status and
                        body['OS-EXT-STS:task_state'] is None) else None
    return wait_for(reached, timeout=30, message='%s %s' % (uuid, status))


def refused(response, state):
    assert response.status_code == 409, response.text
    message = response.json()['conflictingRequest']['message']
    assert state in message, message
    return message


def test_stop_start_cycle_and_refusals(api):
    uuid = boot(api)
    refused(act(api, uuid, {'os-start': None}), 'vm_state active')
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    body = settled(api, uuid, 'SHUTOFF')
    assert body['OS-EXT-STS:vm_state'] == 'stopped'
    assert body['OS-EXT-STS:power_state'] == 4
    message = refused(act(api, uuid, {'os-stop': None}),
                      'vm_state stopped')
    assert message == ("Cannot 'stop' instance %s while it is in vm_state "
                       "stopped" % uuid)
    refused(act(api, uuid, {'pause': None}), 'vm_state stopped')
    refused(act(api, uuid, {'reboot': {'type': 'SOFT'}}), 'vm_state stopped')
    assert act(api, uuid, {'os-start': None}).status_code == 202
    body = settled(api, uuid, 'ACTIVE')
    assert body['OS-EXT-STS:power_state'] == 1


def test_pause_unpause_suspend_resume(api):
    uuid = boot(api)
    refused(act(api, uuid, {'unpause': None}), 'vm_state active')
    refused(act(api, uuid, {'resume': None}), 'vm_state active')
    assert act(api, uuid, {'pause': None}).status_code == 202
    body = settled(api, uuid, 'PAUSED')
    assert (body['OS-EXT-STS:vm_state'], body['OS-EXT-STS:power_state']) \
        == ('paused', 3)
    refused(act(api, uuid, {'pause': None}), 'vm_state paused')
    refused(act(api, uuid, {'suspend': None}), 'vm_state paused')
    refused(act(api, uuid, {'reboot': {'type': 'SOFT'}}), 'vm_state paused')
    refused(act(api, uuid, {'os-stop': None}), 'vm_state paused')
    assert act(api, uuid, {'unpause': None}).status_code == 202
    settled(api, uuid, 'ACTIVE')
    assert act(api, uuid, {'suspend': None}).status_code == 202
    body = settled(api, uuid, 'SUSPENDED')
    assert (body['OS-EXT-STS:vm_state'], body['OS-EXT-STS:power_state']) \
        == ('suspended', 7)
    refused(act(api, uuid, {'unpause': None}), 'vm_state suspended')
    assert act(api, uuid, {'resume': None}).status_code == 202
    body = settled(api, uuid, 'ACTIVE')
    assert body['OS-EXT-STS:power_state'] == 1


def test_reboot_soft_and_hard(api):
    uuid = boot(api)
    assert act(api, uuid, {'reboot': {'type': 'SOFT'}}).status_code == 202
    settled(api, uuid, 'ACTIVE')
    # A hard reboot brings back a stopped server, and a paused one.
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    settled(api, uuid, 'SHUTOFF')
    assert act(api, uuid, {'reboot': {'type': 'hard'}}).status_code == 202
    body = settled(api, uuid, 'ACTIVE')
    assert body['OS-EXT-STS:power_state'] == 1
    assert act(api, uuid, {'pause': None}).status_code == 202
    settled(api, uuid, 'PAUSED')
    assert act(api, uuid, {'reboot': {'type': 'HARD'}}).status_code == 202
    settled(api, uuid, 'ACTIVE')


def test_actions_refused_while_a_task_runs(api, plane):
    """A server with a task in flight refuses the actions that need
    none (409 naming the task state); a hard reboot may interrupt a
    pause (the task state is put in the cell as a compute mid-way
    through a pause would have it)."""
    uuid = boot(api)
    _set_task_state(plane, uuid, 'pausing')
    message = refused(act(api, uuid, {'os-stop': None}),
                      'task_state pausing')
    assert message.startswith("Cannot 'stop' instance")
    refused(act(api, uuid, {'reboot': {'type': 'SOFT'}}),
            'task_state pausing')
    refused(act(api, uuid, {'suspend': None}), 'task_state pausing')
    # HARD is allowed to interrupt a pause (as Nova's ALLOW_REBOOT).
    assert act(api, uuid, {'reboot': {'type': 'HARD'}}).status_code == 202
    settled(api, uuid, 'ACTIVE')


def _set_task_state(plane, uuid, task_state):
    """Put a task state on the server as a compute in the middle of an
    action would have it."""
    admin = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, uuid)
    with nova_context.target_cell(admin, mapping.cell_mapping) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        inst.task_state = task_state
        inst.save()


def test_reset_state_is_for_admins(api):
    uuid = boot(api)
    body = {'os-resetState': {'state': 'error'}}
    assert act(api, uuid, body).status_code == 403
    assert act(api, uuid, body, token=ADMIN).status_code == 202
    shown = api('GET', '/servers/%s' % uuid).json()['server']
    assert shown['status'] == 'ERROR'
    # From error a stop is allowed (as Nova), a start is not.
    refused(act(api, uuid, {'os-start': None}), 'vm_state error')
    assert act(api, uuid, {'os-resetState': {'state': 'active'}},
               token=ADMIN).status_code == 202
    assert api('GET', '/servers/%s' % uuid).json()['server'][
        'status'] == 'ACTIVE'


def test_another_projects_server_is_404_for_every_action(api):
    uuid = boot(api)
    for body in ({'os-stop': None}, {'os-start': None}, {'pause': None},
                 {'reboot': {'type': 'SOFT'}}, {'lock': None},
                 {'unlock': None}, {'os-resetState': {'state': 'active'}}):
        response = act(api, uuid, body, token=OTHER)
        assert response.status_code == 404, (body, response.text)
        assert 'itemNotFound' in response.json()
    assert act(api, 'f' * 8 + '-0000-0000-0000-' + '0' * 12,
               {'os-stop': None}).status_code == 404


def test_lock_by_owner_and_admin(api):
    uuid = boot(api)
    assert act(api, uuid, {'lock': None}).status_code == 202
    shown = api('GET', '/servers/%s' % uuid, version='2.73').json()['server']
    assert shown['locked'] is True and shown['locked_reason'] is None
    # Locked: the owner's project may do nothing else (409); an admin may.
    response = act(api, uuid, {'os-stop': None}, token=PEER)
    assert response.status_code == 409
    assert response.json()['conflictingRequest']['message'] == (
        'Instance %s is locked' % uuid)
    assert api('DELETE', '/servers/%s' % uuid).status_code == 409
    # A member of the project unlocks its own project's lock.
    assert act(api, uuid, {'unlock': None}, token=PEER).status_code == 202
    # An admin's lock, with a reason (2.73).
    assert act(api, uuid, {'lock': {'locked_reason': 'maintenance'}},
               token=ADMIN, version='2.73').status_code == 202
    shown = api('GET', '/servers/%s' % uuid, version='2.73').json()['server']
    assert shown['locked_reason'] == 'maintenance'
    listed = api('GET', '/servers/detail?locked=true',
                 version='2.73').json()['servers']
    assert [s['id'] for s in listed] == [uuid]
    assert act(api, uuid, {'pause': None}, token=ADMIN).status_code == 202
    settled(api, uuid, 'PAUSED')
    # The owner cannot unlock an admin's lock (unlock_override).
    assert act(api, uuid, {'unlock': None}).status_code == 403
    assert act(api, uuid, {'unlock': None}, token=ADMIN).status_code == 202
    shown = api('GET', '/servers/%s' % uuid, version='2.73').json()['server']
    assert shown['locked'] is False and shown['locked_reason'] is None
    assert act(api, uuid, {'unpause': None}).status_code == 202
    settled(api, uuid, 'ACTIVE')


@pytest.mark.parametrize('version, body, field', [
    ('2.1', {'os-stop': None, 'force': True}, 'one key'),
    ('2.1', {'reboot': {}}, 'type'),
    ('2.1', {'reboot': {'type': 'WARM'}}, 'type'),
    ('2.1', {'reboot': {'type': 'SOFT', 'x': 1}}, 'x'),
    ('2.73', {'lock': {'locked_reason': ''}}, 'locked_reason'),
    ('2.73', {'lock': {'reason': 'x'}}, 'reason'),
    ('2.1', {'os-resetState': {'state': 'stopped'}}, 'state'),
    ('2.1', {'os-resetState': {}}, 'state'),
    ('2.56', {'migrate': {'hots': 'h'}}, 'hots'),
])
def test_bad_action_bodies_are_400_naming_the_field(api, version, body,
                                                    field):
    """Bodies are validated before the server is looked for."""
    uuid = uuidutils.generate_uuid()
    response = act(api, uuid, body, version=version, token=ADMIN)
    assert response.status_code == 400, response.text
    assert field in response.json()['badRequest']['message']


def test_argument_free_actions_take_any_value_as_nova_does(api):
    """As Nova, the value of an action without arguments is not looked
    at: novaclient and openstacksdk send null, tempest sends {}."""
    uuid = boot(api)
    for body, status in [({'os-stop': {}}, 'SHUTOFF'),
                         ({'os-start': {}}, 'ACTIVE'),
                         ({'pause': {}}, 'PAUSED'),
                         ({'unpause': 1}, 'ACTIVE'),
                         ({'suspend': {}}, 'SUSPENDED'),
                         ({'resume': 'x'}, 'ACTIVE')]:
        assert act(api, uuid, body).status_code == 202, body
        settled(api, uuid, status)
    assert act(api, uuid, {'lock': {}}).status_code == 202
    assert act(api, uuid, {'unlock': {}}).status_code == 202


def test_lock_reason_ignored_before_273(api):
    uuid = boot(api)
    assert act(api, uuid, {'lock': {'locked_reason': 'x'}},
               version='2.72').status_code == 202
    shown = api('GET', '/servers/%s' % uuid, version='2.73').json()['server']
    assert shown['locked'] is True and shown['locked_reason'] is None


def test_unknown_action_is_400(api):
    uuid = boot(api)
    response = act(api, uuid, {'fly': None})
    assert response.status_code == 400
    assert api('GET', '/servers/%s/action' % uuid).status_code == 405


def test_a_compute_too_old_for_actions_refuses_them_unchanged(api, plane):
    """With [upgrade_levels] compute = auto, a compute still at service
    version 6 (RPC 1.3) gets no action it cannot run: 409, and the
    server keeps its state (no task set, no action recorded)."""
    set_override('compute', 'auto', group='upgrade_levels')
    uuid = boot(api)
    host = api('GET', '/servers/%s' % uuid, token=ADMIN).json()['server'][
        'OS-EXT-SRV-ATTR:host']
    cell = next(c for c in plane.cells.values() if host.startswith(c.name))
    admin = nova_context.get_admin_context()
    with nova_context.target_cell(admin, cell) as cctxt:
        with main_db.get_engine(cctxt).begin() as conn:
            conn.execute(sa.text('UPDATE services SET version = 6 WHERE '
                                 'host = :host'), {'host': host})
    service_version.reset_min_version_cache()
    response = act(api, uuid, {'os-stop': None})
    assert response.status_code == 409
    assert 'too old' in response.json()['conflictingRequest']['message']
    body = api('GET', '/servers/%s' % uuid).json()['server']
    assert (body['status'], body['OS-EXT-STS:task_state']) == ('ACTIVE',
                                                               None)
    listed = api('GET', '/servers/%s/os-instance-actions' % uuid).json()
    assert [a['action'] for a in listed['instanceActions']] == ['create']
    # Lock needs no compute.
    assert act(api, uuid, {'lock': None}).status_code == 202
