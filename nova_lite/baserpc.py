"""The 'baseapi' RPC namespace every service serves, and its client.

API version history:
    1.0 - ping: answers as soon as the service's RPC server consumes.

Independent of each service's own API, so a caller can ask "are you
there?" of any service. A service too old to know the namespace answers
with UnsupportedVersion, which still proves it is consuming.
"""
import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import rpc

LOG = logging.getLogger(__name__)

BASE_NAMESPACE = 'baseapi'


class BaseRPCAPI(object):
    """Endpoint of the 'baseapi' namespace, added to every RPC server."""
    target = messaging.Target(namespace=BASE_NAMESPACE, version='1.0')

    def __init__(self, service_name):
        self.service_name = service_name

    def ping(self, context, arg):
        return {'service': self.service_name, 'arg': arg}


class BaseAPI(object):
    """Client side of the 'baseapi' namespace for one topic."""
    VERSION = '1.0'

    def __init__(self, topic, transport=None):
        target = messaging.Target(topic=topic, namespace=BASE_NAMESPACE,
                                  version=self.VERSION)
        self.topic = topic
        self.client = rpc.get_client(target, transport=transport)

    def ping(self, context, arg, timeout=None):
        cctxt = self.client.prepare(timeout=timeout)
        return cctxt.call(context, 'ping', arg=arg)

    def wait_until_ready(self, context, timeout=None, early_timeout=5,
                         first_timeout=0.5):
        """Ping until a server of the topic answers.

        A message published before any server declared the topic's queue is
        dropped by the broker, so a service started alongside its conductor
        retries with short timeouts instead of waiting once for the full
        rpc_response_timeout: first_timeout seconds, doubled after each
        miss up to early_timeout (a service started with its conductor is
        ready within about a second of it, not early_timeout later).
        Gives up (MessagingTimeout) after `timeout` seconds when set, else
        waits forever, logging each miss (a warning from early_timeout on).
        """
        start = time.monotonic()
        attempt = 0
        wait = min(first_timeout, early_timeout)
        while True:
            attempt += 1
            try:
                self.ping(context, 'ready?', timeout=wait)
                break
            except messaging.MessagingTimeout:
                waited = time.monotonic() - start
                if timeout is not None and waited >= timeout:
                    raise
                log = LOG.warning if waited >= early_timeout else LOG.info
                log('No %s answered after %.1fs (attempt %d); still waiting',
                    self.topic, waited, attempt)
                wait = min(wait * 2, early_timeout)
            except (messaging.UnsupportedVersion, messaging.RemoteError):
                break
        if attempt > 1:
            LOG.info('%s is ready after %d attempts', self.topic, attempt)
