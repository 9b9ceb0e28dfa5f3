import pytest

from nova_lite.api.openstack import api_version as av
from nova_lite import exception


def test_versions_compare_numerically():
    assert av.APIVersion('2.10') > '2.9'
    assert av.APIVersion('2.53') == '2.53'
    assert av.APIVersion('2.1') < av.APIVersion('2.11')
    assert av.APIVersion('2.53').matches('2.53', None)
    assert not av.APIVersion('2.52').matches('2.53')
    assert not av.APIVersion('2.88').matches(None, '2.87')


def test_the_table_is_ordered_and_bounded():
    names = ['MIN', 'SERVICE_FORCED_DOWN', 'HYPERVISOR_CPU_INFO_OBJECT',
             'HYPERVISOR_PAGING', 'SERVICE_HYPERVISOR_UUID_IDS',
             'SERVICE_DOWN_CELLS', 'STRICT_QUERY_EMPTY_SERVERS',
             'HYPERVISOR_CAPACITY_REMOVED']
    values = [av.APIVersion(getattr(av, n)) for n in names]
    assert values == sorted(values)
    assert values[-1] <= av.MAX


@pytest.mark.parametrize('value,expected', [
    (None, av.MIN), ('latest', av.MAX), ('LATEST', av.MAX), ('2.53', '2.53'),
    (' 2.20 ', '2.20')])
def test_from_header_value(value, expected):
    assert av.from_header_value(value) == expected


@pytest.mark.parametrize('value', ['2.0', '2.105', '3.1', '1.1'])
def test_out_of_range_is_406(value):
    with pytest.raises(exception.InvalidGlobalAPIVersion) as info:
        av.from_header_value(value)
    assert info.value.code == 406


@pytest.mark.parametrize('value', ['', 'x', '2', '2.', '.1', '2.01', '02.1',
                                   '2.1.1', '-2.1'])
def test_malformed_is_400(value):
    with pytest.raises(exception.InvalidAPIVersionString) as info:
        av.from_header_value(value)
    assert info.value.code == 400


def test_before_is_the_previous_minor_version():
    assert av.before(av.SERVICE_HYPERVISOR_UUID_IDS) == '2.52'
    assert av.before('2.1') == '2.0'
    with pytest.raises(ValueError):
        av.before('3.0')
