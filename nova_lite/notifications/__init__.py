"""Versioned notifications, shaped as Nova documents them.

Layer: above the versioned objects (a payload is built from an Instance
and its EmbeddedFlavor) and below the services that emit them (compute,
conductor, the compute API); it sends through nova_lite.rpc's notifier.

- ``base``: the notification envelope objects (EventType, publisher,
  NotificationBase.emit) and the registry of notification objects;
- ``objects/``: the payloads (InstanceActionPayload, InstanceUpdatePayload,
  FlavorPayload, ...), each a versioned object with its own version;
- ``instance``: the helpers services call
  (notify_about_instance_action, ...).

Where they go: topic(s) [notifications] versioned_notifications_topics
(default ``versioned_notifications``) with the [oslo_messaging_notifications]
driver (none configured: nothing is sent) on the notification transport of
the sender's cell (nova_lite.rpc.notification_url).
"""


def register_all():
    __import__('nova_lite.notifications.objects.instance')
    __import__('nova_lite.notifications.objects.instance_move')
    __import__('nova_lite.notifications.objects.instance_image')
    __import__('nova_lite.notifications.objects.aggregate')

    __import__('nova_lite.notifications.objects.server_group')
