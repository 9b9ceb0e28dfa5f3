"""The memoized signature reader (utils.memoized_argspec)."""
from pecan import util as pecan_util

from nova_lite import utils


class _Controller(object):
    def post(self, body, extra=None):
        pass


def test_signatures_are_read_once_per_function():
    reads = []

    def read(func):
        reads.append(func)
        return pecan_util._getargspec(func)

    getargspec = utils.memoized_argspec(read)
    first = getargspec(_Controller().post)
    assert getargspec(_Controller().post) is first
    assert getargspec(_Controller.post) is first
    assert first.args == ['self', 'body', 'extra']
    assert reads == [_Controller.post]


def test_other_callables_are_read_every_time():
    reads = []

    def read(func):
        reads.append(func)
        return 'spec'

    getargspec = utils.memoized_argspec(read)
    callable_object = _Controller()
    getargspec(callable_object)
    getargspec(callable_object)
    assert reads == [callable_object, callable_object]
