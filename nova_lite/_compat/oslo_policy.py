"""oslo.policy internals: the ``inspect`` module its checks use.

- ``oslo_policy._checks.inspect``: oslo.policy's ``_check`` reads the
  signature of each check's ``__call__`` with
  ``inspect.getfullargspec`` at every check of every rule (about 2% of a
  server action's CPU). memoize_check_signatures gives that module an
  ``inspect`` whose ``getfullargspec`` remembers each function's answer;
  everything else in it is the standard module's. For speed only: should
  oslo.policy stop importing ``inspect`` under that name, checks work as
  before, only slower. Gone when oslo.policy reads a check's signature
  once (when the check is built) instead of at every call.

tests/unit/compat/test_oslo_policy.py is the canary.
"""
import inspect
import types

from oslo_policy import _checks

INTERNALS = (
    'oslo_policy._checks.inspect',
)


def memoize_check_signatures(memoize):
    """Make oslo.policy's checks read signatures through
    memoize(inspect.getfullargspec), a reader that remembers them and
    carries a true ``memoized`` attribute (once per process)."""
    if getattr(_checks.inspect.getfullargspec, 'memoized', False):
        return
    shim = types.ModuleType('inspect')
    shim.__dict__.update(inspect.__dict__)
    shim.getfullargspec = memoize(inspect.getfullargspec)
    _checks.inspect = shim


def check_signature_reader():
    """The getfullargspec oslo.policy's checks use now."""
    return _checks.inspect.getfullargspec
