"""A database error at each write of the super conductor's build and
moves (fault injection: tests.functional.db_faults), seen through the
REST API: a build ends in ERROR with a fault and nothing claimed, never
in BUILD; a move ends with no task state, a fault, and only the
server's own claim."""
import pytest

from tests.functional.api import resize_helpers
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for
from tests.functional import db_faults

# The super conductor's writes while it builds a server, in order.
BUILD_STEPS = [
    r'^\s*INSERT INTO instances\b',
    r'^\s*INSERT INTO instance_extra\b',
    r'^\s*INSERT INTO block_device_mapping\b',
    r'^\s*INSERT INTO instance_actions\b',
    r'^\s*UPDATE build_requests SET picked_up_at\b',
    r'^\s*UPDATE instance_mappings\b',
    r'^\s*DELETE FROM build_requests\b',
]


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def _used(api):
    """(vcpus, memory_mb) claimed over every hypervisor."""
    hyps = api('GET', '/os-hypervisors/detail', token=ADMIN,
               version='2.87').json()['hypervisors']
    return (sum(h['vcpus_used'] for h in hyps),
            sum(h['memory_mb_used'] for h in hyps))


def _settled(api, uuid):
    """The server's body once it has no task state (ERROR or not) and,
    in ERROR, its fault: the state and the fault are two writes (as in
    Nova), so a read may come between them."""
    def reached():
        body = api('GET', '/servers/%s' % uuid, token=ADMIN).json()
        server = body['server']
        if server['status'] != 'BUILD' and \
                server['OS-EXT-STS:task_state'] is None and (
                    server['status'] != 'ERROR' or 'fault' in server):
            return server
        return None
    return wait_for(reached, timeout=30, message='%s settled' % uuid)


@pytest.mark.parametrize('step', BUILD_STEPS)
def test_build_db_failure_ends_in_error_with_fault(api, step):
    baseline = _used(api)
    with db_faults.fail_once(step) as trap:
        created = api('POST', '/servers', _server('doomed'),
                      version='2.37')
        assert created.status_code == 202, created.text
        uuid = created.json()['server']['id']
        server = _settled(api, uuid)
    assert trap.fired, 'no statement matched %s' % step
    assert server['status'] == 'ERROR'
    assert 'injected failure' in server['fault']['message']
    assert server['fault']['code'] == 500
    wait_for(lambda: _used(api) == baseline, timeout=30,
             message='claims of %s freed' % uuid)
    # Listed once, and deleted cleanly.
    listed = [s['id'] for s in api('GET', '/servers').json()['servers']]
    assert listed.count(uuid) == 1
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='server gone')
    # The measure moves with a real build (so the check above counts).
    ok = api('POST', '/servers', _server('fine'), version='2.37')
    _wait_status(api, ok.json()['server']['id'], 'ACTIVE')
    assert _used(api) != baseline


# A database restarting while the super conductor builds and then
# records the failure: (statement, how many times it fails in a row).
# The first failure is the build's own; the next ones hit the steps that
# put the server in ERROR, which run again until the database answers.
OUTAGES = [
    (r'^\s*INSERT INTO instances\b', 4),
    (r'^\s*UPDATE instance_mappings\b', 3),
    (r'^\s*DELETE FROM build_requests\b', 3),
]


@pytest.mark.parametrize('step,times', OUTAGES)
def test_build_failure_is_recorded_once_the_database_answers(api, step,
                                                             times):
    baseline = _used(api)
    with db_faults.outage(step, times) as trap:
        created = api('POST', '/servers', _server('restarting'),
                      version='2.37')
        assert created.status_code == 202, created.text
        uuid = created.json()['server']['id']
        wait_for(lambda: trap.count == times, timeout=30,
                 message='%d failed statements' % times)
    server = _settled(api, uuid)
    assert server['status'] == 'ERROR'
    assert 'Server shutdown in progress' in server['fault']['message']
    wait_for(lambda: _used(api) == baseline, timeout=30,
             message='claims of %s freed' % uuid)
    # One failed conductor event, however often its steps ran.
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  token=ADMIN).json()['instanceActions']
    assert [a['action'] for a in actions] == ['create']
    events = api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, actions[0]['request_id']), token=ADMIN,
        version='2.84').json()['instanceAction']['events']
    failed = [e for e in events
              if e['event'] == 'conductor_schedule_and_build_instances']
    assert [e['result'] for e in failed] == ['Error']
    listed = [s['id'] for s in api('GET', '/servers').json()['servers']]
    assert listed.count(uuid) == 1
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='server gone')


