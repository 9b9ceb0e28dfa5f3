"""A compute whose build's last save (ACTIVE) got no answer asks the
instance again before undoing anything (build_tasks._saved_active): a
broker restart can lose the answer to a save the conductor made, and
undoing the guest then leaves an ACTIVE server with nothing behind."""
import types

import oslo_messaging as messaging
import pytest

from nova_lite.compute.service import build_tasks
from nova_lite.objects import instance as instance_obj


class _Instance(object):
    uuid = 'u1'

    def __init__(self):
        self.reset = False

    def obj_reset_changes(self):
        self.reset = True


def _tasks():
    return build_tasks.BuildTasks('host1', None, None, None, None, None,
                                  None)


@pytest.fixture
def answers(monkeypatch):
    queue = []

    def get_by_uuid(context, uuid):
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer
    monkeypatch.setattr(instance_obj.Instance, 'get_by_uuid',
                        staticmethod(get_by_uuid))
    monkeypatch.setattr(build_tasks, 'SAVED_ACTIVE_RETRY', 0)
    return queue


def _fresh(vm_state, task_state=None, host='host1'):
    return types.SimpleNamespace(vm_state=vm_state, task_state=task_state,
                                 host=host)


def test_saved_active_after_the_queue_answers_again(answers):
    answers.extend([messaging.MessagingTimeout('lost'),
                    _fresh(instance_obj.ACTIVE)])
    instance = _Instance()
    assert _tasks()._saved_active(None, instance)
    assert instance.reset and not answers


@pytest.mark.parametrize('fresh', [
    _fresh(instance_obj.BUILDING, instance_obj.SPAWNING),
    _fresh(instance_obj.ACTIVE, 'deleting'),
    _fresh(instance_obj.ACTIVE, host='host2'),
])
def test_not_saved(answers, fresh):
    answers.append(fresh)
    assert not _tasks()._saved_active(None, _Instance())


def test_no_answer_in_time_undoes(answers, monkeypatch):
    monkeypatch.setattr(build_tasks, 'SAVED_ACTIVE_WAIT', 0)
    answers.extend([messaging.MessagingTimeout('lost')] * 2)
    assert not _tasks()._saved_active(None, _Instance())
