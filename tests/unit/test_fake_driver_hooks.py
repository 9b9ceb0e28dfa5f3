"""The simulated hypervisor's failure and delay hooks, and its resize
steps (the source keeps its guest set aside until confirm or revert)."""
import time

import pytest

from nova_lite.virt import fake
from tests.conftest import set_override


@pytest.fixture
def driver(conf, tmp_path):
    set_override('state_path', str(tmp_path))
    return fake.FakeDriver('host1')


def test_fail_methods_raise_for_every_host_or_one(driver):
    set_override('fail_methods', ['power_off@host2'], group='fake_driver')
    driver.spawn('u1', 1, 512, 1)
    driver.power_off('u1')               # another host's hook
    set_override('fail_methods', ['power_on@host1'], group='fake_driver')
    with pytest.raises(fake.SimulatedFailure):
        driver.power_on('u1')
    assert driver.get_power_state('u1') == fake.SHUTDOWN
    set_override('fail_methods', ['finish_migration'], group='fake_driver')
    with pytest.raises(fake.SimulatedFailure):
        driver.finish_migration('u2', 1, 512, 1)


def test_delay_methods_sleep_first(driver):
    set_override('delay_methods', {'destroy@host1': '0.2'},
                 group='fake_driver')
    started = time.monotonic()
    driver.destroy('nothing')
    assert time.monotonic() - started >= 0.2


def test_resize_same_host_keeps_both_until_confirm(driver):
    driver.spawn('u1', 1, 512, 1)
    driver.migrate_disk_and_power_off('u1', 'host1')
    driver.migrate_disk_and_power_off('u1', 'host1')   # idempotent
    driver.finish_migration('u1', 2, 1024, 2)
    assert driver.has_resize_copy('u1')
    assert driver.get_available_resource('host1')['vcpus_used'] == 3
    driver.confirm_migration('u1')
    assert not driver.has_resize_copy('u1')
    assert driver.list_guests()['u1']['vcpus'] == 2


def test_revert_brings_back_the_old_guest(driver):
    driver.spawn('u1', 1, 512, 1)
    driver.migrate_disk_and_power_off('u1', 'host2')
    assert driver.get_power_state('u1') is None
    driver.finish_revert_migration('u1', 1, 512, 1, power_on=False)
    assert driver.get_power_state('u1') == fake.SHUTDOWN
    assert not driver.has_resize_copy('u1')
    with pytest.raises(fake.GuestNotFound):
        driver.finish_revert_migration('u2', 1, 512, 1)
