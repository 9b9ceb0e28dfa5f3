"""Host discovery, written once (objects.host_mapping.discover_hosts)
for nova-lite-manage, the all-in-one and the scheduler: discoveries
racing each other map every host once, a host mapped to another cell
meanwhile is reported and left as it is; a scheduler with [scheduler]
discover_hosts_in_cells_interval set maps a newly started compute's
host by itself, and with -1 (the default) it does not."""
import time

import pytest

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import host_mapping
from nova_lite import service
from tests.conftest import set_override
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

NEW_HOST = 'cell1-compute9'


def _record_computes(plane, cell_name, hosts):
    """Service records of computes in a cell, as starting computes
    leave them (none of them runs)."""
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, plane.cells[cell_name]) as cctxt:
        for host in hosts:
            objects.Service(cctxt, host=host, binary='nova-compute',
                            topic='compute').create()


def _mappings(ctxt):
    return {m.host: m.cell_mapping.name
            for m in objects.HostMappingList.get_all(ctxt)}


def test_racing_discoveries_map_each_host_once(plane_no_api):
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    cells = list(plane.cells.values())
    _record_computes(plane, 'cell1', ['new-a', 'new-b'])
    _record_computes(plane, 'cell2', ['new-c'])
    other = []

    def race(line):
        # Another discovery runs between this one's read of the
        # mappings and its first create.
        if line.startswith('Creating host mapping') and not other:
            other.append(host_mapping.discover_hosts(ctxt, cells))

    found = host_mapping.discover_hosts(ctxt, cells, status_fn=race)
    assert sorted(other[0].hosts()) == ['new-a', 'new-b', 'new-c']
    assert (found.mapped, found.conflicts, found.unreadable) == ([], [], [])
    mappings = _mappings(ctxt)
    assert {h: mappings[h] for h in ('new-a', 'new-b', 'new-c')} == {
        'new-a': 'cell1', 'new-b': 'cell1', 'new-c': 'cell2'}
    # Nothing left to map.
    again = host_mapping.discover_hosts(ctxt, cells)
    assert (again.mapped, again.conflicts) == ([], [])


def test_a_host_mapped_elsewhere_meanwhile_is_reported_not_remapped(
        plane_no_api):
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    cells = list(plane.cells.values())
    _record_computes(plane, 'cell1', ['twice'])

    def race(line):
        if line.startswith('Creating host mapping for twice '):
            objects.HostMapping(ctxt, host='twice',
                                cell_mapping=plane.cells['cell2']).create()

    found = host_mapping.discover_hosts(ctxt, cells, status_fn=race)
    assert found.mapped == []
    assert [(h, c.name, o.name) for h, c, o in found.conflicts] == [
        ('twice', 'cell1', 'cell2')]
    assert found.problems() == [
        'Host twice in cell %s is already mapped to cell %s; not '
        'remapped.' % (plane.cells['cell1'].identity,
                       plane.cells['cell2'].identity)]
    assert _mappings(ctxt)['twice'] == 'cell2'
    # Reported again next time, never remapped.
    again = host_mapping.discover_hosts(ctxt, cells)
    assert [h for h, _c, _o in again.conflicts] == ['twice']
    assert _mappings(ctxt)['twice'] == 'cell2'


def _plane(tmp_path, interval):
    set_override('discover_hosts_in_cells_interval', interval,
                 group='scheduler')
    set_override('periodic_interval', 1)
    return start_plane(tmp_path / 'state')


def _start_compute(plane, host):
    """One more compute in cell1, started like the plane's own."""
    peer = next(s for s in plane.services if s.host == 'cell1-compute1')
    ctxt = nova_context.get_admin_context()
    peer.context_hook(ctxt)
    compute = service.Service(host, peer.binary, peer.topic,
                              [type(peer.endpoints[0])(host)],
                              base_context=ctxt, transport=peer.transport,
                              context_hook=peer.context_hook)
    plane.services.append(compute)
    compute.start()


def _disable(api, host):
    """PUT /os-services/disable: found only through the host's mapping."""
    return api('PUT', '/os-services/disable',
               {'host': host, 'binary': 'nova-compute'},
               token=ADMIN).status_code


def _listed(api, host):
    services = api('GET', '/os-services?binary=nova-compute',
                   token=ADMIN).json()['services']
    return host in [s['host'] for s in services]


@pytest.fixture
def discovering(tmp_path, conf):
    plane = _plane(tmp_path, 1)
    yield plane
    stop_plane(plane)


@pytest.fixture
def not_discovering(tmp_path, conf):
    plane = _plane(tmp_path, -1)
    yield plane
    stop_plane(plane)


def test_the_scheduler_maps_a_new_compute_every_interval(discovering):
    api = Client(discovering.endpoint)
    _start_compute(discovering, NEW_HOST)
    wait_for(lambda: _listed(api, NEW_HOST), timeout=30,
             message='%s recorded' % NEW_HOST)
    wait_for(lambda: _disable(api, NEW_HOST) == 200, timeout=30,
             message='%s mapped by the scheduler' % NEW_HOST)
    mapping = objects.HostMapping.get_by_host(
        nova_context.get_admin_context(), NEW_HOST)
    assert mapping.cell_mapping.name == 'cell1'


def test_the_scheduler_maps_nothing_with_minus_one(not_discovering):
    api = Client(not_discovering.endpoint)
    _start_compute(not_discovering, NEW_HOST)
    wait_for(lambda: _listed(api, NEW_HOST), timeout=30,
             message='%s recorded' % NEW_HOST)
    # Several runs of every periodic task ([DEFAULT] periodic_interval).
    time.sleep(3)
    assert _disable(api, NEW_HOST) == 404
