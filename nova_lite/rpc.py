"""RPC plumbing: the API transport, per-cell transports, serializer, notifier.

Transports are cached by URL: the in-memory drivers (``inproc://``, and
oslo.messaging's ``fake://``) only deliver between users of the same
Transport object, and real drivers keep their connection pools per
transport, so one per URL is right for all.
"""
import kombu.exceptions
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from nova_lite._compat import oslo_messaging as messaging_compat
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import inproc_transport

LOG = logging.getLogger(__name__)

_TRANSPORTS = {}
# Makes the serializer for entities in messages; the object layer sets
# its versioned-object serializer (objects.base), which sits above us.
_entity_serializer = messaging.NoOpSerializer
# Exceptions a caller gets back as themselves (not a RemoteError):
# ours, and oslo.db's, so that a compute whose object call through its
# conductor met a database restart sees a DBConnectionError it can wait
# out (nova_lite.db.outage).
_EXMODS = ['nova_lite.exception', 'oslo_db.exception']
_NOTIFICATION_TRANSPORTS = {}
# (notification url, topics) -> Notifier
_NOTIFIERS = {}


def set_entity_serializer(factory):
    """Serialize message entities with factory() from now on."""
    global _entity_serializer
    _entity_serializer = factory


def get_transport(url=None):
    """The transport for url (default: [DEFAULT] transport_url)."""
    key = url or CONF.transport_url or ''
    transport = _TRANSPORTS.get(key)
    if transport is None:
        transport = messaging.get_rpc_transport(
            CONF, url=url or None, allowed_remote_exmods=_EXMODS)
        _TRANSPORTS[key] = transport
    return transport


def get_cell_transport(url):
    return get_transport(url)


def cleanup():
    for transport in _TRANSPORTS.values():
        transport.cleanup()
    _TRANSPORTS.clear()
    for transport in _NOTIFICATION_TRANSPORTS.values():
        transport.cleanup()
    _NOTIFICATION_TRANSPORTS.clear()
    _NOTIFIERS.clear()


def _url_of(transport):
    return next((u for u, t in _TRANSPORTS.items() if t is transport), None)


def notification_url(context=None):
    """Where notifications about context's work go: [oslo_messaging_
    notifications] transport_url when set, else the message queue of the
    cell context is targeted at (a compute's own cell), else
    [DEFAULT] transport_url. A process that is one service of one cell
    (a deployment) has its cell's queue as transport_url, so both roads
    meet; the all-in-one runs every cell's services in one process and
    needs the first."""
    url = CONF.oslo_messaging_notifications.transport_url
    if url:
        return url
    mq = getattr(context, 'mq_connection', None) if context else None
    return (_url_of(mq) if mq is not None else None) or \
        CONF.transport_url or ''


def get_notification_transport(url=None):
    """The notification transport for url (cached like RPC ones)."""
    key = url or ''
    transport = _NOTIFICATION_TRANSPORTS.get(key)
    if transport is None:
        transport = messaging.get_notification_transport(
            CONF, url=url or None, allowed_remote_exmods=_EXMODS)
        _NOTIFICATION_TRANSPORTS[key] = transport
    return transport


def get_notifier(publisher_id, context=None, topics=None):
    """A Notifier for publisher_id on context's notification transport
    (see notification_url), sending to topics (default: oslo.messaging's
    [oslo_messaging_notifications] topics) with the
    [oslo_messaging_notifications] driver; None when no driver is
    configured (nothing is to be sent). Payloads given to it must be
    primitives already (sent as they are)."""
    if not CONF.oslo_messaging_notifications.driver:
        return None
    url = notification_url(context)
    key = (url, tuple(topics or ()))
    notifier = _NOTIFIERS.get(key)
    if notifier is None:
        notifier = messaging.Notifier(
            get_notification_transport(url),
            serializer=_PrimitivePayloadSerializer(), topics=topics)
        _NOTIFIERS[key] = notifier
    return notifier.prepare(publisher_id=publisher_id)


class RequestContextSerializer(messaging.Serializer):
    """Objects through the object serializer; contexts as dicts.

    context_hook(ctx) lets a receiving service prepare each incoming
    context: a cell conductor targets it at its cell database, a compute
    routes its remotable calls through the conductor.
    """

    def __init__(self, base=None, context_hook=None):
        self._base = base or _entity_serializer()
        self._context_hook = context_hook

    def serialize_entity(self, context, entity):
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        ctx = nova_context.RequestContext.from_dict(context)
        if self._context_hook is not None:
            self._context_hook(ctx)
        return ctx


