"""The simulated hypervisor keeps its guests across restarts: a snapshot
file and a journal of one line per change, compacted at start and every
JOURNAL_MAX changes."""
import json
import os

import pytest

from nova_lite.virt import fake
from tests.conftest import set_override


@pytest.fixture
def state(conf, tmp_path):
    set_override('state_path', str(tmp_path))
    return tmp_path / 'fake-hypervisor'


def _files(state, host='host1'):
    return state / ('%s.json' % host), state / ('%s.journal' % host)


def test_every_change_survives_a_restart(state):
    driver = fake.FakeDriver('host1')
    for uuid in ('u1', 'u2', 'u3', 'u4'):
        driver.spawn(uuid, 1, 512, 1)
    driver.power_off('u1')
    driver.pause('u2')
    driver.migrate_disk_and_power_off('u3', 'host2')
    driver.attach_volume('u4', {'serial': 'v1'}, '/dev/vdb')
    driver.destroy('u4')
    snapshot, journal = _files(state)
    # Nothing compacted yet: the changes are lines of the journal.
    assert json.loads(snapshot.read_text()) == {}
    assert len(journal.read_text().splitlines()) == 9
    before = driver.list_guests()
    again = fake.FakeDriver('host1')
    assert again.list_guests() == before
    assert set(before) == {'u1', 'u2', 'u3' + fake.RESIZE_SUFFIX}
    assert again.get_power_state('u1') == fake.SHUTDOWN
    assert again.get_power_state('u2') == fake.PAUSED
    assert again.has_resize_copy('u3')
    # The restart compacted: one file, an empty journal.
    assert json.loads(snapshot.read_text()) == before
    assert journal.read_text() == ''
    again.confirm_migration('u3')
    assert fake.FakeDriver('host1').list_guests() == {
        k: v for k, v in before.items() if k != 'u3' + fake.RESIZE_SUFFIX}


def test_a_line_cut_short_by_a_crash_is_ignored(state):
    driver = fake.FakeDriver('host1')
    driver.spawn('u1', 1, 512, 1)
    driver.power_off('u1')
    _snapshot, journal = _files(state)
    with open(journal, 'a') as f:
        f.write('{"u1": {"vcpus": 1, "power_st')
    assert fake.FakeDriver('host1').get_power_state('u1') == fake.SHUTDOWN


def test_a_journal_replayed_onto_a_snapshot_that_has_it_changes_nothing(
        state):
    """A crash after a compaction's new snapshot, before its journal was
    emptied: the lines are whole states, so replaying them again gives
    the same guests."""
    driver = fake.FakeDriver('host1')
    driver.spawn('u1', 1, 512, 1)
    driver.spawn('u2', 1, 512, 1)
    driver.destroy('u2')
    driver.power_off('u1')
    snapshot, journal = _files(state)
    lines = journal.read_text()
    guests = driver.list_guests()
    snapshot.write_text(json.dumps(guests))
    journal.write_text(lines)
    assert fake.FakeDriver('host1').list_guests() == guests


def test_the_journal_is_compacted_every_journal_max_changes(
        state, monkeypatch):
    monkeypatch.setattr(fake, 'JOURNAL_MAX', 5)
    driver = fake.FakeDriver('host1')
    driver.spawn('u1', 1, 512, 1)
    snapshot, journal = _files(state)
    driver.power_off('u1')
    driver.power_on('u1')
    driver.power_off('u1')
    assert len(journal.read_text().splitlines()) == 4
    driver.power_on('u1')           # the fifth change: compacted
    assert journal.read_text() == ''
    assert json.loads(snapshot.read_text())['u1']['power_state'] == (
        fake.RUNNING)
    assert not os.path.exists(str(snapshot) + '.tmp')
