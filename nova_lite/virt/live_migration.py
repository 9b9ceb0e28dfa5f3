"""The simulated copy of a live migration: memory (and, for a block
migration, disk) sent to the destination over
[fake_driver] live_migration_seconds, progress reported along the way,
abortable and forceable from another green thread.

A ``Control`` is what the compute holds for one live migration while
it runs (or waits in its queue): ``abort()`` makes the copy raise
``Aborted`` at its next step; ``force_complete()`` makes it finish at
its next step (as a hypervisor pausing the guest to converge).
"""
import time

import eventlet

# Progress is reported (and an abort or a force-complete seen) at most
# this often while the copy runs.
STEP_SECONDS = 0.2


class Aborted(Exception):
    """The live migration was aborted while it copied."""


class Control(object):
    """Abort and force-complete requests of one live migration."""

    def __init__(self):
        self.aborted = False
        self.forced = False

    def abort(self):
        self.aborted = True

    def force_complete(self):
        self.forced = True


def progress(memory_total, disk_total, fraction):
    """{memory_total, memory_processed, memory_remaining, disk_total,
    disk_processed, disk_remaining} (bytes) at fraction (0..1) of the
    copy."""
    found = {}
    for kind, total in (('memory', memory_total), ('disk', disk_total)):
        done = int(total * min(max(fraction, 0.0), 1.0))
        found.update({'%s_total' % kind: total,
                      '%s_processed' % kind: done,
                      '%s_remaining' % kind: total - done})
    return found


def copy(seconds, memory_total, disk_total, report, control):
    """Copy for seconds (0: at once), calling report(progress dict)
    at each step and at the end; Aborted when control is aborted
    before the end; a force-complete ends it at the next step."""
    started = time.monotonic()
    while True:
        if control.aborted:
            raise Aborted()
        elapsed = time.monotonic() - started
        done = (control.forced or seconds <= 0 or elapsed >= seconds)
        report(progress(memory_total, disk_total,
                        1.0 if done else elapsed / seconds))
        if done:
            return
        eventlet.sleep(min(STEP_SECONDS, seconds - elapsed))