class _PrimitivePayloadSerializer(RequestContextSerializer):
    """The notifiers' serializer: a payload is handed over as the
    primitive it already is (notifications.base emits its payload's
    obj_to_primitive()), so it is not walked again for objects."""

    def serialize_entity(self, context, entity):
        return entity


def _isolated(target, transport):
    """Keep in-process inproc:// 'vhosts' apart.

    The in-memory driver shares exchanges process-wide by name, unlike
    RabbitMQ vhosts; give each inproc vhost its own exchange so cells stay
    isolated in the all-in-one exactly as they are with split RabbitMQ
    vhosts. (oslo.messaging's own fake:// is left as it is.)
    """
    url = _url_of(transport) or ''
    if inproc_transport.is_inproc(url):
        vhost = url.split('://', 1)[1].strip('/')
        if vhost:
            return target(exchange='nova_lite.%s' % vhost)
    return target


# Connection retries for each message this process sends (oslo.messaging's
# client retry: None retries until the message queue takes it). The API
# bounds it ([api] rpc_send_retries) so that with the queue down a request
# fails after a bounded wait instead of hanging.
_send_retries = [None]
# What sending raises once those retries are spent: oslo.messaging's
# MessageDeliveryFailure, or (a connection that could not be opened in
# the first place, with the rabbit driver) kombu's OperationalError.
# A cast sent with the mandatory flag (AT_LEAST_ONCE) that no queue took
# raises MessageUndeliverable: not sent either.
SEND_FAILURES = (messaging.MessageDeliveryFailure,
                 kombu.exceptions.OperationalError,
                 messaging.MessageUndeliverable)

# Transport options of a cast that must reach a queue or fail: RabbitMQ
# publishes it with the mandatory flag and, as oslo.messaging's rabbit
# driver waits for the publisher confirm, returns an unroutable message
# before the send returns (MessageUndeliverable) -- e.g. sent after a
# broker restart, before the consumer declared its transient queue
# again. Other drivers ignore it.
AT_LEAST_ONCE = messaging.TransportOptions(at_least_once=True)


def bound_send_retries(retries):
    """Retry connecting at most retries times to send each message from
    now on (-1 or None: for ever); a message that still cannot be sent
    raises oslo_messaging.MessageDeliveryFailure."""
    _send_retries[0] = None if retries is None or retries < 0 else retries


def get_client(target, version_cap=None, serializer=None, transport=None,
               timeout=None):
    transport = transport or get_transport()
    return messaging.get_rpc_client(
        transport, _isolated(target, transport), version_cap=version_cap,
        serializer=serializer or RequestContextSerializer(),
        timeout=timeout, retry=_send_retries[0])


class CappedClient(object):
    """An RPC client of one target whose version cap is asked of
    cap_fn() -> version or None (no cap) on every use.

    cap_fn answers from caches that SIGHUP clears (minimum service
    versions), so a running service's clients follow its peers'
    upgrades after a reset. One oslo.messaging client is kept per cap.
    """

    def __init__(self, target, cap_fn, serializer=None, transport=None):
        self.target = target
        self.cap_fn = cap_fn
        self.serializer = serializer
        self.transport = transport
        self._clients = {}

    @property
    def version_cap(self):
        return self.cap_fn()

    def _client(self):
        cap = self.cap_fn()
        client = self._clients.get(cap)
        if client is None:
            client = get_client(self.target, version_cap=cap,
                                serializer=self.serializer,
                                transport=self.transport)
            self._clients[cap] = client
        return client

    def can_send_version(self, version):
        return self._client().can_send_version(version)

    def prepare(self, **kwargs):
        """A call context; a version above the cap in force raises
        oslo_messaging.RPCVersionCapError when used."""
        return self._client().prepare(**kwargs)


def get_server(target, endpoints, serializer=None, transport=None):
    """An RPC server for target: oslo.messaging's, made safe to stop
    while RabbitMQ delivers (nova_lite._compat.oslo_messaging
    .StopSafeRPCServer; other drivers are served unchanged)."""
    transport = transport or get_transport()
    return messaging.get_rpc_server(
        transport, _isolated(target, transport), endpoints,
        serializer=serializer or RequestContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy,
        server_cls=messaging_compat.StopSafeRPCServer)


def transport_for_context(context):
    """The cell's transport for a targeted context, else the API one."""
    return getattr(context, 'mq_connection', None) or get_transport()
