"""oslo.messaging internals: the in-memory driver the ``inproc://``
transport builds on, and the RPC server that is safe to stop while
RabbitMQ delivers.

Each internal, and the upstream change that would let it go:

- The fake driver, ``oslo_messaging._drivers.impl_fake``: ``FakeDriver``
  (its ``_exchange_manager``, ``_check_serialize`` and
  ``_default_exchange``), ``FakeExchange`` (its ``_queues_lock``),
  ``FakeExchangeManager`` (its ``_exchanges``, ``_exchanges_lock`` and
  ``_default_exchange``), ``FakeListener`` (its ``_stopped`` and
  ``_pool``) and ``FakeIncomingMessage``; with
  ``_drivers.base.batch_poll_helper`` and
  ``_drivers.base.PollStyleListenerAdapter``. WakingDriver is that
  driver with listeners woken by each delivery instead of polling every
  50 ms (a resize is a dozen messages: 1.0 s to VERIFY_RESIZE became
  0.5 s in the all-in-one). Gone with a public in-memory driver in
  oslo.messaging whose listeners wait on delivery.
- ``MessageHandlingServer._create_listener``,
  ``PollStyleListenerAdapter._poll_style_listener``,
  ``_drivers.amqpdriver.RpcAMQPListener`` (its ``__call__`` and
  ``_shutdown``) and a ``__class__`` swap of the live listener:
  StopSafeRPCServer leaves a request that RabbitMQ delivers after stop()
  unacknowledged, so that the broker delivers it again once the
  connection closes, instead of acknowledging and dropping it
  (oslo.messaging bug 1695746). Gone when oslo.messaging stops consuming
  at stop() (cancels its consumers before the executor drains) or
  acknowledges a request only once it is handed to the executor.

tests/unit/compat/test_oslo_messaging.py is the canary;
tests/functional/test_rpc_stop.py covers StopSafeRPCServer.
"""
import threading
import time

from oslo_log import log as logging
import oslo_messaging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake
from oslo_messaging.rpc import server as rpc_server

LOG = logging.getLogger(__name__)

INTERNALS = (
    'oslo_messaging._drivers.impl_fake.FakeDriver',
    'oslo_messaging._drivers.impl_fake.FakeDriver._check_serialize',
    'oslo_messaging._drivers.impl_fake.FakeDriver._default_exchange',
    'oslo_messaging._drivers.impl_fake.FakeDriver._exchange_manager',
    'oslo_messaging._drivers.impl_fake.FakeExchange',
    'oslo_messaging._drivers.impl_fake.FakeExchange._queues_lock',
    'oslo_messaging._drivers.impl_fake.FakeExchangeManager',
    'oslo_messaging._drivers.impl_fake.FakeExchangeManager._default_exchange',
    'oslo_messaging._drivers.impl_fake.FakeExchangeManager._exchanges',
    'oslo_messaging._drivers.impl_fake.FakeExchangeManager._exchanges_lock',
    'oslo_messaging._drivers.impl_fake.FakeIncomingMessage',
    'oslo_messaging._drivers.impl_fake.FakeListener',
    'oslo_messaging._drivers.impl_fake.FakeListener._pool',
    'oslo_messaging._drivers.impl_fake.FakeListener._stopped',
    'oslo_messaging._drivers.base.batch_poll_helper',
    'oslo_messaging._drivers.base.PollStyleListenerAdapter',
    'oslo_messaging._drivers.base.PollStyleListenerAdapter'
    '._poll_style_listener',
    'oslo_messaging._drivers.amqpdriver.RpcAMQPListener',
    'oslo_messaging._drivers.amqpdriver.RpcAMQPListener.__call__',
    'oslo_messaging._drivers.amqpdriver.RpcAMQPListener._shutdown',
    'oslo_messaging._drivers.amqpdriver.RpcAMQPListener (__class__ swap)',
    'oslo_messaging.server.MessageHandlingServer._create_listener',
)

# A listener re-checks whether it was stopped at least this often (s).
MAX_WAIT = 1.0
# ... and, with targets on several exchanges, the others this often.
SHARED_WAIT = 0.05


class WakingExchange(impl_fake.FakeExchange):
    """A fake exchange that signals each delivery to the listeners it
    is for (not every listener of the exchange: in the all-in-one a
    cell's exchange has its conductor, computes and placement server,
    and each of them woke for every message of the others)."""

    def __init__(self, name):
        super().__init__(name)
        # Listeners' conditions share the queues' lock: a listener
        # checks its queues and starts waiting under one lock, so no
        # delivery slips in between. {topic: {condition: servers}}
        self._waiters = {}

    def condition(self):
        """A condition under the queues' lock, for watch()."""
        return threading.Condition(self._queues_lock)

    def watch(self, condition, targets):
        """Notify condition of deliveries to targets (their topics,
        and the servers among them)."""
        with self._queues_lock:
            for target in targets:
                servers = self._waiters.setdefault(
                    target.topic, {}).setdefault(condition, set())
                servers.add(target.server)

    def unwatch(self, condition):
        with self._queues_lock:
            for by_condition in self._waiters.values():
                by_condition.pop(condition, None)
            condition.notify_all()

    def deliver_message(self, topic, ctxt, message, server=None,
                        fanout=False, reply_q=None):
        with self._queues_lock:
            super().deliver_message(topic, ctxt, message, server=server,
                                    fanout=fanout, reply_q=reply_q)
            for condition, servers in self._waiters.get(topic, {}).items():
                # A message for one server goes to that server's queue
                # only; one for the topic, or a fanout, to every
                # listener of the topic.
                if server is None or fanout or server in servers:
                    condition.notify_all()


