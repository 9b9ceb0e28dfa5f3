"""conductor/tasks/base.py: a failure at every position rolls back
exactly the steps that ran, in reverse, and re-raises the original."""
import logging

import pytest

from nova_lite.conductor.tasks import base

N = 4


class Boom(Exception):
    pass


class RollbackBoom(Exception):
    pass


class Step(base.TaskBase):
    def __init__(self, journal, name, fail=False, fail_rollback=False):
        super().__init__(context=None)
        self.journal = journal
        self.step = name
        self.fail = fail
        self.fail_rollback = fail_rollback

    def _execute(self):
        self.journal.append(('execute', self.step))
        if self.fail:
            raise Boom(self.step)
        return self.step

    def rollback(self, ex):
        self.journal.append(('rollback', self.step, str(ex)))
        if self.fail_rollback:
            raise RollbackBoom(self.step)


def _steps(journal, fail_at=None, rollback_fails=()):
    return [Step(journal, i, fail=(i == fail_at),
                 fail_rollback=(i in rollback_fails)) for i in range(N)]


def test_all_steps_run_in_order_and_return_their_results():
    journal = []
    task = base.CompositeTask(None, _steps(journal))
    assert task.execute() == list(range(N))
    assert journal == [('execute', i) for i in range(N)]


@pytest.mark.parametrize('fail_at', range(N))
def test_failure_rolls_back_completed_steps_in_reverse(fail_at):
    journal = []
    task = base.CompositeTask(None, _steps(journal, fail_at))
    with pytest.raises(Boom) as exc:
        task.execute()
    assert str(exc.value) == str(fail_at)
    executed = [('execute', i) for i in range(fail_at + 1)]
    # The failing step undoes its own partial work first, then the
    # completed ones newest first; steps after it never run.
    rolled_back = [('rollback', i, str(fail_at))
                   for i in range(fail_at, -1, -1)]
    assert journal == executed + rolled_back


@pytest.mark.parametrize('fail_at', range(N))
@pytest.mark.parametrize('bad_rollback', range(N))
def test_rollback_error_is_logged_and_the_rest_still_roll_back(
        fail_at, bad_rollback, caplog):
    journal = []
    task = base.CompositeTask(
        None, _steps(journal, fail_at, rollback_fails={bad_rollback}))
    with caplog.at_level(logging.ERROR, logger=base.__name__):
        with pytest.raises(Boom):
            task.execute()
    rolled = [e[1] for e in journal if e[0] == 'rollback']
    assert rolled == list(range(fail_at, -1, -1))
    logged = [r for r in caplog.records if 'Rollback of Step' in
              r.getMessage()]
    assert len(logged) == (1 if bad_rollback <= fail_at else 0)
    if logged:
        assert isinstance(logged[0].exc_info[1], RollbackBoom)


def test_every_rollback_failing_still_raises_the_original_error():
    journal = []
    task = base.CompositeTask(
        None, _steps(journal, N - 1, rollback_fails=set(range(N))))
    with pytest.raises(Boom):
        task.execute()
    assert [e[1] for e in journal if e[0] == 'rollback'] == \
        list(range(N - 1, -1, -1))


def test_nested_composite_rolls_back_its_own_steps_in_reverse():
    journal = []
    inner = base.CompositeTask(None, [Step(journal, 'a'), Step(journal, 'b')])
    outer = base.CompositeTask(
        None, [Step(journal, 'first'), inner, Step(journal, 'last',
                                                   fail=True)])
    with pytest.raises(Boom):
        outer.execute()
    assert [e[1] for e in journal if e[0] == 'rollback'] == \
        ['last', 'b', 'a', 'first']


def test_rerun_after_failure_rolls_back_only_the_second_run():
    journal = []
    steps = _steps(journal, fail_at=1)
    task = base.CompositeTask(None, steps)
    with pytest.raises(Boom):
        task.execute()
    steps[1].fail = False
    steps[2].fail = True
    del journal[:]
    with pytest.raises(Boom):
        task.execute()
    assert [e[1] for e in journal if e[0] == 'rollback'] == [2, 1, 0]


def test_single_task_rolls_back_and_reraises():
    journal = []
    step = Step(journal, 'only', fail=True, fail_rollback=True)
    with pytest.raises(Boom):
        step.execute()
    assert journal == [('execute', 'only'), ('rollback', 'only', 'only')]


def test_task_without_execute_cannot_be_made():
    class Incomplete(base.TaskBase):
        pass
    with pytest.raises(TypeError):
        Incomplete(None)
