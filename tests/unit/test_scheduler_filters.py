"""The host filter registry: Nova's names, order, unknown names."""
import pytest

from nova_lite.conf import CONF
from nova_lite.objects import build_request as request_spec
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import availability_zone
from nova_lite.scheduler.filters import compute
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


@pytest.mark.parametrize('zone, kept', [(None, 1), ('nova', 1),
                                        ('elsewhere', 0)])
def test_availability_zone_filter(zone, kept):
    CONF.set_override('default_availability_zone', 'nova')
    try:
        assert len(filters.filter_hosts(
            None, [_state('a')], _spec(availability_zone=zone),
            ['AvailabilityZoneFilter'])) == kept
    finally:
        CONF.clear_override('default_availability_zone')


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
