"""The running plane: services registered in their cells, computes report
nodes through their cell conductor, hosts discovered."""
import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import objects


def _by_cell(plane, fn):
    ctxt = nova_context.get_admin_context()
    out = {}
    for name, cell in plane.cells.items():
        with nova_context.target_cell(ctxt, cell) as cctxt:
            out[name] = fn(cctxt)
    return out


def test_services_are_recorded_in_their_cells(plane_no_api):
    hosts = _by_cell(plane_no_api, lambda c: sorted(
        (s.binary, s.host) for s in objects.ServiceList.get_all(c)))
    assert hosts['cell0'] == []
    assert hosts['cell2'] == [('nova-compute', 'cell2-compute1'),
                              ('nova-compute', 'cell2-compute2'),
                              ('nova-conductor', 'cell2-conductor')]
    # The top-level services live in the top-level cell database (cell1).
    assert ('nova-scheduler', 'aio') in hosts['cell1']
    assert ('nova-conductor', 'aio') in hosts['cell1']


def test_computes_report_nodes_and_hosts_are_mapped(plane_no_api):
    nodes = _by_cell(plane_no_api, lambda c: sorted(
        (n.host, n.vcpus, n.memory_mb) for n in
        objects.ComputeNodeList.get_all(c)))
    assert nodes['cell1'] == [('cell1-compute1', 16, 32768),
                              ('cell1-compute2', 16, 32768)]
    assert len(nodes['cell2']) == 2
    ctxt = nova_context.get_admin_context()
    mapped = {m.host: m.cell_mapping.name
              for m in objects.HostMappingList.get_all(ctxt)}
    assert mapped == {'cell1-compute1': 'cell1', 'cell1-compute2': 'cell1',
                      'cell2-compute1': 'cell2', 'cell2-compute2': 'cell2'}


def test_compute_heartbeat_goes_through_conductor(plane_no_api):
    compute = [s for s in plane_no_api.services
               if s.host == 'cell2-compute1'][0]
    before = compute.service_ref.report_count
    compute.report_state()
    assert compute.service_ref.report_count == before + 1
    # The compute's context carries no database: it used the conductor.
    assert compute.context.db_connection is None
    assert compute.context.indirection_api is not None


def test_restart_keeps_service_ids(tmp_path, conf):
    from tests.functional.conftest import start_plane
    from tests.functional.conftest import stop_plane
    state = tmp_path / 'state'
    p = start_plane(state, with_api=False)
    first = _by_cell(p, lambda c: sorted(
        (s.host, s.uuid) for s in objects.ServiceList.get_all(c)))
    stop_plane(p)
    p = start_plane(state, with_api=False)
    try:
        again = _by_cell(p, lambda c: sorted(
            (s.host, s.uuid) for s in objects.ServiceList.get_all(c)))
    finally:
        stop_plane(p)
    assert first == again


def test_every_service_answers_baseapi_ping(plane_no_api):
    from nova_lite import baserpc
    ctxt = nova_context.get_admin_context()
    cell2 = plane_no_api.cells['cell2']
    with nova_context.target_cell(ctxt, cell2) as cctxt:
        transport = cctxt.mq_connection
    answer = baserpc.BaseAPI('conductor', transport=transport).ping(
        ctxt, 'hello', timeout=5)
    assert answer == {'service': 'conductor', 'arg': 'hello'}
    # wait_until_ready returns at once when a server consumes.
    baserpc.BaseAPI('conductor', transport=transport).wait_until_ready(
        ctxt, timeout=5)


def test_wait_until_ready_gives_up_after_timeout(plane_no_api):
    import oslo_messaging as messaging
    import pytest

    from nova_lite import baserpc
    from nova_lite import rpc
    ctxt = nova_context.get_admin_context()
    # Nobody serves this vhost: every ping times out, and after `timeout`
    # the caller gets MessagingTimeout instead of waiting forever.
    api = baserpc.BaseAPI('conductor',
                          transport=rpc.get_transport('inproc:///nobody'))
    with pytest.raises(messaging.MessagingTimeout):
        api.wait_until_ready(ctxt, timeout=0.5, early_timeout=0.2)


def test_computes_report_my_ip_as_host_ip(tmp_path, conf):
    from tests.conftest import set_override
    from tests.functional.conftest import start_plane
    from tests.functional.conftest import stop_plane
    set_override('my_ip', '192.0.2.77')
    p = start_plane(tmp_path / 'state', with_api=False)
    try:
        ips = _by_cell(p, lambda c: {
            str(n.host_ip) for n in objects.ComputeNodeList.get_all(c)})
    finally:
        stop_plane(p)
    assert ips['cell1'] == ips['cell2'] == {'192.0.2.77'}


def test_upgrade_check_passes_on_the_running_all_in_one(plane_no_api,
                                                         capsys):
    """nova-lite-status against the config the all-in-one writes."""
    import json
    import os

    from nova_lite.cmd import status
    capsys.readouterr()
    code = status.main(['--config-file',
                        os.path.join(plane_no_api.state_dir,
                                     'nova_lite.conf'),
                        'upgrade', 'check', '--json'])
    out = capsys.readouterr().out
    checks = {c['check']: c['result'] for c in json.loads(out)['checks']}
    assert code == 0, out
    assert checks == {'Cells v2': 0, 'Service Versions': 0,
                      'Online Data Migrations': 0}


def _touches_api_db(ctxt):
    @api_db.reader
    def count_cells(context):
        return len(context.session.execute(
            sa.text('SELECT id FROM cell_mappings')).fetchall())
    return count_cells(ctxt)


def _touches_cell_db(ctxt):
    @main_db.reader
    def count_services(context):
        return len(context.session.execute(
            sa.text('SELECT id FROM services')).fetchall())
    return count_services(ctxt)


def test_in_process_computes_and_cell_conductors_refuse_the_api_db(
        plane_no_api):
    """The deployment's rules hold in one process: a cell conductor's
    contexts (its own and those it receives) never reach the API DB, a
    compute's reach no database; the super conductor's may."""
    by_host = {s.host: s for s in plane_no_api.services}
    cell_conductor = by_host['cell1-conductor']
    compute = by_host['cell1-compute1']
    super_conductor = by_host['aio']
    assert _touches_api_db(super_conductor.context) == 3
    assert _touches_cell_db(cell_conductor.context) > 0
    with pytest.raises(RuntimeError, match='API database'):
        _touches_api_db(cell_conductor.context)
    received = nova_context.get_admin_context()
    cell_conductor.context_hook(received)
    with pytest.raises(RuntimeError, match='API database'):
        _touches_api_db(received)
    for refused in (_touches_api_db, _touches_cell_db):
        with pytest.raises(RuntimeError):
            refused(compute.context)
