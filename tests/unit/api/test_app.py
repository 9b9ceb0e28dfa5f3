"""The pecan app's memoized signature reader."""
from pecan import util as pecan_util

from nova_lite.api import app as api_app
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


def test_the_app_factory_memoizes_the_reader_pecan_uses(monkeypatch):
    monkeypatch.setattr(pecan_util, '_getargspec', pecan_util._getargspec)
    api_app.v21_app_factory({})
    assert pecan_util._getargspec.memoized
    # pecan.util.getargspec looks the reader up by this name on each call.
    assert '_getargspec' in pecan_util.getargspec.__code__.co_names


def test_custom_path_segments_are_detected_once_per_class(monkeypatch):
    from pecan import routing as pecan_routing
    seen = []
    monkeypatch.setattr(pecan_routing, '_detect_custom_path_segments',
                        lambda obj: seen.append(type(obj)))
    api_app.v21_app_factory({})
    detect = pecan_routing._detect_custom_path_segments
    assert detect.once

    class Fresh(object):
        pass
    detect(Fresh())
    assert seen == [Fresh]
    pecan_routing.__observed_controllers__.add(Fresh)
    try:
        detect(Fresh())
        assert seen == [Fresh]
    finally:
        pecan_routing.__observed_controllers__.discard(Fresh)
