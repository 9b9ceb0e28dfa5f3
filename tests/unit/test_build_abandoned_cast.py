"""A build cast that an earlier process of the compute took and died
with (killed between taking the message and its first save) stays in
task scheduling on its host: once the new process has run for
ABANDONED_CAST_GRACE, its periodic task ends it in ERROR, as an
interrupted build; a build cast to this process is left alone."""
import contextlib
import datetime
import time
import types

from nova_lite.compute.service import build_tasks
from nova_lite.objects import instance as instance_obj

NOW = datetime.datetime(2026, 11, 29, 12, 0, 0)


def _tasks(started_ago):
    tasks = build_tasks.BuildTasks(
        'host1', None, lambda uuid: contextlib.nullcontext(), None, None,
        None, None)
    tasks.started = (NOW, time.monotonic() - started_ago)
    return tasks


def _instance(uuid, task_state, changed):
    return types.SimpleNamespace(
        uuid=uuid, task_state=task_state, updated_at=changed,
        created_at=changed)


def _run(monkeypatch, tasks, instances):
    asked, recovered = [], []

    def get_by_filters(context, filters):
        asked.append(filters)
        return [i for i in instances
                if i.task_state in filters['task_state']]
    monkeypatch.setattr(instance_obj.InstanceList, 'get_by_filters',
                        staticmethod(get_by_filters))
    monkeypatch.setattr(
        tasks, 'recover_interrupted_build',
        lambda context, instance, message=None, abandoned_cast=False:
        recovered.append((instance.uuid, abandoned_cast)))
    done = tasks.finish_abandoned_builds(None)
    return asked, recovered, done


def test_a_cast_taken_by_an_earlier_process_ends_in_error(monkeypatch):
    before = NOW - datetime.timedelta(seconds=5)
    after = NOW + datetime.timedelta(seconds=5)
    tasks = _tasks(started_ago=build_tasks.ABANDONED_CAST_GRACE + 1)
    asked, recovered, done = _run(monkeypatch, tasks, [
        _instance('lost', instance_obj.SCHEDULING, before),
        _instance('coming', instance_obj.SCHEDULING, after),
        _instance('spawning', instance_obj.SPAWNING, before)])
    assert instance_obj.SCHEDULING in asked[0]['task_state']
    assert recovered == [('lost', True), ('spawning', False)]
    assert done == ['lost', 'spawning']


def test_no_build_in_scheduling_is_touched_within_the_grace(monkeypatch):
    before = NOW - datetime.timedelta(seconds=5)
    tasks = _tasks(started_ago=1)
    asked, recovered, done = _run(monkeypatch, tasks, [
        _instance('lost', instance_obj.SCHEDULING, before)])
    assert instance_obj.SCHEDULING not in asked[0]['task_state']
    assert recovered == [] and done == []
