"""Receive the versioned notifications a running plane sends, as a
consumer would: an oslo.messaging notification listener on the topic
versioned_notifications of the plane's inproc:// transport (the in-process
driver shares its exchanges between every inproc transport, so one
listener hears the API and every cell). It listens in a pool of its own,
as a second consumer of a RabbitMQ topic would. The plane sends only
while a Collector listens (it sets the notification driver)."""
import threading

import oslo_messaging as messaging
import pytest

from nova_lite.conf import CONF
from nova_lite import rpc
from tests.functional.conftest import wait_for

TOPIC = 'versioned_notifications'


class Collector(object):
    """Every notification received, in order: dicts with event_type,
    priority, publisher_id and payload (the nova_object primitive)."""

    def __init__(self, url='inproc://'):
        self.received = []
        self._lock = threading.Lock()
        self._listener = messaging.get_notification_listener(
            rpc.get_notification_transport(url),
            [messaging.Target(topic=TOPIC)], [self], executor='threading',
            pool='test-collector')

    def start(self):
        """Listen, and have the plane send (no driver is configured by
        default, as in Nova)."""
        CONF.set_override('driver', ['messaging'],
                          group='oslo_messaging_notifications')
        self._listener.start()
        return self

    def stop(self):
        self._listener.stop()
        self._listener.wait()
        CONF.clear_override('driver', group='oslo_messaging_notifications')

    def _record(self, priority, publisher_id, event_type, payload):
        with self._lock:
            self.received.append({'priority': priority,
                                  'publisher_id': publisher_id,
                                  'event_type': event_type,
                                  'payload': payload})

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record('INFO', publisher_id, event_type, payload)

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record('ERROR', publisher_id, event_type, payload)

    def about(self, uuid, event_type=None):
        """The notifications about server uuid (of event_type)."""
        with self._lock:
            return [n for n in self.received
                    if n['payload']['nova_object.data'].get('uuid') == uuid
                    and (event_type is None
                         or n['event_type'] == event_type)]

    def wait_for(self, uuid, event_type, count=1, timeout=30):
        """The first count notifications event_type about uuid, once
        they arrived."""
        return wait_for(lambda: (self.about(uuid, event_type)[:count]
                                 if len(self.about(uuid, event_type))
                                 >= count else None),
                        timeout=timeout,
                        message='%s of %s' % (event_type, uuid))


@pytest.fixture
def notifications(plane):
    """Every versioned notification the plane sends, instance.update on
    every state change included (off by default, as in Nova)."""
    CONF.set_override('notify_on_state_change', 'vm_and_task_state',
                      group='notifications')
    collector = Collector().start()
    yield collector
    collector.stop()
    CONF.clear_override('notify_on_state_change', group='notifications')
