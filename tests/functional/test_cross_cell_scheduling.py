"""The CrossCellWeigher through the real scheduler: select_destinations
over RPC in a running two-cell plane (two computes per cell) for a
cross-cell move's request spec.

The source cell's hosts are made fuller than the other cell's (a filler
consumer's allocation) so that capacity alone would pick the other
cell: the source cell still wins by default, the other cell with a
negative multiplier, and alternates never leave the primary's cell.
And the 2.56 target host check across cells."""
from oslo_utils import uuidutils
import pytest

from nova_lite.compute.api import server_resize
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.placement import allocations
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from tests.conftest import set_override
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane

FILLER = 'f1110000-0000-4000-8000-000000000001'


class Cells(object):
    def __init__(self, plane):
        self.plane = plane
        self.ctxt = nova_context.get_admin_context()
        self.nodes = {}
        for name, cell in plane.cells.items():
            with nova_context.target_cell(self.ctxt, cell) as cctxt:
                self.nodes[name] = {
                    n.host: n.uuid
                    for n in objects.ComputeNodeList.get_all(cctxt)}
        self.cell_of = {cell.uuid: name
                        for name, cell in plane.cells.items()}
        self.source = plane.cells['cell1'].uuid


@pytest.fixture(scope='module')
def cells(tmp_path_factory):
    plane = start_plane(tmp_path_factory.mktemp('plane') / 'state',
                        with_api=False)
    try:
        c = Cells(plane)
        # cell1's computes fuller: by free RAM cell2 is better.
        allocations.claim(c.ctxt, FILLER, {
            uuid: {'MEMORY_MB': 2048}
            for uuid in c.nodes['cell1'].values()},
            project_id='p', user_id='u')
        yield c
    finally:
        stop_plane(plane)


@pytest.fixture
def overrides():
    done = []

    def set_to(name, value, group):
        set_override(name, value, group=group)
        done.append((name, group))
    yield set_to
    from nova_lite.conf import CONF
    for name, group in done:
        CONF.clear_override(name, group=group)


def _select(cells, ignore=(), cross_cell=True):
    dest = ({'cell_uuid': None, 'host': None, 'allow_cross_cell_move': True,
             'source_cell_uuid': cells.source} if cross_cell
            else {'cell_uuid': cells.source, 'host': None})
    flavor = embedded_flavor.EmbeddedFlavor(
        id=1, flavorid='tiny', name='tiny', memory_mb=64, vcpus=1,
        root_gb=0, ephemeral_gb=0, swap=0, extra_specs={})
    consumer = uuidutils.generate_uuid()
    spec = objects.RequestSpec(
        instance_uuid=consumer, project_id='p', user_id='u', flavor=flavor,
        image=None, num_instances=1, availability_zone=None,
        ignore_hosts=list(ignore), requested_destination=dest,
        scheduler_hints=None, is_bfv=False)
    try:
        [selections] = scheduler_rpcapi.SchedulerAPI().select_destinations(
            cells.ctxt, spec, [consumer], return_alternates=True)
    finally:
        allocations.remove_allocations(cells.ctxt, consumer)
    return [(s['host'], cells.cell_of[s['cell_uuid']]) for s in selections]


def test_same_cell_request_stays_in_its_cell(cells):
    for _ in range(3):
        assert {cell for _, cell in _select(cells, cross_cell=False)} == {
            'cell1'}


def test_source_cell_preferred_by_default(cells):
    # Not a no-op only by luck of ties: cell2 has more free RAM.
    for _ in range(3):
        picked = _select(cells)
        assert picked[0][1] == 'cell1'
        # Alternates: only from the primary's cell.
        assert {cell for _, cell in picked} == {'cell1'}
        assert len(picked) == 2


def test_ignored_source_host_leaves_the_source_cell_preferred(cells):
    hosts = sorted(cells.nodes['cell1'])
    for _ in range(3):
        picked = _select(cells, ignore=[hosts[0]])
        assert picked == [(hosts[1], 'cell1')]


def test_negative_multiplier_prefers_another_cell(cells, overrides):
    overrides('cross_cell_move_weight_multiplier', -1000000.0,
              'filter_scheduler')
    # Stack (fuller first): by capacity cell1 would win now.
    overrides('ram_weight_multiplier', -1.0, 'scheduler')
    for _ in range(3):
        picked = _select(cells)
        assert picked[0][1] == 'cell2'
        assert {cell for _, cell in picked} == {'cell2'}
        assert len(picked) == 2


def test_zero_multiplier_follows_capacity(cells, overrides):
    overrides('cross_cell_move_weight_multiplier', 0.0, 'filter_scheduler')
    for _ in range(3):
        picked = _select(cells)
        assert picked[0][1] == 'cell2'
        assert {cell for _, cell in picked} == {'cell2'}


def _instance_in(cells, cell_name, host):
    """What the API holds of a server of cell_name on host: an Instance
    whose context targets its cell."""
    ctxt = nova_context.get_admin_context()
    nova_context.set_target_cell(ctxt, cells.plane.cells[cell_name])
    instance = objects.Instance(uuid=uuidutils.generate_uuid(), host=host)
    instance._context = ctxt
    return instance


def test_2_56_target_host_across_cells(cells):
    """server_resize._check_target_host: another cell's compute only
    when a cross-cell move is allowed; an unknown host is the same 400
    (MigrateHostNotFound) either way."""
    src, dst = sorted(cells.nodes['cell1'])
    other = sorted(cells.nodes['cell2'])[0]
    instance = _instance_in(cells, 'cell1', src)
    server_resize._check_target_host(instance, dst)
    server_resize._check_target_host(instance, dst, allow_cross_cell=True)
    with pytest.raises(exception.MigrateHostNotFound):
        server_resize._check_target_host(instance, other)
    server_resize._check_target_host(instance, other, allow_cross_cell=True)
    for allow in (False, True):
        with pytest.raises(exception.MigrateHostNotFound):
            server_resize._check_target_host(instance, 'no-such-host',
                                             allow_cross_cell=allow)
        # A host that is no compute (the other cell's conductor).
        with pytest.raises(exception.MigrateHostNotFound):
            server_resize._check_target_host(
                instance, 'cell2-conductor', allow_cross_cell=allow)
        with pytest.raises(exception.CannotMigrateToSameHost):
            server_resize._check_target_host(instance, src,
                                             allow_cross_cell=allow)
