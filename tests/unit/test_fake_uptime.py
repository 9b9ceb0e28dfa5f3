"""The simulated hypervisor words its uptime as uptime(1) does."""
import pytest

from nova_lite.virt import fake


@pytest.mark.parametrize('seconds,expected', [
    (5, '0 min'), (65, '1 min'), (3600, '1:00'), (3600 + 61, '1:01'),
    (86400 + 60, '1 day, 1 min'),
    (3 * 86400 + 4 * 3600 + 5 * 60, '3 days,  4:05'),
])
def test_up_for_reads_like_uptime(seconds, expected):
    assert fake._up_for(seconds) == expected
