"""The in-memory message transport of the all-in-one and the tests:
``inproc://`` URLs.

oslo.messaging's ``fake`` driver, with one difference: a listener sleeps
until a message is delivered to one of its queues instead of polling
every 50 ms. With the fake driver every cast, call and object-indirection
call in the all-in-one waited for the next 50 ms tick (a resize is a
dozen of them); here delivery wakes the listener at once.

The scheme ``inproc`` is this driver's entry point
(``oslo.messaging.drivers`` in setup.cfg), so oslo.messaging itself picks
it for ``inproc://`` URLs; ``fake://`` stays oslo.messaging's own fake
driver. Messages, queues, pools and replies behave exactly as the fake
driver's (it is a subclass, in nova_lite._compat.oslo_messaging; see
doc/private-apis.rst). Each virtual host of an ``inproc://`` URL is a
message queue of its own (nova_lite.rpc), as a RabbitMQ vhost is.
"""
from nova_lite._compat import oslo_messaging as messaging_compat

SCHEME = 'inproc'

# Whether every message sent is first encoded to JSON and the text thrown
# away, as oslo.messaging's fake driver does: a message a broker could
# not carry fails where it is sent. On for everything in-process (the
# functional tests check every message so); the all-in-one command,
# whose messages never leave its process, turns it off
# (nova_lite.cmd.all_in_one).
CHECK_MESSAGES = True


class Driver(messaging_compat.WakingDriver):
    """The ``inproc`` driver (oslo.messaging.drivers entry point)."""

    @property
    def check_messages(self):
        return CHECK_MESSAGES


def is_inproc(url):
    """Whether url is served by this driver."""
    return bool(url) and url.startswith(SCHEME + ':')
