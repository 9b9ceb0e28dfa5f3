"""The in-memory transport: inproc:// URLs reach a driver whose listeners
are woken by delivery (nova_lite.inproc_transport); fake:// URLs are
oslo.messaging's own fake driver."""
import threading
import uuid

import oslo_messaging as messaging
from oslo_messaging._drivers import impl_fake
import pytest

from nova_lite._compat import oslo_messaging as messaging_compat
from nova_lite import inproc_transport
from nova_lite import rpc


class Endpoint(object):
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.casts = []
        self.cast_seen = threading.Event()

    def echo(self, ctxt, value):
        return value

    def note(self, ctxt, value):
        self.casts.append(value)
        self.cast_seen.set()


def _listener():
    manager = messaging_compat.WakingExchangeManager(
        'ex-%s' % uuid.uuid4().hex)
    return messaging_compat.WakingListener(
        manager, [messaging.Target(topic='t', server='s', exchange=None)])


@pytest.fixture
def no_periodic_wakeups(monkeypatch):
    """A listener that is not woken by a delivery sleeps an hour: a
    test passing with it shows delivery wakes listeners."""
    monkeypatch.setattr(messaging_compat, 'MAX_WAIT', 3600)


@pytest.fixture
def server_and_client():
    url = 'inproc:///inproc-%s' % uuid.uuid4().hex[:8]
    transport = rpc.get_transport(url)
    target = messaging.Target(topic='inproc-test', server='host1')
    endpoint = Endpoint()
    server = messaging.get_rpc_server(transport, target, [endpoint],
                                      executor='threading')
    server.start()
    client = messaging.get_rpc_client(
        transport, messaging.Target(topic='inproc-test', version='1.0'),
        timeout=30)
    yield transport, endpoint, client
    server.stop()
    server.wait()
    rpc.cleanup()


def test_inproc_urls_are_served_by_the_inproc_driver():
    transport = rpc.get_transport('inproc:///inproc-kind')
    try:
        assert type(transport._driver) is inproc_transport.Driver
    finally:
        rpc.cleanup()


def test_fake_urls_are_served_by_oslo_messagings_fake_driver():
    transport = rpc.get_transport('fake:///fake-kind')
    try:
        assert type(transport._driver) is impl_fake.FakeDriver
    finally:
        rpc.cleanup()


def test_calls_and_casts_reach_a_sleeping_listener(no_periodic_wakeups,
                                                   server_and_client):
    _transport, endpoint, client = server_and_client
    # Each message finds the server's listener waiting (it has nothing
    # queued); only the delivery signal can wake it within the timeouts.
    for value in range(3):
        assert client.call({}, 'echo', value=value) == value
    client.cast({}, 'note', value='x')
    assert endpoint.cast_seen.wait(30)
    assert endpoint.casts == ['x']


def test_server_and_fanout_casts_reach_a_sleeping_listener(
        no_periodic_wakeups, server_and_client):
    _transport, endpoint, client = server_and_client
    # Only the listeners a message is for are woken: the server's own
    # queue and a fanout must still find it.
    for value, target in (('to-host', {'server': 'host1'}),
                          ('fanout', {'fanout': True})):
        endpoint.cast_seen.clear()
        client.prepare(**target).cast({}, 'note', value=value)
        assert endpoint.cast_seen.wait(30)
    assert endpoint.casts == ['to-host', 'fanout']


def test_stop_wakes_a_waiting_listener(no_periodic_wakeups):
    listener = _listener()
    polled = []
    poller = threading.Thread(target=lambda: polled.append(listener.poll()))
    poller.start()
    listener.stop()
    poller.join(30)
    assert not poller.is_alive()
    assert polled == [[]]


def test_a_poll_with_a_timeout_returns_empty():
    listener = _listener()
    assert listener.poll(timeout=0.01) == []


class _NotJson(object):
    pass


def test_messages_a_broker_could_not_carry_are_refused_when_checked(
        server_and_client, monkeypatch):
    """In-process (the functional tests) every message is first encoded
    as a broker needs it; the all-in-one command turns that off."""
    _transport, endpoint, client = server_and_client
    assert inproc_transport.CHECK_MESSAGES
    with pytest.raises(ValueError, match='Cannot convert'):
        client.call({}, 'echo', value=_NotJson())
    monkeypatch.setattr(inproc_transport, 'CHECK_MESSAGES', False)
    assert isinstance(client.call({}, 'echo', value=_NotJson()), _NotJson)
