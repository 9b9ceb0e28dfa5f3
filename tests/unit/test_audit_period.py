"""utils.last_completed_audit_period: the period an audit covers."""
import datetime

import pytest

from nova_lite import utils

D = datetime.datetime
NOW = D(2026, 11, 28, 15, 42, 7, 123)


@pytest.mark.parametrize('unit,begin,end', [
    ('hour', D(2026, 11, 28, 14), D(2026, 11, 28, 15)),
    ('hour@50', D(2026, 11, 28, 13, 50), D(2026, 11, 28, 14, 50)),
    ('day', D(2026, 11, 27), D(2026, 11, 28)),
    ('day@16', D(2026, 11, 26, 16), D(2026, 11, 27, 16)),
    ('month', D(2026, 10, 1), D(2026, 11, 1)),
    ('month@28', D(2026, 10, 28), D(2026, 11, 28)),
    ('month@29', D(2026, 10, 28), D(2026, 11, 28)),
    ('year', D(2025, 1, 1), D(2026, 1, 1)),
    ('year@12', D(2024, 12, 1), D(2025, 12, 1)),
])
def test_last_completed_period(unit, begin, end):
    assert utils.last_completed_audit_period(unit, NOW) == (begin, end)


def test_january_goes_back_a_year_and_now_is_the_default():
    assert utils.last_completed_audit_period(
        'month', D(2026, 1, 15)) == (D(2025, 12, 1), D(2026, 1, 1))
    begin, end = utils.last_completed_audit_period('day')
    assert end <= datetime.datetime.utcnow() and end - begin == \
        datetime.timedelta(days=1)
    with pytest.raises(ValueError):
        utils.last_completed_audit_period('week')
