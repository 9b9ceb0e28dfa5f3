"""Extra spec validation across the 2.85/2.86 boundary, through the WSGI
app (flavor_fixtures.mixed): from 2.86 specs of the namespaces Nova knows
must be known keys with valid values (400 naming the key); other
namespaces pass; below 2.86 nothing is validated; reads never change."""
import json

import pytest

from nova_lite.api.openstack.compute import extra_spec_validators as esv
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api.flavor_fixtures import get

VALID = {
    'hw:cpu_policy': 'dedicated',
    'hw:cpu_thread_policy': 'isolate',
    'hw:emulator_threads_policy': 'share',
    'hw:mem_page_size': '2MB',
    'hw:numa_nodes': '2',
    'hw:numa_cpus.0': '0-1',
    'hw:numa_mem.0': '512',
    'hw:cpu_sockets': '2',
    'hw:cpu_cores': '4',
    'hw:cpu_threads': '2',
    'hw:max_cpu_sockets': '4',
    'hw:max_cpu_cores': '8',
    'hw:max_cpu_threads': '2',
    'hw:watchdog_action': 'reset',
    'hw:boot_menu': 'true',
    'hw:pmu': 'False',
    'hw:vif_multiqueue_enabled': 'yes',
    'hw_rng:allowed': 'True',
    'hw_rng:rate_bytes': '1024',
    'hw_rng:rate_period': '10',
    'hw_video:ram_max_mb': '64',
    'os:secure_boot': 'required',
    'quota:cpu_shares': '1024',
    'quota:cpu_quota': '-1',
    'quota:disk_read_bytes_sec': '10240000',
    'quota:disk_total_iops_sec': '500',
    'quota:vif_inbound_average': '1000',
    'quota:vif_outbound_burst': '100',
    'resources:VCPU': '2',
    'resources1:CUSTOM_GPU': '1',
    'resources_net:SRIOV_NET_VF': '1',
    'trait:HW_CPU_X86_AVX2': 'required',
    'trait1:CUSTOM_FAST': 'forbidden',
    'group_policy': 'isolate',
    'aggregate_instance_extra_specs:ssd': 'true',
    'capabilities:cpu_info:arch': 'x86_64',
    'accel:device_profile': 'fpga-1',
    'pci_passthrough:alias': 'gpu:2,nic',
    'vmware:storage_policy': 'gold',
    # Namespaces Nova does not know: anything goes.
    'k': 'v',
    'my:own_key': 'whatever',
}

INVALID = [
    ('hw:cpu_policy', 'pinned'),
    ('hw:cpu_thread_policy', 'never'),
    ('hw:emulator_threads_policy', 'x'),
    ('hw:mem_page_size', 'huge'),
    ('hw:numa_nodes', '0'),
    ('hw:numa_nodes', 'two'),
    ('hw:cpu_sockets', '-1'),
    ('hw:cpu_cores', '1.5'),
    ('hw:max_cpu_threads', '0'),
    ('hw:watchdog_action', 'explode'),
    ('hw:boot_menu', 'maybe'),
    ('hw:pmu', '2'),
    ('hw:vif_multiqueue_enabled', ''),
    ('hw_rng:allowed', 'sometimes'),
    ('hw_rng:rate_bytes', '-5'),
    ('hw_video:ram_max_mb', 'lots'),
    ('os:secure_boot', 'yes'),
    ('quota:cpu_shares', '-1'),
    ('quota:disk_write_iops_sec', 'fast'),
    ('quota:vif_inbound_peak', '-3'),
    ('resources:VCPU', 'two'),
    ('resources:NOT_A_CLASS', '1'),
    ('resources1:vcpu', '1'),
    ('trait:CUSTOM_X', 'wanted'),
    ('group_policy', 'share'),
    ('pci_passthrough:alias', 'gpu:two'),
    # Known namespace, unknown key.
    ('hw:cpu_polcy', 'dedicated'),
    ('hw_rng:speed', '1'),
    ('quota:everything', '1'),
    ('os:flavour', 'x'),
    ('accel:profile', 'x'),
]


