"""POST /servers/{id}/action through the REST API on a running plane
(two cells, cell0): each action in the states it is allowed in, the
states it refuses (409), locks by persona, and the state a user sees
after it."""
import pytest

from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for

# Another user of the server's own project.
PEER = 'carol:project-a'


@pytest.fixture
def api(plane):
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
