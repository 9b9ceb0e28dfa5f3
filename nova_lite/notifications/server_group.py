"""Sending server_group.create, server_group.delete and
server_group.add_member (from nova-api, as Nova sends them). Never
raises; builds nothing unless notifications are enabled."""
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.notifications import base
from nova_lite.notifications.objects import server_group as payloads

LOG = logging.getLogger(__name__)

SOURCE_API = 'nova-api'


@base.if_enabled
def notify_about_server_group(context, group, action):
    """server_group.<action> (create, delete, add_member) about group."""
    try:
        payloads.ServerGroupNotification(
            priority=base.INFO,
            publisher=base.NotificationPublisher(host=CONF.host,
                                                 source=SOURCE_API),
            event_type=base.EventType(object='server_group', action=action,
                                      phase=None),
            payload=payloads.ServerGroupPayload(group)).emit(context)
    except Exception:
        LOG.exception('Could not notify server_group.%s of %s', action,
                      getattr(group, 'uuid', None))
