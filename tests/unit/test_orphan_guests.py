"""How a compute judges and treats a guest no live server owns
(compute.service.orphans): deleted, gone, or on another host; reap,
shutdown, log, noop; running_deleted_instance_timeout; moves left
alone."""
import datetime

from oslo_utils import timeutils
import pytest

from nova_lite.compute.service import locks
from nova_lite.compute.service import orphans
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake
from tests.conftest import set_override

HOST = 'h1'


class _Driver(object):
    def __init__(self, *keys):
        self.guests = {k: {'power_state': fake.RUNNING} for k in keys}

    def list_guests(self):
        return dict(self.guests)

    def destroy(self, uuid, with_resize_copy=False):
        self.guests.pop(uuid, None)
        if with_resize_copy:
            self.guests.pop(uuid + fake.RESIZE_SUFFIX, None)

    def power_off(self, key):
        self.guests[key]['power_state'] = fake.SHUTDOWN


class _Freed(object):
    def __init__(self):
        self.ports = []

    def deallocate_for_instance(self, context, uuid):
        self.ports.append(uuid)


def _instance(uuid, host=HOST, deleted_ago=None, **extra):
    values = dict(uuid=uuid, host=host, deleted=deleted_ago is not None,
                  deleted_at=None, hidden=False, task_state=None,
                  migration_context=None)
    if deleted_ago is not None:
        values['deleted_at'] = timeutils.utcnow(with_timezone=True) - \
            datetime.timedelta(seconds=deleted_ago)
    values.update(extra)
    return objects.Instance(**values)


@pytest.fixture
def cell(monkeypatch):
    rows = {}

    def get_by_uuid(context, uuid, read_deleted='no'):
        assert read_deleted == 'yes'
        if uuid not in rows:
            raise exception.InstanceNotFound(instance_id=uuid)
        return rows[uuid]
    monkeypatch.setattr(instance_obj.Instance, 'get_by_uuid', get_by_uuid)
    monkeypatch.setattr(orphans.compute_inventory, 'placement_for',
                        lambda ctxt: _Placement(freed))
    freed = []
    rows['freed'] = freed
    return rows


class _Placement(object):
    def __init__(self, freed):
        self.freed = freed

    def remove_allocations(self, context, uuid):
        self.freed.append(uuid)


def _reaper(driver):
    return orphans.Reaper(HOST, driver, locks.InstanceLocks(), _Freed(),
                          terminate=None)


def test_classify(conf, cell):
    set_override('running_deleted_instance_timeout', 60)
    cell['mine'] = _instance('mine')
    cell['old'] = _instance('old', deleted_ago=120)
    cell['recent'] = _instance('recent', deleted_ago=5)
    cell['away'] = _instance('away', host='h2')
    cell['moving'] = _instance('moving', host='h2', task_state='resize_prep')
    cell['hidden'] = _instance('hidden', host='h2', hidden=True)
    why = {key: getattr(orphans.classify(None, HOST, key), 'why', None)
           for key in ('mine', 'old', 'recent', 'away', 'moving', 'hidden',
                       'nowhere', 'away' + fake.RESIZE_SUFFIX,
                       'old' + fake.RESIZE_SUFFIX)}
    assert why == {'mine': None, 'old': 'deleted', 'recent': None,
                   'away': 'elsewhere', 'moving': None, 'hidden': None,
                   'nowhere': 'gone', 'away_resize': None,
                   'old_resize': 'deleted'}


@pytest.mark.parametrize('action, left, state, freed', [
    ('reap', ['mine'], None, ['dead']),
    ('shutdown', ['away', 'dead', 'mine'], fake.SHUTDOWN, []),
    ('log', ['away', 'dead', 'mine'], fake.RUNNING, []),
    ('noop', ['away', 'dead', 'mine'], fake.RUNNING, []),
])
def test_actions(conf, cell, monkeypatch, action, left, state, freed):
    set_override('running_deleted_instance_action', action)
    cell['mine'] = _instance('mine')
    cell['dead'] = _instance('dead', deleted_ago=1)
    cell['away'] = _instance('away', host='h2')
    driver = _Driver('mine', 'dead', 'away')
    reaper = _reaper(driver)
    monkeypatch.setattr(reaper, 'finish_stuck_deletes', lambda ctxt: None)
    reaper.run_once(None)
    assert sorted(driver.guests) == left
    if state is not None:
        assert driver.guests['dead']['power_state'] == state
    assert driver.guests['mine']['power_state'] == fake.RUNNING
    # Only a deleted server's allocations and ports are freed (the one
    # on h2 still holds its own).
    assert cell['freed'] == freed
    assert reaper.network_api.ports == freed


def test_poll_interval(conf, cell, monkeypatch):
    set_override('running_deleted_instance_poll_interval', 100)
    reaper = _reaper(_Driver())
    looks = []
    monkeypatch.setattr(reaper, '_look', lambda ctxt: looks.append(1) or
                        setattr(reaper, '_last_run', timeutils.utcnow()))
    monkeypatch.setattr(reaper, 'finish_stuck_deletes', lambda ctxt: None)
    assert reaper.run_if_due(None) == 100
    assert 99 <= reaper.run_if_due(None) <= 100
    assert looks == [1]
    set_override('running_deleted_instance_poll_interval', 0)
    assert reaper.run_if_due(None) is None


def test_nova_defaults(conf):
    assert conf.running_deleted_instance_action == 'reap'
    assert conf.running_deleted_instance_poll_interval == 1800
    assert conf.running_deleted_instance_timeout == 0
