"""Pure parts of nova_lite.placement: inventory validation, capacity, and
the retries (generation conflicts, transient database errors)."""
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
import pytest

from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers as rp


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


@pytest.fixture
def no_sleep(monkeypatch):
    monkeypatch.setattr(placement_db, 'RETRY_SLEEP_MAX', 0)
    monkeypatch.setattr(placement_db.time, 'sleep', lambda seconds: None)


def test_retrying_retries_transient_errors_only(no_sleep):
    failures = [placement_db.GenerationChanged(), db_exc.DBDeadlock(),
                db_exc.DBConnectionError(),
                db_exc.DBError('(sqlite3.OperationalError) database is '
                               'locked'), placement_db.GenerationChanged()]
    calls = []

    def flaky():
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return 'done'
    assert placement_db.retrying(flaky, 5) == 'done'
    assert len(calls) == 6

    def broken():
        calls.append(1)
        raise db_exc.DBError('disk I/O error')
    del calls[:]
    with pytest.raises(db_exc.DBError):
        placement_db.retrying(broken, 5)
    assert len(calls) == 1


def test_transient_errors_are_retried_by_oslo_db():
    """Deadlocks and lost connections go through oslo_db.api.wrap_db_retry
    (the generation loop is ours)."""
    assert isinstance(placement_db.transient_retry, oslo_db_api.wrap_db_retry)
    assert placement_db.transient_retry.max_retries == placement_db.DB_RETRIES


def test_transient_retries_give_up_with_the_database_error(monkeypatch):
    monkeypatch.setattr('oslo_db.api.time.sleep', lambda seconds: None)
    calls = []

    def always_deadlocks():
        calls.append(1)
        raise db_exc.DBDeadlock()
    with pytest.raises(db_exc.DBDeadlock):
        placement_db.retrying(always_deadlocks, 3)
    assert len(calls) == placement_db.DB_RETRIES + 1


def test_retrying_gives_up_with_the_callers_error(no_sleep):
    calls = []

    def always_conflicts():
        calls.append(1)
        raise placement_db.GenerationChanged()
    with pytest.raises(exception.ResourceProviderGenerationConflict):
        placement_db.retrying(always_conflicts, 3, on_conflict=lambda: (
            exception.ResourceProviderGenerationConflict(
                uuid='u', expected=1, actual=2)))
    assert len(calls) == 4


@pytest.mark.parametrize('generation', [-1, 1.5, '1', True])
def test_bad_consumer_generations_are_refused(generation):
    with pytest.raises(exception.InvalidInput):
        allocations.claim(None, 'c', {'p': {'VCPU': 1}},
                          consumer_generation=generation)


def test_a_consumer_cannot_move_to_itself():
    with pytest.raises(exception.InvalidInput):
        allocations.move_allocations(None, 'c', 'c')
    with pytest.raises(exception.InvalidInput):
        allocations.claim(None, 'c', {'p': {'VCPU': 1}}, move_to='c')
