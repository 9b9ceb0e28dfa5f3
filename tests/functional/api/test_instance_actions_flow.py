"""The instance actions services record, seen through the REST API on a
running plane (two cells, cell0): each request's action under its
request id, with the events of the compute that did the work."""
import pytest

from nova_lite.conf import CONF
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def request_id(response):
    return response.headers['x-openstack-request-id']


def actions(api, uuid, version='2.84', token=ADMIN):
    return api('GET', '/servers/%s/os-instance-actions' % uuid,
               version=version, token=token).json()['instanceActions']


def action(api, uuid, req, version='2.84', token=ADMIN):
    response = api('GET', '/servers/%s/os-instance-actions/%s' % (uuid, req),
                   version=version, token=token)
    assert response.status_code == 200, response.text
    return response.json()['instanceAction']


def finished(api, uuid, req, count=1):
    """The action once count of its events have finished."""
    def done():
        found = action(api, uuid, req)
        return found if len([e for e in found['events']
                             if e['finish_time']]) >= count else None
    return wait_for(done, timeout=30, message='events of %s' % req)


def test_each_request_is_an_action_with_its_compute_event(api):
    created = api('POST', '/servers', _server('vm'), version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    create = finished(api, uuid, request_id(created))
    assert create['action'] == 'create'
    assert create['user_id'] == 'bob' and create['project_id'] == 'project-a'
    [build] = create['events']
    assert build['event'] == 'compute__do_build_and_run_instance'
    assert build['result'] == 'Success'
    assert build['host'].startswith(('cell1-', 'cell2-'))
    requests = []
    for body, status, event in (
            ({'os-stop': None}, 'SHUTOFF', 'compute_stop_instance'),
            ({'os-start': None}, 'ACTIVE', 'compute_start_instance'),
            ({'reboot': {'type': 'SOFT'}}, 'ACTIVE',
             'compute_reboot_instance'),
            ({'pause': None}, 'PAUSED', 'compute_pause_instance'),
            ({'unpause': None}, 'ACTIVE', 'compute_unpause_instance'),
            ({'suspend': None}, 'SUSPENDED', 'compute_suspend_instance'),
            ({'resume': None}, 'ACTIVE', 'compute_resume_instance')):
        response = act(api, uuid, body)
        assert response.status_code == 202, response.text
        settled(api, uuid, status)
        found = finished(api, uuid, request_id(response))
        assert [(e['event'], e['result']) for e in found['events']] == [
            (event, 'Success')], found
        assert found['message'] is None
        requests.append(request_id(response))
    locked = act(api, uuid, {'lock': None})
    unlocked = act(api, uuid, {'unlock': None})
    assert action(api, uuid, request_id(locked))['events'] == []
    deleted = api('DELETE', '/servers/%s' % uuid)
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='server gone')
    listed = actions(api, uuid, version='2.21', token=MEMBER)
    assert [a['action'] for a in listed] == [
        'delete', 'unlock', 'lock', 'resume', 'suspend', 'unpause', 'pause',
        'reboot', 'start', 'stop', 'create']
    assert [a['request_id'] for a in listed] == [
        request_id(deleted), request_id(unlocked), request_id(locked),
        *reversed(requests), request_id(created)]
    terminate = finished(api, uuid, request_id(deleted))
    assert terminate['events'][0]['event'] == 'compute_terminate_instance'
    # Gone before 2.21.
    assert api('GET', '/servers/%s/os-instance-actions' % uuid,
               version='2.20').status_code == 404


@pytest.fixture
def doomed(conf):
    conf.set_override('fail_spawn_for_names', ['doomed'],
                      group='fake_driver')


def test_a_failed_build_shows_its_errors_to_admins(api, doomed):
    created = api('POST', '/servers', _server('doomed'), version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(api, uuid, 'ERROR')
    req = request_id(created)
    found = finished(api, uuid, req)
    assert found['message'] == 'Error'
    assert found['events'], found
    for event in found['events']:
        assert event['event'] == 'compute__do_build_and_run_instance'
        assert event['result'] == 'Error'
        assert 'SpawnFailed' in event['traceback']
        assert event['details'] == 'SpawnFailed'
    member = action(api, uuid, req, token=MEMBER)
    assert member['message'] == 'Error'
    assert all(set(e) == {'event', 'start_time', 'finish_time', 'result',
                          'hostId'} for e in member['events'])


def test_a_server_no_host_could_take_has_its_create_action_in_cell0(api):
    huge = {'flavor': {'name': 'huge', 'id': 'huge', 'ram': 10 ** 7,
                       'vcpus': 1, 'disk': 1}}
    assert api('POST', '/flavors', huge, token=ADMIN).status_code == 200
    created = api('POST', '/servers', _server('big', flavorRef='huge'),
                  version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(api, uuid, 'ERROR')
    found = action(api, uuid, request_id(created))
    assert (found['action'], found['message']) == ('create', 'Error')
    [event] = found['events']
    assert event['event'] == 'conductor_schedule_and_build_instances'
    assert event['result'] == 'Error'
    assert event['details'].startswith('No valid host')
    # As Nova, the event names the conductor's host ([DEFAULT] host), as
    # the conductor's other events do (2.62: host and hostId strings);
    # in the all-in-one, the host its super conductor's service has.
    assert event['host'] == CONF.host and event['hostId']
    services = api('GET', '/os-services?binary=nova-conductor',
                   token=ADMIN).json()['services']
    assert event['host'] in {s['host'] for s in services}


def test_a_long_stop_shows_its_event_in_progress(api, conf):
    """A quick action's event is recorded with its finish; one still
    running after instance_events.START_DEFERRAL shows as started (no
    finish yet), as Nova shows it, then finishes."""
    from nova_lite.compute import instance_events
    created = api('POST', '/servers', _server('slow'), version='2.37')
    uuid = created.json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    conf.set_override('delay_methods', {'power_off': '2.0'},
                      group='fake_driver')
    response = act(api, uuid, {'os-stop': None})
    req = request_id(response)

    def in_progress():
        events = action(api, uuid, req)['events']
        return events if events else None
    [event] = wait_for(in_progress, timeout=1.5,
                       message='the started event')
    assert event['event'] == 'compute_stop_instance'
    assert event['finish_time'] is None and event['result'] is None
    settled(api, uuid, 'SHUTOFF')
    [done] = finished(api, uuid, req)['events']
    assert done['start_time'] == event['start_time']
    assert done['result'] == 'Success'
    assert instance_events.START_DEFERRAL < 1.5
