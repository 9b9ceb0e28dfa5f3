"""The per-instance locks of a compute host.

Every method of the compute RPC API that touches an instance runs
under its lock, so build, terminate and the actions of one instance on
one host never interleave; instances do not wait for each other.
"""
import collections
import contextlib

import eventlet


class InstanceLocks(object):
    """One green lock per instance uuid, dropped when nobody holds it:
    ``with locks(instance.uuid): ...``."""

    def __init__(self):
        self._locks = collections.defaultdict(eventlet.semaphore.Semaphore)
        self._users = collections.Counter()

    def busy(self, key):
        """Whether someone holds or waits for key's lock."""
        return bool(self._users.get(key))

    @contextlib.contextmanager
    def __call__(self, key):
        self._users[key] += 1
        lock = self._locks[key]
        lock.acquire()
        try:
            yield
        finally:
            lock.release()
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key]
                self._locks.pop(key, None)
