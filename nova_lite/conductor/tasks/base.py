"""Orchestration steps of the super conductor: tasks with rollback.

A task is one step of an orchestration (build, resize, a cross-cell
move). ``execute()`` runs ``_execute()``; when that raises, the task's
``rollback(ex)`` undoes what ``_execute()`` did and the original error
propagates -- also when the rollback itself fails (that failure is
logged). A ``CompositeTask`` runs its subtasks in order; when one fails
(it has already rolled itself back), the subtasks that completed are
rolled back newest first, each rollback error logged without stopping the
others, and the original error propagates.

Each task's docstring states its entry state (what must hold before
``execute()``) and its exit state (what holds after it returns).

``step_boundary(name)`` runs before each named step of a move (the
cross-cell chain, its confirm and revert, and the scheduling before a
resize is handed off; and, in the API, ``boot_cast``: a boot written
but not yet sent to a conductor): it calls every observer in
``STEP_OBSERVERS``
with the step's name. Nothing in nova_lite adds one; a plugin may, as
its process starts (entry-point group ``nova_lite.start_hooks``, see
nova_lite.service.prepare_process) -- the tests' plugin (tests/plugin)
uses it to kill, crash or fail a super conductor at a given step. An
observer's ``Exception`` fails the step like any error of the step (it
is rolled back); any other ``BaseException`` leaves the orchestration
where it is, no rollback, as the end of its thread or process would.
"""
import abc

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# fn(step_name), called by step_boundary; empty unless a plugin adds one.
STEP_OBSERVERS = []


def step_boundary(name):
    """Call every step observer with name, before step name runs."""
    for observer in tuple(STEP_OBSERVERS):
        observer(name)


class TaskBase(metaclass=abc.ABCMeta):
    """One step of an orchestration.

    On entry: whatever the subclass documents.
    On exit: execute() returned _execute()'s result; or it raised the
    error of _execute() after rollback(ex) ran.
    """

    def __init__(self, context):
        self.context = context

    @property
    def name(self):
        return type(self).__name__

    def execute(self):
        """Run _execute(); on failure roll back and re-raise its error."""
        try:
            return self._execute()
        except Exception as ex:
            _rollback_logging_errors(self, ex)
            raise

    @abc.abstractmethod
    def _execute(self):
        """The step itself; resources are gathered in __init__."""

    def rollback(self, ex):
        """Undo what _execute() did before it raised ex (only that: it
        may have failed at any point). The default undoes nothing."""


def _rollback_logging_errors(task, ex):
    try:
        task.rollback(ex)
    except Exception:
        LOG.exception('Rollback of %s after "%s" failed; continuing',
                      task.name, ex)


class CompositeTask(TaskBase):
    """Subtasks run in order as one task.

    On entry: the first subtask's entry state.
    On exit: every subtask ran; execute() returns their results in order.
    On failure: the failing subtask rolled itself back, the completed
    ones were rolled back in reverse order, the original error raised.
    """

    def __init__(self, context, subtasks):
        super().__init__(context)
        self.subtasks = list(subtasks)
        self.completed = []

    def _execute(self):
        self.completed = []
        results = []
        for task in self.subtasks:
            results.append(task.execute())
            self.completed.append(task)
        return results

    def rollback(self, ex):
        for task in reversed(self.completed):
            _rollback_logging_errors(task, ex)
