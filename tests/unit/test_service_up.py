"""When a service counts as up: a missed heartbeat is not a down service."""
import datetime

from oslo_utils import timeutils
import pytest

from nova_lite import objects
from tests.conftest import set_override


def _service(seconds_since_heartbeat, forced_down=False):
    return objects.Service(
        forced_down=forced_down, created_at=None, updated_at=None,
        last_seen_up=timeutils.utcnow(with_timezone=True)
        - datetime.timedelta(seconds=seconds_since_heartbeat))


@pytest.mark.parametrize('service_down_time', [60, 25, 15, 5])
def test_one_missed_heartbeat_is_still_up(conf, service_down_time):
    set_override('report_interval', 10)
    set_override('service_down_time', service_down_time)
    # The last heartbeat failed; the one before it landed 2 intervals
    # and a slow write ago.
    assert _service(2 * 10 + 4).is_up()
    assert not _service(2 * 10 + 4, forced_down=True).is_up()


def test_down_after_service_down_time(conf):
    set_override('report_interval', 10)
    set_override('service_down_time', 60)
    assert _service(59).is_up()
    assert not _service(61).is_up()
    # Configured below 2.5 report intervals: 25 s.
    set_override('service_down_time', 15)
    assert _service(24).is_up()
    assert not _service(26).is_up()
