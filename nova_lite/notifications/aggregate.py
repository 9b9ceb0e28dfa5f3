"""Sending aggregate.* notifications (from the API, as Nova's API sends
them): aggregate.<action>.start/end for create, delete, add_host,
remove_host, update_metadata, update_prop and cache_images, with an
AggregatePayload (id, uuid, name, hosts, metadata); aggregate.
cache_images.progress per host with an AggregateCachePayload. Nothing
is built unless notifications are enabled; nothing raises."""
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.notifications import base
from nova_lite.notifications.objects import aggregate as payloads

LOG = logging.getLogger(__name__)

SOURCE_API = 'nova-api'
START, END = base.START, base.END


def _send(context, cls, payload, action, phase):
    cls(priority=base.INFO,
        publisher=base.NotificationPublisher(host=CONF.host,
                                             source=SOURCE_API),
        event_type=base.EventType(object='aggregate', action=action,
                                  phase=phase),
        payload=payload).emit(context)


@base.if_enabled
def notify_about_aggregate_action(context, aggregate, action, phase):
    """aggregate.<action>.<phase> about aggregate (an Aggregate)."""
    try:
        _send(context, payloads.AggregateNotification,
              payloads.AggregatePayload(aggregate), action, phase)
    except Exception:
        LOG.exception('Could not notify aggregate.%s.%s', action, phase)


@base.if_enabled
def notify_about_aggregate_cache(context, aggregate, host, index, total,
                                 cached, failed):
    """aggregate.cache_images.progress for one host."""
    try:
        payload = payloads.AggregateCachePayload(aggregate, host, index,
                                                 total)
        payload.images_cached, payload.images_failed = cached, failed
        _send(context, payloads.AggregateCacheNotification, payload,
              'cache_images', 'progress')
    except Exception:
        LOG.exception('Could not notify aggregate.cache_images.progress')
