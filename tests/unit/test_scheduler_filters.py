"""The host filter registry: Nova's names, order, unknown names."""
import pytest

from nova_lite.conf import CONF
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import build_request as request_spec
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import aggregate
from nova_lite.scheduler.filters import availability_zone
from nova_lite.scheduler.filters import compute
from nova_lite.scheduler.filters import image_props
from nova_lite.scheduler import host_state


def _state(host, up=True, disabled=False):
    return host_state.HostState('uuid-' + host, host, host + '-node',
                                'cell', up, disabled, {})


def _spec(**kw):
    kw.setdefault('availability_zone', None)
    kw.setdefault('ignore_hosts', [])
    kw.setdefault('requested_destination', None)
    return request_spec.RequestSpec(**kw)


def test_enabled_keeps_order_and_skips_unknown_names(caplog):
    found = filters.enabled(['AvailabilityZoneFilter', 'NoSuchFilter',
                             ' ComputeFilter', 'NoSuchFilter'])
    assert [type(f) for f in found] == [
        availability_zone.AvailabilityZoneFilter, compute.ComputeFilter]
    assert caplog.text.count('NoSuchFilter') == 1


def test_compute_filter_drops_down_and_disabled_hosts():
    states = [_state('a'), _state('b', up=False), _state('c', disabled=True)]
    kept = filters.filter_hosts(None, states, _spec(), ['ComputeFilter'])
    assert [s.host for s in kept] == ['a']


@pytest.mark.parametrize('zone, kept', [(None, ['a', 'b']),
                                        ('nova', ['a']), ('az1', ['b']),
                                        ('elsewhere', [])])
def test_availability_zone_filter(zone, kept, monkeypatch):
    """Host b is in zone az1 through an aggregate, a in none (the
    default zone); the batch's zones are read in one call."""
    calls = []

    def metadata_by_host(context, hosts):
        calls.append(set(hosts))
        return {'b': [('agg-uuid', {'availability_zone': 'az1',
                                    'ssd': 'true'})]}
    monkeypatch.setattr(aggregate_obj, 'metadata_by_host', metadata_by_host)
    CONF.set_override('default_availability_zone', 'nova')
    try:
        assert [s.host for s in filters.filter_hosts(
            None, [_state('a'), _state('b')], _spec(availability_zone=zone),
            ['AvailabilityZoneFilter'])] == kept
    finally:
        CONF.clear_override('default_availability_zone')
    assert calls == ([] if zone is None else [{'a', 'b'}])


@pytest.mark.parametrize('value, requirement, matches', [
    ('true', 'true', True), ('true', 'false', False),
    ('16', '>= 8', True), ('4', '>= 8', False), ('16', '= 8', True),
    ('ssd-fast', '<in> fast', True), ('b', '<or> a <or> b', True),
    ('c', '<or> a <or> b', False), ('abc', 's== abc', True),
    ('x', '>= 8', False)])
def test_aggregate_extra_specs_operators(value, requirement, matches):
    assert aggregate.match(value, requirement) is matches


@pytest.mark.parametrize('wanted, supported', [
    ((None, None, None), True), (('x86_64', None, None), True),
    (('x86_64', 'qemu', 'hvm'), True), (('s390x', None, None), False),
    ((None, 'xen', None), False)])
def test_image_properties_support(wanted, supported):
    assert image_props.supports(wanted) is supported


def test_requested_host_node_cell_and_ignored_hosts_always_apply():
    states = [_state('a'), _state('b')]
    CONF.set_override('enabled_filters', [], group='filter_scheduler')
    try:
        assert [s.host for s in host_state.passing(
            None, states, _spec(ignore_hosts=['a']))] == ['b']
        assert [s.host for s in host_state.passing(
            None, states, _spec(requested_destination={'host': 'a'}))
        ] == ['a']
    finally:
        CONF.clear_override('enabled_filters', group='filter_scheduler')


def _group_spec(policy, hosts, **rules):
    from nova_lite import objects
    group = objects.InstanceGroup(uuid='7e3c4b1a-5d2f-4c8e-9a0b-1f2e3d4c5b6a',
                                  name='g', policy=policy, rules=rules,
                                  members=[], hosts=list(hosts))
    return _spec(instance_group=group)


@pytest.mark.parametrize('policy, hosts, rules, kept', [
    ('anti-affinity', ['a'], {}, ['b', 'c']),
    ('anti-affinity', ['a', 'a', 'b'], {'max_server_per_host': 2},
     ['b', 'c']),
    ('affinity', ['b'], {}, ['b']),
    ('affinity', [], {}, ['a', 'b', 'c']),
    ('soft-anti-affinity', ['a', 'b'], {}, ['a', 'b', 'c']),
])
def test_server_group_filters(policy, hosts, rules, kept):
    states = [_state('a'), _state('b'), _state('c')]
    names = ['ServerGroupAntiAffinityFilter', 'ServerGroupAffinityFilter']
    assert [s.host for s in filters.filter_hosts(
        None, states, _group_spec(policy, hosts, **rules), names)] == kept


def test_server_group_filters_pass_requests_without_a_group():
    states = [_state('a')]
    names = ['ServerGroupAntiAffinityFilter', 'ServerGroupAffinityFilter',
             'SameHostFilter', 'DifferentHostFilter']
    assert filters.filter_hosts(None, states, _spec(), names) == states
    assert filters.filter_hosts(None, states, _spec(scheduler_hints={}),
                                names) == states


@pytest.mark.parametrize('policy, best', [('soft-anti-affinity', 'c'),
                                          ('soft-affinity', 'a')])
def test_soft_weighers_follow_the_members(policy, best):
    states = [_state('a'), _state('b'), _state('c')]
    for s in states:
        s.free['MEMORY_MB'] = 1000
    spec = _group_spec(policy, ['a', 'a', 'b'])
    assert host_state.weigh(states, spec=spec)[0].host == best
