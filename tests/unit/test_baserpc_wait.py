"""BaseAPI.wait_until_ready: short pings first, growing to early_timeout,
so a service started alongside its conductor is ready about as soon as
the conductor consumes (the first pings are lost until its queue
exists)."""
import oslo_messaging as messaging
import pytest

from nova_lite import baserpc


class _Pings(baserpc.BaseAPI):
    """A topic whose first `missed` pings time out."""

    def __init__(self, missed):
        self.topic = 'conductor'
        self.missed = missed
        self.timeouts = []

    def ping(self, context, arg, timeout=None):
        self.timeouts.append(timeout)
        if len(self.timeouts) <= self.missed:
            raise messaging.MessagingTimeout('no answer')
        return {'service': 'conductor', 'arg': arg}


def test_pings_start_short_and_double_up_to_early_timeout():
    api = _Pings(missed=6)
    api.wait_until_ready(None)
    assert api.timeouts == [0.5, 1.0, 2.0, 4.0, 5, 5, 5]


def test_an_answer_to_the_first_ping_is_one_ping():
    api = _Pings(missed=0)
    api.wait_until_ready(None, early_timeout=10)
    assert api.timeouts == [0.5]


def test_an_old_server_refusing_the_namespace_is_ready():
    class Old(_Pings):
        def ping(self, context, arg, timeout=None):
            raise messaging.UnsupportedVersion('1.0')
    Old(missed=0).wait_until_ready(None)


def test_gives_up_after_timeout(monkeypatch):
    clock = iter(range(100))
    monkeypatch.setattr(baserpc.time, 'monotonic', lambda: next(clock))
    api = _Pings(missed=100)
    with pytest.raises(messaging.MessagingTimeout):
        api.wait_until_ready(None, timeout=3)
    assert len(api.timeouts) == 3