class WakingExchangeManager(impl_fake.FakeExchangeManager):
    # Exchanges of this driver, by name (the fake driver keeps its own).
    _exchanges_lock = threading.Lock()
    _exchanges = {}

    def get_exchange(self, name):
        if name is None:
            name = self._default_exchange
        with self._exchanges_lock:
            exchange = self._exchanges.get(name)
            if exchange is None:
                exchange = self._exchanges[name] = WakingExchange(name)
            return exchange


class WakingListener(impl_fake.FakeListener):
    """Waits on its exchange's delivery signal between checks of its
    queues. The targets of one listener share one exchange; should they
    not, deliveries to the others are seen within SHARED_WAIT, as with
    the fake driver."""

    def __init__(self, exchange_manager, targets, pool=None):
        super().__init__(exchange_manager, targets, pool)
        # Each target with its exchange, looked up once (not under the
        # manager's lock at every poll).
        self._queues = [(exchange_manager.get_exchange(target.exchange),
                         target) for target in targets]
        exchanges = []
        for exchange, _target in self._queues:
            if exchange not in exchanges:
                exchanges.append(exchange)
        self._exchanges = exchanges
        first = exchanges[0]
        self._delivered = first.condition()
        first.watch(self._delivered, [
            target for exchange, target in self._queues
            if exchange is first])

    def _next(self):
        for exchange, target in self._queues:
            ctxt, message, reply_q, requeue = exchange.poll(target,
                                                            self._pool)
            if message is not None:
                return impl_fake.FakeIncomingMessage(ctxt, message, reply_q,
                                                     requeue)
        return None

    @base.batch_poll_helper
    def poll(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        signal = self._delivered
        longest = MAX_WAIT if len(self._exchanges) == 1 else SHARED_WAIT
        with signal:
            while not self._stopped.is_set():
                message = self._next()
                if message is not None:
                    return message
                wait = longest
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        break
                signal.wait(wait)
        return None

    def stop(self):
        super().stop()
        self._exchanges[0].unwatch(self._delivered)


class WakingDriver(impl_fake.FakeDriver):
    """oslo.messaging's fake driver with listeners woken by delivery.

    check_messages: whether every message sent is first encoded to JSON
    and the text thrown away, as the fake driver does (a message a
    broker could not carry fails where it is sent); read at every send.
    """

    check_messages = True

    def __init__(self, conf, url, default_exchange=None,
                 allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = WakingExchangeManager(default_exchange)

    def _check_serialize(self, message):
        if self.check_messages:
            super()._check_serialize(message)

    def listen(self, target, batch_size, batch_timeout):
        # The fake driver's targets: the server's own queue and the topic.
        exchange = target.exchange or self._default_exchange
        listener = WakingListener(self._exchange_manager, [
            oslo_messaging.Target(topic=target.topic, server=target.server,
                                  exchange=exchange),
            oslo_messaging.Target(topic=target.topic, exchange=exchange)])
        return base.PollStyleListenerAdapter(listener, batch_size,
                                             batch_timeout)

    def listen_for_notifications(self, targets_and_priorities, pool,
                                 batch_size, batch_timeout):
        targets = [oslo_messaging.Target(topic='%s.%s' % (target.topic,
                                                          priority),
                                         exchange=target.exchange)
                   for target, priority in targets_and_priorities]
        listener = WakingListener(self._exchange_manager, targets, pool)
        return base.PollStyleListenerAdapter(listener, batch_size,
                                             batch_timeout)


class HeldAfterStopListener(amqpdriver.RpcAMQPListener):
    """The rabbit driver's RPC listener, except that a message delivered
    after stop() is left unacknowledged (see StopSafeRPCServer)."""

    def __call__(self, message):
        if self._shutdown.is_set():
            LOG.info('A message arrived after this RPC server stopped: '
                     'left unacknowledged, for RabbitMQ to deliver again '
                     'once this connection closes')
            return
        super().__call__(message)


def hold_after_stop(listener):
    """Make the driver listener under an RPC server's listener (the
    adapter _create_listener returns) leave messages delivered after
    stop() unacknowledged. True when it did: the rabbit driver's RPC
    listener exactly; any other (fake, inproc, a subclass) is left
    as it is."""
    driver_listener = getattr(listener, '_poll_style_listener', None)
    if type(driver_listener) is amqpdriver.RpcAMQPListener:
        driver_listener.__class__ = HeldAfterStopListener
        return True
    return False


class StopSafeRPCServer(rpc_server.RPCServer):
    """oslo.messaging's RPC server, made safe to stop while messages
    arrive.

    With RabbitMQ, oslo.messaging acknowledges a request as soon as its
    connection receives it, before handling it (its consumer callback
    acks, then queues the message for the poll thread: oslo.messaging
    bug 1695746). stop() ends the poll thread after it has handed every
    message received so far to the executor, and wait() lets the
    executor finish them all -- so nothing received before stop() is
    lost. But the connection stays open until wait() is over, and its
    heartbeat thread keeps reading it (drain_events): a message the
    broker delivers meanwhile (every consumer has an unlimited prefetch)
    would be acknowledged and then dropped, since nobody polls any more.
    Here such a message is left unacknowledged instead: RabbitMQ puts it
    back in its queue when the connection closes, and the next server
    of the topic (this service started again, or a peer) handles it.

    Other drivers (the in-process ones) are served unchanged.
    """

    def _create_listener(self):
        listener = super()._create_listener()
        hold_after_stop(listener)
        return listener
