"""An RPC server stopped while the rabbit driver still reads its
connection leaves a late request to the broker, for the next server of
the topic (nova_lite.rpc.get_server, nova_lite._compat.oslo_messaging
.StopSafeRPCServer).

It runs oslo.messaging's rabbit driver over kombu's in-memory broker
(``kombu+memory://``), so it needs no RabbitMQ. That broker has no
heartbeats and does not requeue a closed channel's unacknowledged
messages, so the test does both itself: after stop() it drains the
stopped server's connection as the driver's heartbeat thread does with
RabbitMQ, and it asks the broker to requeue what the connection left
unacknowledged as RabbitMQ does when the connection closes.
tests/real/test_rolling_restart.py covers the same with RabbitMQ and
real service restarts.
"""
import threading
import uuid

import oslo_messaging as messaging
from oslo_messaging.rpc import server as rpc_server

from nova_lite import context as nova_context
from nova_lite import rpc


class Endpoint(object):
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.notes = []
        self.noted = threading.Event()

    def echo(self, ctxt, value):
        return value

    def note(self, ctxt, value):
        self.notes.append(value)
        self.noted.set()


def _late_cast_after_stop(make_server, patience=10):
    """A server of a fresh topic answers a call, is stopped, a cast
    arrives (its connection drained after stop), it finishes (wait), and
    a second server of the topic starts: (first server's notes, second
    server's notes within patience seconds)."""
    transport = rpc.get_transport('kombu+memory:////')
    target = messaging.Target(topic='stop-%s' % uuid.uuid4().hex[:8],
                              server='host1')
    first, second = Endpoint(), Endpoint()
    ctxt = nova_context.RequestContext()
    client = rpc.get_client(messaging.Target(topic=target.topic,
                                             version='1.0'),
                            transport=transport, timeout=30)
    server = make_server(target, first, transport)
    server.start()
    try:
        assert client.call(ctxt, 'echo', value=5) == 5
        server.stop()
        client.cast(ctxt, 'note', value='late')
        connection = server.listener._poll_style_listener.conn.connection
        # The heartbeat thread's read of the connection, after stop().
        connection.connection.drain_events(timeout=2)
        # RabbitMQ requeues what a closing connection left unacknowledged.
        connection.channel.basic_recover(requeue=True)
    finally:
        server.stop()
        server.wait()
    again = make_server(target, second, transport)
    again.start()
    try:
        second.noted.wait(patience)
    finally:
        again.stop()
        again.wait()
    return first.notes, second.notes


def test_a_request_delivered_after_stop_goes_to_the_next_server():
    def make_server(target, endpoint, transport):
        return rpc.get_server(target, [endpoint], transport=transport)

    try:
        assert _late_cast_after_stop(make_server) == ([], ['late'])
    finally:
        rpc.cleanup()


def test_without_it_the_request_is_acknowledged_and_lost():
    """The control: oslo.messaging's own RPC server loses the request
    (bug 1695746), so the test above would see the loss."""
    def make_server(target, endpoint, transport):
        return messaging.get_rpc_server(
            transport, target, [endpoint],
            serializer=rpc.RequestContextSerializer(),
            server_cls=rpc_server.RPCServer)

    try:
        assert _late_cast_after_stop(make_server, patience=2) == ([], [])
    finally:
        rpc.cleanup()
