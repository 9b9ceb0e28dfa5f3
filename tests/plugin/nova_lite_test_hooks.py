"""Test hooks at the steps of the super conductor's moves.

nova_lite calls the observers in nova_lite.conductor.tasks.base.
STEP_OBSERVERS before each named step of a move (base.step_boundary);
this module, which only the test environment installs, makes the
observers the tests need:

- kill_at(step): SIGKILL this process at step (its log names the step);
- crash_at(step): raise SimulatedCrash there, a BaseException: nothing
  after it runs and no rollback either, the conductor's thread ends
  there as a crash would end it (the RPC server's executor keeps what
  it raised); CRASHES records the steps, in order;
- fail_at(step): raise SimulatedStepFailure there, an ordinary failure
  of the step (rolled back).

In-process tests add one for a while with ``observing(observer)``. A
process of its own (tests/real) gets one from its environment:
install(), the entry point of group nova_lite.start_hooks that
nova_lite.service.prepare_process runs as the process's first service
starts, adds the observer that NOVA_LITE_TEST_KILL_AT_STEP,
NOVA_LITE_TEST_RAISE_AT_STEP or NOVA_LITE_TEST_FAIL_AT_STEP asks for
(a step name) and nothing when none is set.
"""
import contextlib
import os
import signal

from oslo_log import log as logging

from nova_lite.conductor.tasks import base

LOG = logging.getLogger(__name__)

KILL_ENV = 'NOVA_LITE_TEST_KILL_AT_STEP'
RAISE_ENV = 'NOVA_LITE_TEST_RAISE_AT_STEP'
FAIL_ENV = 'NOVA_LITE_TEST_FAIL_AT_STEP'

# The steps at which SimulatedCrash was raised, in order.
CRASHES = []


class SimulatedStepFailure(Exception):
    """An ordinary failure of a step (rolled back)."""


class SimulatedCrash(BaseException):
    """A crash at a step: a BaseException, so no rollback runs and the
    conductor's endpoint stops there (nothing more is done)."""


def kill_at(step):
    def observer(name):
        if name == step:
            LOG.warning('Killing myself at step %s (test hook)', name)
            os.kill(os.getpid(), signal.SIGKILL)
    return observer


def crash_at(step):
    def observer(name):
        if name == step:
            LOG.warning('Simulated crash at %s (test hook)', name)
            CRASHES.append(name)
            raise SimulatedCrash(name)
    return observer


def fail_at(step):
    def observer(name):
        if name == step:
            raise SimulatedStepFailure('Simulated failure at step %s' % name)
    return observer


@contextlib.contextmanager
def observing(observer):
    """observer is one of the step observers while the block runs."""
    base.STEP_OBSERVERS.append(observer)
    try:
        yield observer
    finally:
        base.STEP_OBSERVERS.remove(observer)


ENVIRONMENT = ((KILL_ENV, kill_at), (RAISE_ENV, crash_at),
               (FAIL_ENV, fail_at))


def install():
    """The start hook: the observers this process's environment asks
    for."""
    for variable, make in ENVIRONMENT:
        step = os.environ.get(variable)
        if step:
            LOG.info('Test hook: %s=%s', variable, step)
            base.STEP_OBSERVERS.append(make(step))