@pytest.fixture
def app(flavor_app):
    return flavor_app


def _send(app, method, path, body, v, token=ADMIN, status=200):
    return app.request(
        '/v2.1' + path, method=method,
        headers=dict(headers(v, token),
                     **{'Content-Type': 'application/json'}),
        body=json.dumps(body).encode(), status=status)


def _create(app, specs, v, **kw):
    return _send(app, 'POST', '/flavors/a1/os-extra_specs',
                 {'extra_specs': specs}, v, **kw)


def _update(app, key, value, v, **kw):
    return _send(app, 'PUT', '/flavors/a1/os-extra_specs/%s' % key,
                 {key: value}, v, **kw)


def test_every_commonly_used_key_is_in_the_table():
    for key in VALID:
        if key not in ('k', 'my:own_key'):
            assert esv.find(key) is not None, key
    for spec in esv.EXTRA_SPECS:
        assert spec.description and spec.description.strip()


@pytest.mark.parametrize('v', ['2.86', '2.88', 'latest'])
def test_valid_specs_are_accepted_from_2_86(app, mixed, v):
    assert _create(app, VALID, v).json == {'extra_specs': VALID}
    after = get(app, '/flavors/a1/os-extra_specs', v=v)['extra_specs']
    assert after == dict(VALID)
    for key, value in [('hw:cpu_policy', 'mixed'), ('resources:VCPU', '4'),
                       ('hw:mem_page_size', '1048576')]:
        assert _update(app, key, value, v).json == {key: value}


@pytest.mark.parametrize('key,value', INVALID)
def test_invalid_specs_are_400_naming_the_key_at_2_86(app, mixed, key,
                                                       value):
    before = get(app, '/flavors/a1/os-extra_specs')
    fault = _create(app, {key: value, 'k': 'v'}, '2.86', status=400).json
    assert fault['badRequest']['code'] == 400
    assert key in fault['badRequest']['message']
    fault = _update(app, key, value, '2.86', status=400).json
    assert key in fault['badRequest']['message']
    # Nothing was written.
    assert get(app, '/flavors/a1/os-extra_specs') == before


@pytest.mark.parametrize('key,value', INVALID)
def test_nothing_is_validated_at_2_85(app, mixed, key, value):
    assert _create(app, {key: value}, '2.85').json == {
        'extra_specs': {key: value}}
    assert _update(app, key, value, '2.1').json == {key: value}
    assert get(app, '/flavors/a1/os-extra_specs/%s' % key,
               v='2.88') == {key: value}


def test_numbers_are_validated_as_their_string(app, mixed):
    assert _create(app, {'hw:numa_nodes': 2}, '2.86').json == {
        'extra_specs': {'hw:numa_nodes': 2}}
    assert get(app, '/flavors/a1/os-extra_specs/hw:numa_nodes') == {
        'hw:numa_nodes': '2'}
    fault = _create(app, {'hw:numa_nodes': 1.5}, '2.86', status=400).json
    assert 'hw:numa_nodes' in fault['badRequest']['message']


def test_policy_before_validation(app, mixed):
    """A member may not write specs: 403, whatever the spec."""
    fault = _create(app, {'hw:cpu_policy': 'bad'}, '2.86', token=MEMBER,
                    status=403).json
    assert fault['forbidden']['code'] == 403


def test_legacy_flavor_specs_validated_too(app, mixed):
    _send(app, 'POST', '/flavors/l1/os-extra_specs',
          {'extra_specs': {'hw:cpu_policy': 'bad'}}, '2.86', status=400)
    _send(app, 'POST', '/flavors/l1/os-extra_specs',
          {'extra_specs': {'hw:cpu_policy': 'shared'}}, '2.86')
    assert get(app, '/flavors/l1/os-extra_specs/hw:cpu_policy') == {
        'hw:cpu_policy': 'shared'}
