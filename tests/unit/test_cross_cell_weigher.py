"""The CrossCellWeigher: hosts of the source cell weigh
[filter_scheduler] cross_cell_move_weight_multiplier during a move that
may cross cells, nothing otherwise; best_hosts reads enough candidates
for the preferred cells to be found."""
import pytest

from nova_lite import objects
from nova_lite.scheduler import host_state
from nova_lite.scheduler import weights
from tests.conftest import set_override

SRC, OTHER = 'cell-src', 'cell-other'


def _state(name, cell, ram, up=True):
    return host_state.HostState(name, name, name, cell, up, False,
                                {'MEMORY_MB': ram})


def _spec(cross_cell=True, source=SRC, ignore=()):
    dest = ({'cell_uuid': None, 'host': None, 'allow_cross_cell_move': True,
             'source_cell_uuid': source} if cross_cell
            else {'cell_uuid': source, 'host': None})
    return objects.RequestSpec(availability_zone=None,
                               ignore_hosts=list(ignore),
                               requested_destination=dest)


@pytest.fixture
def multiplier(conf):
    def set_to(value):
        set_override('cross_cell_move_weight_multiplier', value,
                     group='filter_scheduler')
    return set_to


# The source cell's host has less free RAM: by capacity alone the other
# cell's host wins.
HOSTS = [_state('src1', SRC, 1024), _state('oth1', OTHER, 4096)]


def test_default_multiplier_prefers_the_source_cell(conf):
    assert conf.filter_scheduler.cross_cell_move_weight_multiplier == 1e6
    weigher = weights.CrossCellWeigher(_spec())
    assert weigher.weight(HOSTS[0]) == 1e6
    assert weigher.weight(HOSTS[1]) == 0.0
    assert [s.host for s in host_state.weigh(HOSTS, spec=_spec())] == [
        'src1', 'oth1']


def test_negative_multiplier_prefers_the_other_cells(multiplier):
    multiplier(-1e6)
    weigher = weights.CrossCellWeigher(_spec())
    assert weigher.weight(HOSTS[0]) == -1e6
    assert weigher.weight(HOSTS[1]) == 0.0
    hosts = [_state('src1', SRC, 4096), _state('oth1', OTHER, 1024)]
    assert [s.host for s in host_state.weigh(hosts, spec=_spec())] == [
        'oth1', 'src1']


def test_zero_multiplier_is_a_no_op(multiplier):
    multiplier(0.0)
    weigher = weights.CrossCellWeigher(_spec())
    assert not weigher.active
    assert weigher.weight(HOSTS[0]) == 0.0
    assert [s.host for s in host_state.weigh(HOSTS, spec=_spec())] == [
        'oth1', 'src1']


def test_small_multiplier_adds_to_the_capacity_weights(multiplier):
    # ram weigher: 0..1 (x1.0); +0.5 for the source cell does not beat
    # a full point of free RAM.
    multiplier(0.5)
    assert [s.host for s in host_state.weigh(HOSTS, spec=_spec())] == [
        'oth1', 'src1']
    multiplier(1.5)
    assert [s.host for s in host_state.weigh(HOSTS, spec=_spec())] == [
        'src1', 'oth1']


def test_not_a_cross_cell_spec_is_a_no_op(conf):
    for spec in (None, _spec(cross_cell=False),
                 objects.RequestSpec(requested_destination=None)):
        weigher = weights.CrossCellWeigher(spec)
        assert not weigher.active
        assert weigher.weight(HOSTS[0]) == 0.0
        assert [s.host for s in host_state.weigh(HOSTS, spec=spec)] == [
            'oth1', 'src1']


def _candidates(states):
    return [{'uuid': s.uuid, 'free': dict(s.free)} for s in states]


@pytest.fixture
def read(monkeypatch):
    """best_hosts over these states instead of cells; records the
    batches of candidates read."""
    batches = []

    def use(states):
        by_uuid = {s.uuid: s for s in states}

        def host_states(context, cells, batch):
            batches.append([c['uuid'] for c in batch])
            return {c['uuid']: by_uuid[c['uuid']] for c in batch}
        monkeypatch.setattr(host_state, 'host_states', host_states)
        return batches
    return use


def _many():
    """BATCH * 2 source-cell hosts with the most free RAM, then two
    hosts of another cell with the least."""
    n = host_state.BATCH * 2
    states = [_state('src%02d' % i, SRC, 10000 + i) for i in range(n)]
    states += [_state('oth%d' % i, OTHER, 100 + i) for i in range(2)]
    return states


def test_negative_multiplier_reads_past_source_cell_batches(read,
                                                            multiplier):
    multiplier(-1e6)
    states = _many()
    batches = read(states)
    best = host_state.best_hosts(None, [], _candidates(states), _spec(),
                                 wanted=3, per_cell=2)
    assert [s.host for s in best[:2]] == ['oth1', 'oth0']
    assert len(batches) > 1


def test_positive_multiplier_stops_in_the_source_cell(read, multiplier):
    multiplier(1e6)
    states = _many()
    batches = read(states)
    best = host_state.best_hosts(None, [], _candidates(states), _spec(),
                                 wanted=3, per_cell=3)
    assert best[0].cell_uuid == SRC
    assert len(batches) == 1   # the first batch already settles it


def test_positive_multiplier_finds_a_source_host_far_down(read,
                                                          multiplier):
    multiplier(1e6)
    n = host_state.BATCH * 3
    states = [_state('oth%02d' % i, OTHER, 10000 + i) for i in range(n)]
    states.append(_state('src0', SRC, 10))
    read(states)
    best = host_state.best_hosts(None, [], _candidates(states), _spec(),
                                 wanted=1, per_cell=1)
    assert best[0].host == 'src0'
    # Excluded (a resize's source host): the other cell then.
    best = host_state.best_hosts(None, [], _candidates(states),
                                 _spec(ignore=['src0']), wanted=1,
                                 per_cell=1)
    assert best[0].cell_uuid == OTHER
