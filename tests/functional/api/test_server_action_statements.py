"""What one server action costs the databases: the SQL statements of a
stop, from the POST to the compute's last write, counted per database
(tools/bench/servers.py --sections actions measures the speed these
budgets buy). A change that adds statements to the path of every
action fails here and says which."""
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import objects
from tests.conftest import set_override
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import api  # noqa: F401
from tests.functional.api.test_server_actions import boot
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for
from tests.functional.db import inventory_helpers as h

# The last write of an action: the compute finishing its event, which
# finishes the action.
LAST_WRITE = 'UPDATE instance_actions SET finish_time'
# Periodic work of the services (heartbeats, the resource tracker) that
# may run while the action does.
BACKGROUND = ('services', 'compute_nodes', 'instances.host =',
              'resource_providers', 'inventories', 'allocations')

# The budget of a stop (and of a start: the same path).
# API database: the instance mapping (with its cell).
API_STATEMENTS = 1
# Cell database: the API reads the instance (row with its 1:1 rows, then
# metadata/system metadata/tags), sets the task state (compare-and-swap:
# the row under its lock, the update) and starts the action; the compute,
# through its cell conductor, records its event, started and finished
# (the action and no open event in one read, the event, the action), and
# saves the new state (row, update).
CELL_STATEMENTS = 2 + 2 + 1 + 3 + 2
# Cell transactions, all writes: the API's read of the instance, its
# task state and its action (server_actions.acting_on: one transaction);
# the compute's new state with its whole event
# (Instance.save_and_finish_event with the event's start time: one call
# to the conductor).
API_WRITE = ['SELECT', 'SELECT', 'SELECT', 'UPDATE', 'INSERT']
CELL_WRITES = [API_WRITE,
               ['SELECT', 'INSERT', 'UPDATE', 'SELECT', 'UPDATE']]
# The same with the event started in a call of its own (a conductor
# pinned below 1.3, or an action still running after the deferral).
STARTED_APART = [API_WRITE,
                 ['SELECT', 'INSERT', 'UPDATE'],
                 ['SELECT', 'UPDATE', 'UPDATE', 'SELECT', 'UPDATE']]


def _counter(cell_name):
    ctxt = nova_context.get_admin_context()
    [cell] = [c for c in objects.CellMappingList.get_all(ctxt)
              if c.name == cell_name]
    with nova_context.target_cell(ctxt, cell) as cctxt:
        cell_engines = main_db.get_engines(cctxt)
    return h.StatementCounter(api=api_db.get_engines(), cell=cell_engines)


def _ours(statements):
    return [s for s in statements
            if not any(b in s for b in BACKGROUND)]


def _cell_of(api_client, uuid):
    ctxt = nova_context.get_admin_context()
    return objects.InstanceMapping.get_by_instance_uuid(
        ctxt, uuid).cell_mapping.name


def _count(api_client, uuid, body, status):
    counter = _counter(_cell_of(api_client, uuid))
    with counter.counting():
        assert act(api_client, uuid, body).status_code == 202
        wait_for(lambda: any(s.startswith(LAST_WRITE)
                             for s in counter.statements['cell']),
                 message='the action to finish')
    settled(api_client, uuid, status)
    writes = [[s.split()[0] for s in t] for t in counter.transactions['cell']
              if _ours(t)]
    return (_ours(counter.statements['api']),
            _ours(counter.statements['cell']), writes)


def test_stop_and_start_stay_within_their_statement_budget(api):  # noqa: F811
    uuid = boot(api)
    for body, status in (({'os-stop': None}, 'SHUTOFF'),
                         ({'os-start': None}, 'ACTIVE')):
        api_statements, cell_statements, writes = _count(api, uuid, body,
                                                         status)
        assert len(api_statements) <= API_STATEMENTS, api_statements
        assert len(cell_statements) <= CELL_STATEMENTS, '\n'.join(
            cell_statements)
        assert writes == CELL_WRITES, writes


def test_a_conductor_pinned_below_1_2_gets_the_save_and_finish_apart(
        api):  # noqa: F811
    """[upgrade_levels] conductor = 1.1 (a cell conductor not upgraded
    yet): the compute saves and then finishes its event, two calls, and
    the server and its event end as with one."""
    uuid = boot(api)
    set_override('conductor', '1.1', group='upgrade_levels')
    _, _, writes = _count(api, uuid, {'os-stop': None}, 'SHUTOFF')
    assert writes == STARTED_APART[:2] + [['SELECT', 'UPDATE'],
                                          ['SELECT', 'UPDATE', 'UPDATE']]
    _one_successful_event(api, uuid, 'stop')


def _one_successful_event(client, uuid, action):
    [act_] = [a for a in client('GET', '/servers/%s/os-instance-actions'
                             % uuid, token=ADMIN).json()['instanceActions']
              if a['action'] == action]
    events = client('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, act_['request_id']), token=ADMIN,
        version='2.62').json()['instanceAction']['events']
    assert [(e['event'], e['result']) for e in events] == [
        ('compute_%s_instance' % action, 'Success')]
    [event] = events
    assert act_['start_time'] <= event['start_time'] <= event['finish_time']
    return event


def _host_of(client, uuid):
    return client('GET', '/servers/%s' % uuid, token=ADMIN).json()[
        'server']['OS-EXT-SRV-ATTR:host']


def test_a_conductor_pinned_below_1_3_gets_the_event_started_apart(
        api):  # noqa: F811
    """[upgrade_levels] conductor = 1.2 (a cell conductor whose event
    methods take no start time): the compute starts its event first, in a
    call of its own, and the event ends as with one call."""
    uuid = boot(api)
    set_override('conductor', '1.2', group='upgrade_levels')
    _, _, writes = _count(api, uuid, {'os-stop': None}, 'SHUTOFF')
    assert writes == STARTED_APART
    _one_successful_event(api, uuid, 'stop')


def test_the_event_recorded_with_its_finish_keeps_its_start(
        api):  # noqa: F811
    uuid = boot(api)
    _count(api, uuid, {'os-stop': None}, 'SHUTOFF')
    event = _one_successful_event(api, uuid, 'stop')
    assert event['host'] == _host_of(api, uuid)


def test_the_cast_goes_out_once_the_api_has_committed(
        api, monkeypatch):  # noqa: F811
    """server_actions.acting_on: the compute is cast to only after the
    transaction that read the instance and set its task state has
    committed (a reader on another connection sees the task state when
    the cast leaves). The real cast is made; this only looks on."""
    from nova_lite.compute import rpcapi as compute_rpcapi
    uuid = boot(api)
    seen = []
    real = compute_rpcapi.ComputeAPI.stop_instance

    def stop_instance(self, context, instance, *args, **kwargs):
        ctxt = nova_context.get_admin_context()
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, uuid)
        with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
            seen.append(objects.Instance.get_by_uuid(cctxt, uuid).task_state)
        return real(self, context, instance, *args, **kwargs)

    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'stop_instance',
                        stop_instance)
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    settled(api, uuid, 'SHUTOFF')
    assert seen == ['powering-off']


def test_a_refused_action_writes_and_casts_nothing(api):  # noqa: F811
    uuid = boot(api)
    counter = _counter(_cell_of(api, uuid))
    with counter.counting():
        response = act(api, uuid, {'os-start': None})    # ACTIVE already
    assert response.status_code == 409, response.text
    writes = [s for s in _ours(counter.statements['cell'])
              if not s.startswith('SELECT')]
    assert writes == []
    settled(api, uuid, 'ACTIVE')
