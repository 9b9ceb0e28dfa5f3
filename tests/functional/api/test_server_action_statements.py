"""What one server action costs the databases: the SQL statements of a
stop, from the POST to the compute's last write, counted per database
(tools/bench/servers.py --sections actions measures the speed these
budgets buy). A change that adds statements to the path of every
action fails here and says which."""
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import objects
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import api  # noqa: F401
from tests.functional.api.test_server_actions import boot
from tests.functional.api.test_server_actions import settled
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
# through its cell conductor, starts its event (the action's id, the
# event, the action's updated_at), saves the new state (row, update) and
# finishes the event (action and open event in one read, the event, the
# action).
CELL_STATEMENTS = 2 + 2 + 1 + 3 + 2 + 3


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
    return (_ours(counter.statements['api']),
            _ours(counter.statements['cell']))


def test_stop_and_start_stay_within_their_statement_budget(api):  # noqa: F811
    uuid = boot(api)
    for body, status in (({'os-stop': None}, 'SHUTOFF'),
                         ({'os-start': None}, 'ACTIVE')):
        api_statements, cell_statements = _count(api, uuid, body, status)
        assert len(api_statements) <= API_STATEMENTS, api_statements
        assert len(cell_statements) <= CELL_STATEMENTS, '\n'.join(
            cell_statements)
