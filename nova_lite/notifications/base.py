"""The envelope of a versioned notification and how it is sent.

A notification is a versioned object (event_type, publisher, priority,
payload). emit() sends only its payload's primitive, under the event
type's string, as oslo.messaging notifications carry them::

    {"event_type": "instance.create.end", "priority": "INFO",
     "publisher_id": "nova-compute:cell1-compute1",
     "payload": {"nova_object.name": "InstanceCreatePayload",
                 "nova_object.namespace": "nova",
                 "nova_object.version": "1.0",
                 "nova_object.data": {...}}}

The payload keys and namespace are Nova's (``nova_object.*``, ``nova``),
so consumers written for Nova's versioned notifications read ours; the
versions are our own. A notification that cannot be sent is logged and
never fails the operation it reports.
"""
import functools

from oslo_log import log as logging
from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import fields

from nova_lite.conf import CONF
from nova_lite.objects import base as objects_base
from nova_lite import rpc

LOG = logging.getLogger(__name__)

INFO, ERROR = 'INFO', 'ERROR'
START, END, PHASE_ERROR = 'start', 'end', 'error'


class NotificationObjectRegistry(ovoo_base.VersionedObjectRegistry):
    """Notification objects share the process-wide registry of versioned
    objects (so the fingerprint test sees them) but are not exposed as
    nova_lite.objects.<Name>: they are never sent over RPC."""

    def registration_hook(self, cls, index):
        pass


class NotificationObject(objects_base.FastFieldsMixin,
                         ovoo_base.VersionedObject):
    OBJ_SERIAL_NAMESPACE = 'nova_object'
    OBJ_PROJECT_NAMESPACE = 'nova'

    def obj_what_changed(self):
        """Nothing: a notification is sent whole, every field set is
        part of it, so its primitive never carries 'changes' (and
        building one walks no change tracking)."""
        return set()


@NotificationObjectRegistry.register
class EventType(NotificationObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'object': fields.StringField(),
        'action': fields.StringField(),
        'phase': fields.StringField(nullable=True),
    }

    def to_notification_event_type_field(self):
        """'instance.create.end' (object.action[.phase])."""
        parts = [self.object, self.action]
        if self.obj_attr_is_set('phase') and self.phase is not None:
            parts.append(self.phase)
        return '.'.join(parts)


@NotificationObjectRegistry.register
class NotificationPublisher(NotificationObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'host': fields.StringField(nullable=False),
        'source': fields.StringField(nullable=False),
    }


class NotificationPayloadBase(NotificationObject):
    """A payload; subclasses declare SCHEMA {field: (source, attribute)}
    and fill it from their sources with populate_schema()."""
    SCHEMA = {}

    def populate_schema(self, **sources):
        for field, (source, attr) in self.SCHEMA.items():
            obj = sources[source]
            setattr(self, field, getattr(obj, attr))


def enabled():
    """Whether versioned notifications are sent at all: a notification
    driver other than oslo.messaging's 'noop' is configured and the
    format is not 'unversioned' (Nova's check before it builds any
    payload). Senders ask first, so a disabled notification costs no
    payload."""
    drivers = CONF.oslo_messaging_notifications.driver
    return (any(driver != 'noop' for driver in drivers)
            and CONF.notifications.notification_format != 'unversioned')


def if_enabled(fn):
    """Decorate a sender: it returns None at once, building nothing,
    unless enabled()."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if enabled():
            return fn(*args, **kwargs)
        return None
    return wrapper


class NotificationBase(NotificationObject):
    """event_type, publisher, priority; subclasses add payload."""
    fields = {
        'priority': fields.StringField(),
        'event_type': fields.ObjectField('EventType'),
        'publisher': fields.ObjectField('NotificationPublisher'),
    }

    def emit(self, context):
        """Send this notification (a no-op unless enabled())."""
        if not enabled():
            return
        publisher_id = '%s:%s' % (self.publisher.source, self.publisher.host)
        try:
            notifier = rpc.get_notifier(
                publisher_id, context=context,
                topics=CONF.notifications.versioned_notifications_topics)
            if notifier is None:
                return
            send = notifier.error if self.priority == ERROR \
                else notifier.info
            send(context, self.event_type.to_notification_event_type_field(),
                 self.payload.obj_to_primitive())
        except Exception:
            LOG.exception('Could not send notification %s',
                          self.event_type.to_notification_event_type_field())
