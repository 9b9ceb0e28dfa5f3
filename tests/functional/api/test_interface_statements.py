"""What one interface attach costs: the SQL statements of a POST
/servers/{id}/os-interface (by network), counted per database from the
request to its answer (tools/bench/interfaces.py measures the speed
these budgets buy). The network-vif-plugged the network service sends
for the new port is held back (its delay) so that only the attach is
counted. A change that adds statements or conductor calls to the
attach fails here and says which."""
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.local_services import api as ls_db
from nova_lite.db.main import api as main_db
from nova_lite.network import api as network_api
from nova_lite import objects
from tests.conftest import set_override
from tests.functional.api.test_server_action_statements import _ours
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.db import inventory_helpers as h

NET = network_api.DEFAULT_NETWORK['id']

# API database: the instance mapping (with its cell).
API_STATEMENTS = 1
# Cell database: the API reads the instance (row, then its metadata)
# and starts the action, in one transaction; the compute, in one call
# to its cell conductor, saves the info cache with its event recorded
# started and finished (the action and no open event, the event, the
# action; the instance row, its update, the info cache).
CELL_STATEMENTS = 2 + 1 + 3 + 3
CELL_TRANSACTIONS = [
    ['SELECT', 'SELECT', 'INSERT'],
    ['SELECT', 'INSERT', 'UPDATE', 'SELECT', 'UPDATE', 'UPDATE']]
# Local-services database (the API reads nothing there: the compute
# checks the network as it takes it, as in Nova): the compute finds
# the project's default security group, makes the port (the network,
# locked; the addresses taken; the port, its group, its binding), then
# in one transaction reports it plugged (ACTIVE if it was not) and
# reads the server's ports for the info cache (ports, floating IPs) and
# the new port's groups for the answer, which the API gives without
# reading the port again.
LS_STATEMENTS = 1 + 6 + 1 + 2 + 1


def _counter(uuid):
    ctxt = nova_context.get_admin_context()
    cell = objects.InstanceMapping.get_by_instance_uuid(
        ctxt, uuid).cell_mapping
    with nova_context.target_cell(ctxt, cell) as cctxt:
        cell_engines = main_db.get_engines(cctxt)
    return h.StatementCounter(api=api_db.get_engines(), cell=cell_engines,
                              ls=ls_db.get_engines())


def test_attach_stays_within_its_statement_budget(api):  # noqa: F811
    uuid = api('POST', '/servers', _server(networks='auto'),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    # The event of the new port comes long after the test.
    set_override('vif_plugged_event_delay', 600, group='local_services')
    counter = _counter(uuid)
    with counter.counting():
        made = api('POST', '/servers/%s/os-interface' % uuid,
                   {'interfaceAttachment': {'net_id': NET}})
    assert made.status_code == 200, made.text
    statements = {name: _ours(s) for name, s in counter.statements.items()}
    assert len(statements['api']) <= API_STATEMENTS, statements['api']
    assert len(statements['cell']) <= CELL_STATEMENTS, '\n'.join(
        statements['cell'])
    assert len(statements['ls']) <= LS_STATEMENTS, '\n'.join(
        statements['ls'])
    writes = [[s.split()[0] for s in t]
              for t in counter.transactions['cell'] if _ours(t)]
    assert writes == CELL_TRANSACTIONS, writes
    attached = made.json()['interfaceAttachment']
    port = attached['port_id']
    # The answer (from the compute's read) is the port as listed.
    assert attached['port_state'] == 'ACTIVE' and attached['fixed_ips']
    listed = api('GET', '/servers/%s/os-interface/%s' % (
        uuid, port)).json()['interfaceAttachment']
    assert listed == attached
    assert api('DELETE', '/servers/%s/os-interface/%s' % (
        uuid, port)).status_code == 202
