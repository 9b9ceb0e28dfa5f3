"""Canary of nova_lite._compat.oslo_messaging: the fake driver it
builds the inproc driver on, and the rabbit driver's RPC listener whose
class StopSafeRPCServer swaps, are as it assumes."""
import inspect
import threading
from unittest import mock

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake
from oslo_messaging.rpc import server as rpc_server
import pytest

from nova_lite._compat import oslo_messaging as messaging_compat


def _params(fn):
    return list(inspect.signature(fn).parameters)


def test_fake_driver_classes_take_the_arguments_used():
    assert _params(impl_fake.FakeDriver.__init__) == [
        'self', 'conf', 'url', 'default_exchange', 'allowed_remote_exmods']
    assert _params(impl_fake.FakeListener.__init__) == [
        'self', 'exchange_manager', 'targets', 'pool']
    assert _params(impl_fake.FakeExchange.deliver_message) == [
        'self', 'topic', 'ctxt', 'message', 'server', 'fanout', 'reply_q']
    assert _params(impl_fake.FakeExchange.poll) == ['self', 'target', 'pool']
    assert _params(impl_fake.FakeIncomingMessage.__init__) == [
        'self', 'ctxt', 'message', 'reply_q', 'requeue']
    assert _params(base.PollStyleListenerAdapter.__init__) == [
        'self', 'poll_style_listener', 'batch_size', 'batch_timeout']


def test_fake_driver_keeps_its_state_where_the_subclasses_read_it():
    manager = impl_fake.FakeExchangeManager('canary-ex')
    assert manager._default_exchange == 'canary-ex'
    assert isinstance(impl_fake.FakeExchangeManager._exchanges, dict)
    assert hasattr(impl_fake.FakeExchangeManager._exchanges_lock, 'acquire')
    # The waking exchange manager keeps exchanges of its own.
    assert messaging_compat.WakingExchangeManager._exchanges is not \
        impl_fake.FakeExchangeManager._exchanges
    exchange = impl_fake.FakeExchange('canary')
    # A condition can be built on the queues' lock, held re-entrantly.
    condition = threading.Condition(exchange._queues_lock)
    with condition:
        with exchange._queues_lock:
            pass
    target = messaging.Target(topic='t', server='s')
    listener = impl_fake.FakeListener(manager, [target], pool='p')
    assert listener._pool == 'p'
    assert not listener._stopped.is_set()
    listener.stop()
    assert listener._stopped.is_set()
    assert exchange.poll(target, None) == (None, None, None, None)
    exchange.deliver_message('t', {'c': 1}, {'m': 1}, server='s')
    ctxt, message, reply_q, _requeue = exchange.poll(target, None)
    assert (ctxt, message, reply_q) == ({'c': 1}, {'m': 1}, None)
    adapter = base.PollStyleListenerAdapter(listener, 1, None)
    assert adapter._poll_style_listener is listener
    assert callable(base.batch_poll_helper)


def test_fake_driver_checks_messages_with_check_serialize():
    driver = impl_fake.FakeDriver(mock.Mock(), mock.Mock(), 'ex')
    assert driver._default_exchange == 'ex'
    assert isinstance(driver._exchange_manager,
                      impl_fake.FakeExchangeManager)
    driver._check_serialize({'fine': 1})
    with pytest.raises(ValueError):
        driver._check_serialize({'not json': object()})
    sent = []
    with mock.patch.object(impl_fake.FakeDriver, '_check_serialize',
                           side_effect=sent.append):
        driver.send(messaging.Target(topic='t'), {}, {'m': 1})
    assert sent == [{'m': 1}]


def _rpc_listener():
    driver = mock.Mock(prefetch_size=1)
    return amqpdriver.RpcAMQPListener(driver, mock.Mock())


def test_rabbit_rpc_listener_acknowledges_in_its_callback():
    """The behaviour StopSafeRPCServer works around (bug 1695746): the
    day this fails, see whether it can go."""
    listener = _rpc_listener()
    message = mock.Mock()
    with mock.patch.object(amqpdriver.AMQPListener, '__call__') as handled:
        listener(message)
    message.acknowledge.assert_called_once_with()
    handled.assert_called_once_with(message)
    # stop() sets _shutdown, which the swapped class reads.
    listener._shutoff.set()
    listener.stop()
    assert listener._shutdown.is_set()


def test_a_swapped_listener_leaves_late_messages_unacknowledged():
    listener = _rpc_listener()
    adapter = base.PollStyleListenerAdapter(listener, 1, None)
    assert messaging_compat.hold_after_stop(adapter)
    assert type(listener) is messaging_compat.HeldAfterStopListener
    message = mock.Mock()
    with mock.patch.object(amqpdriver.AMQPListener, '__call__') as handled:
        listener(message)
        message.acknowledge.assert_called_once_with()
        listener._shutdown.set()
        late = mock.Mock()
        listener(late)
    late.acknowledge.assert_not_called()
    handled.assert_called_once_with(message)


def test_other_listeners_are_left_alone():
    manager = impl_fake.FakeExchangeManager('ex')
    listener = impl_fake.FakeListener(manager, [messaging.Target(topic='t')])
    adapter = base.PollStyleListenerAdapter(listener, 1, None)
    assert not messaging_compat.hold_after_stop(adapter)
    assert type(listener) is impl_fake.FakeListener


def test_the_rpc_server_makes_its_listener_with_create_listener(
        monkeypatch):
    assert '_create_listener' in rpc_server.RPCServer.__dict__
    seen = []
    monkeypatch.setattr(messaging_compat, 'hold_after_stop', seen.append)
    transport = messaging.get_rpc_transport(cfg.ConfigOpts(),
                                            url='fake:///canary')
    server = messaging.get_rpc_server(
        transport, messaging.Target(topic='canary', server='h'), [],
        executor='threading',
        server_cls=messaging_compat.StopSafeRPCServer)
    server.start()
    try:
        assert len(seen) == 1
        assert type(seen[0]._poll_style_listener) is impl_fake.FakeListener
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
