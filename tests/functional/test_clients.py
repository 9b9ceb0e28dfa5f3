"""The OpenStack clients users already have, unmodified, against the
in-process plane over real HTTP: openstacksdk with keystoneauth's
admin_token plugin, exactly as the README shows."""
import openstack
import pytest


@pytest.fixture
def sdk(plane):
    conn = openstack.connect(
        auth_type='admin_token',
        auth={'token': 'admin:admin', 'endpoint': plane.endpoint + '/v2.1'},
        load_yaml_config=False, load_envvars=False)
    yield conn
    conn.close()


def test_sdk_lists_services_of_every_cell(sdk):
    services = {(s.binary, s.host): s for s in sdk.compute.services()}
    assert set(services) == {
        ('nova-conductor', 'aio'), ('nova-scheduler', 'aio'),
        ('nova-conductor', 'cell1-conductor'),
        ('nova-conductor', 'cell2-conductor'),
        ('nova-compute', 'cell1-compute1'),
        ('nova-compute', 'cell1-compute2'),
        ('nova-compute', 'cell2-compute1'),
        ('nova-compute', 'cell2-compute2')}
    assert {s.state for s in services.values()} == {'up'}
    assert {s.status for s in services.values()} == {'enabled'}
    # The SDK negotiated a 2.53+ microversion: ids are uuids.
    assert all(len(s.id) == 36 for s in services.values())


def test_sdk_disables_and_enables_a_compute(sdk):
    compute = [s for s in sdk.compute.services()
               if s.host == 'cell2-compute1'][0]
    sdk.compute.disable_service(compute, compute.host, compute.binary,
                                disabled_reason='maintenance')
    again = {s.host: s for s in sdk.compute.services()}['cell2-compute1']
    assert again.status == 'disabled'
    assert again.disabled_reason == 'maintenance'
    sdk.compute.enable_service(compute, compute.host, compute.binary)
    again = {s.host: s for s in sdk.compute.services()}['cell2-compute1']
    assert again.status == 'enabled'


def test_sdk_lists_and_shows_hypervisors(sdk):
    hypervisors = {h.name: h for h in sdk.compute.hypervisors(details=True)}
    assert sorted(hypervisors) == ['cell1-compute1', 'cell1-compute2',
                                   'cell2-compute1', 'cell2-compute2']
    one = sdk.compute.get_hypervisor(hypervisors['cell2-compute2'].id)
    assert one.name == 'cell2-compute2'
    assert one.state == 'up' and one.status == 'enabled'
    assert one.service_details['host'] == 'cell2-compute2'


def test_sdk_sees_fault_format_errors(sdk):
    from openstack import exceptions
    with pytest.raises(exceptions.NotFoundException) as err:
        sdk.compute.get_hypervisor('00000000-0000-4000-8000-000000000000')
    assert err.value.status_code == 404