def test_one_failed_build_of_a_multi_create_leaves_the_other(api):
    def settled_pair():
        servers = api('GET', '/servers/detail?reservation_id=%s'
                      % reservation).json()['servers']
        if len(servers) == 2 and all(
                s['status'] != 'BUILD' and
                s['OS-EXT-STS:task_state'] is None for s in servers):
            return sorted(s['status'] for s in servers)
        return None

    with db_faults.fail_once(BUILD_STEPS[0]) as trap:
        created = api('POST', '/servers', _server(
            'pair', min_count=2, return_reservation_id=True),
            version='2.37')
        assert created.status_code == 202, created.text
        reservation = created.json()['reservation_id']
        states = wait_for(settled_pair, timeout=30, message='pair settled')
    assert trap.fired
    assert states == ['ACTIVE', 'ERROR']


# The super conductor's writes while it starts a resize in the
# server's cell, in order (the scheduler's claim between the last two).
MOVE_STEPS = [
    r'^\s*INSERT INTO migrations\b',
    r'^\s*UPDATE request_specs\b',
    r'^\s*UPDATE migrations\b',
]


@pytest.fixture
def resize_api(tmp_path):
    plane_gen = resize_helpers.one_cell_plane(tmp_path)
    plane = next(plane_gen)
    yield resize_helpers.client_of(plane)
    next(plane_gen, None)


@pytest.mark.parametrize('step', MOVE_STEPS)
def test_resize_db_failure_leaves_no_task_and_no_claim(resize_api, step):
    api = resize_api
    uuid = resize_helpers.boot(api)
    before = _used(api)
    with db_faults.fail_once(step) as trap:
        resp = resize_helpers.action(api, uuid,
                                     {'resize': {'flavorRef': 'medium'}})
        assert resp.status_code == 202, resp.text
        server = _settled(api, uuid)
    assert trap.fired, 'no statement matched %s' % step
    # As Nova's conductor after a failed move: where it was, task None,
    # the failure in the resize action (and its fault).
    assert server['status'] == 'ACTIVE'
    assert server['flavor']['id'] == 'small'
    wait_for(lambda: _used(api) == before, timeout=30,
             message='only the server claim of %s left' % uuid)
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  token=ADMIN).json()['instanceActions']
    resize = [a for a in actions if a['action'] == 'resize'][0]
    events = api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, resize['request_id']), token=ADMIN,
        version='2.84').json()['instanceAction']['events']
    failed = [e for e in events if e['event'] == 'conductor_migrate_server']
    assert failed and failed[0]['result'] == 'Error'
    # The server moves on afterwards.
    resp = resize_helpers.action(api, uuid,
                                 {'resize': {'flavorRef': 'medium'}})
    assert resp.status_code == 202, resp.text
    resize_helpers.wait_status(api, uuid, 'VERIFY_RESIZE')


def test_build_waits_out_a_database_restart_at_the_compute(api):
    """The compute's first write of a build (task networking) meets a
    restarting database three times: the build waits it out and the
    server goes ACTIVE, not left in BUILD/scheduling."""
    with db_faults.outage(r'^\s*UPDATE instances\b', 3) as trap:
        created = api('POST', '/servers', _server('patient'),
                      version='2.37')
        assert created.status_code == 202, created.text
        uuid = created.json()['server']['id']
        wait_for(lambda: trap.count == 3, timeout=30,
                 message='3 failed statements')
    assert 'SET task_state' in trap.fired
    _wait_status(api, uuid, 'ACTIVE')
