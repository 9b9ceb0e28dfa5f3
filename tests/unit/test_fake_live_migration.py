"""The simulated copy of a live migration (nova_lite.virt.live_migration):
progress reported from nothing to everything, an abort raising at the
next step, a force-complete ending the copy at the next step."""
import time

import eventlet
import pytest

from nova_lite.virt import live_migration


def test_progress_reaches_the_totals():
    found = live_migration.progress(100, 10, 0.5)
    assert found == {'memory_total': 100, 'memory_processed': 50,
                     'memory_remaining': 50, 'disk_total': 10,
                     'disk_processed': 5, 'disk_remaining': 5}
    assert live_migration.progress(100, 0, 2)['memory_remaining'] == 0


def test_an_instant_copy_reports_once_done():
    reports = []
    live_migration.copy(0, 100, 0, reports.append,
                        live_migration.Control())
    assert [r['memory_processed'] for r in reports] == [100]


def test_abort_and_force_complete_end_a_long_copy_early():
    control = live_migration.Control()
    reports = []

    def report(progress):
        reports.append(progress)
        if len(reports) == 2:
            control.abort()
    with pytest.raises(live_migration.Aborted):
        live_migration.copy(30, 100, 0, report, control)
    assert len(reports) == 2

    control = live_migration.Control()
    eventlet.spawn_after(0.1, control.force_complete)
    started = time.monotonic()
    reports = []
    live_migration.copy(30, 100, 0, reports.append, control)
    assert time.monotonic() - started < 5
    assert reports[-1]['memory_processed'] == 100
    assert reports[0]['memory_processed'] < 100
