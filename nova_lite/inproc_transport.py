"""The in-memory message transport of the all-in-one and the tests.

oslo.messaging's ``fake`` driver, with one difference: a listener sleeps
until a message is delivered to one of its queues instead of polling
every 50 ms. With the fake driver every cast, call and object-indirection call
in the all-in-one waited for the next 50 ms tick (a resize is a dozen of
them); here delivery wakes the listener at once.

nova_lite routes every ``fake://`` URL here (rpc.get_transport): the
scheme ``nova-lite-inproc`` is this driver's entry point
(``oslo.messaging.drivers`` in setup.cfg). Messages, queues, pools and
replies behave exactly as the fake driver's (it is a subclass; see
doc/private-apis.rst for the driver classes it builds on).
"""
import threading
import time

import oslo_messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake

SCHEME = 'nova-lite-inproc'

# Whether every message sent is first encoded to JSON and the text thrown
# away, as oslo.messaging's fake driver does: a message a broker could
# not carry fails where it is sent. On for everything in-process (the
# functional tests check every message so); the all-in-one command,
# whose messages never leave its process, turns it off
# (nova_lite.cmd.all_in_one).
CHECK_MESSAGES = True

# A listener re-checks whether it was stopped at least this often (s).
_MAX_WAIT = 1.0
# ... and, with targets on several exchanges, the others this often.
_SHARED_WAIT = 0.05


class _Exchange(impl_fake.FakeExchange):
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


class _ExchangeManager(impl_fake.FakeExchangeManager):
    # Exchanges of this driver, by name (the fake driver keeps its own).
    _exchanges_lock = threading.Lock()
    _exchanges = {}

    def get_exchange(self, name):
        if name is None:
            name = self._default_exchange
        with self._exchanges_lock:
            exchange = self._exchanges.get(name)
            if exchange is None:
                exchange = self._exchanges[name] = _Exchange(name)
            return exchange


class _Listener(impl_fake.FakeListener):
    """Waits on its exchange's delivery signal between checks of its
    queues. The targets of one nova_lite listener share one exchange;
    should they not, deliveries to the others are seen within
    _SHARED_WAIT, as with the fake driver."""

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
        longest = _MAX_WAIT if len(self._exchanges) == 1 else _SHARED_WAIT
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


class Driver(impl_fake.FakeDriver):
    """oslo.messaging's fake driver with listeners woken by delivery."""

    def __init__(self, conf, url, default_exchange=None,
                 allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = _ExchangeManager(default_exchange)

    def _check_serialize(self, message):
        if CHECK_MESSAGES:
            super()._check_serialize(message)

    def listen(self, target, batch_size, batch_timeout):
        # The fake driver's targets: the server's own queue and the topic.
        exchange = target.exchange or self._default_exchange
        listener = _Listener(self._exchange_manager, [
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
        listener = _Listener(self._exchange_manager, targets, pool)
        return base.PollStyleListenerAdapter(listener, batch_size,
                                             batch_timeout)


def driver_url(url):
    """url with the fake driver's scheme replaced by this driver's."""
    if url and url.startswith('fake:'):
        return SCHEME + url[len('fake'):]
    return url
