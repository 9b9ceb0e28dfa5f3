"""Pure parts of nova_lite.objects.resource_provider: inventory
validation, capacity, and the retry loop."""
from oslo_db import exception as db_exc
import pytest

from nova_lite import exception
from nova_lite.db.api import retrying
from nova_lite.objects import resource_provider as rp


def test_defaults_are_filled_in():
    assert rp.validate_inventories({'VCPU': {'total': 4}}) == {'VCPU': {
        'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
        'step_size': 1, 'allocation_ratio': 1.0}}


def test_custom_classes_are_accepted_and_others_refused():
    assert rp.validate_inventories({'CUSTOM_X_1': {'total': 1}})
    with pytest.raises(exception.InvalidInventory) as err:
        rp.validate_inventories({'GOLD': {'total': 1}})
    assert 'unknown resource class' in str(err.value)


def test_reserved_may_equal_total():
    inv = rp.validate_inventories({'VCPU': {'total': 4, 'reserved': 4}})
    assert rp.capacity(inv['VCPU']) == 0


@pytest.mark.parametrize('total,reserved,ratio,expected', [
    (8, 0, 16.0, 128), (16384, 512, 1.5, 23808), (10, 3, 1.0, 7),
    (3, 0, 0.5, 1)])
def test_capacity(total, reserved, ratio, expected):
    assert rp.capacity({'total': total, 'reserved': reserved,
                        'allocation_ratio': ratio}) == expected


def test_retrying_retries_transient_errors_only(monkeypatch):
    monkeypatch.setattr(retrying, 'RETRY_SLEEP_MAX', 0)
    failures = [retrying.GenerationChanged(), db_exc.DBDeadlock(),
                db_exc.DBError('(sqlite3.OperationalError) database is '
                               'locked')]
    calls = []

    def flaky():
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return 'done'
    assert retrying.retrying(flaky, 5) == 'done'
    assert len(calls) == 4

    def broken():
        raise db_exc.DBError('disk I/O error')
    with pytest.raises(db_exc.DBError):
        retrying.retrying(broken, 5)


def test_retrying_gives_up_with_the_callers_error(monkeypatch):
    monkeypatch.setattr(retrying, 'RETRY_SLEEP_MAX', 0)
    calls = []

    def always_conflicts():
        calls.append(1)
        raise retrying.GenerationChanged()
    with pytest.raises(exception.ResourceProviderGenerationConflict):
        retrying.retrying(always_conflicts, 3, on_conflict=lambda: (
            exception.ResourceProviderGenerationConflict(
                uuid='u', expected=1, actual=2)))
    assert len(calls) == 4
