"""Events a compute's work waits for (Nova's InstanceEvents): another
service's word, through /os-server-external-events, that something it
does for a server is done -- network-vif-plugged of each port a build
plugs, volume-reimaged of a rebuild's root volume.

The work registers what it waits for before it starts what makes the
event come (so an early event is not lost), then waits with a deadline:

    with waits.wait_for(instance.uuid, [('network-vif-plugged', port)],
                        deadline=300, error_callback=on_failed):
        ...   # plug the VIFs

ExternalEvents hands every event that arrives to ``pop`` first: an
awaited one wakes its waiter (without the instance's lock, which the
waiting work holds); the others are handled as usual. Leaving the block
waits for every event still missing until the deadline, then raises
EventWaitTimeout; an event whose status is 'failed' calls
error_callback(name, tag), which may raise. Nothing stays registered
after the block, however it ends.
"""
import contextlib
import threading

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import exception

LOG = logging.getLogger(__name__)

VIF_PLUGGED = 'network-vif-plugged'
VOLUME_REIMAGED = 'volume-reimaged'


class EventWaitTimeout(exception.NovaLiteException):
    msg_fmt = 'Timed out waiting for %(events)s of instance %(uuid)s'


class _Waiter(object):
    def __init__(self):
        self.done = threading.Event()
        self.status = None


def unplugged_vifs(network_info):
    """The events a build waits for: network-vif-plugged of each VIF
    the network service shows inactive (as Nova's _get_neutron_events)."""
    return [(VIF_PLUGGED, vif['id']) for vif in network_info or ()
            if vif.get('active', True) is False]


class EventWaits(object):
    def __init__(self):
        self._lock = threading.Lock()
        # {(instance uuid, name, tag): _Waiter}
        self._waiting = {}

    def pop(self, instance_uuid, event):
        """Wake the work waiting for event ({'name', 'tag', 'status'}) of
        instance_uuid; False when none waits for it."""
        key = (instance_uuid, event['name'], event.get('tag'))
        with self._lock:
            waiter = self._waiting.pop(key, None)
        if waiter is None:
            return False
        waiter.status = event.get('status') or 'completed'
        waiter.done.set()
        return True

    @contextlib.contextmanager
    def wait_for(self, instance_uuid, events, deadline, error_callback=None):
        """events: [(name, tag)]; deadline: seconds from entering the
        block (the time the work in it takes counts)."""
        keys = [(instance_uuid, name, tag) for name, tag in events]
        waiters = {key: _Waiter() for key in keys}
        with self._lock:
            self._waiting.update(waiters)
        started = timeutils.utcnow()
        try:
            yield
            missing = []
            for key, waiter in waiters.items():
                left = deadline - timeutils.delta_seconds(
                    started, timeutils.utcnow())
                if not waiter.done.wait(max(left, 0)):
                    missing.append('%s-%s' % key[1:])
                    continue
                if waiter.status == 'failed' and error_callback:
                    error_callback(*key[1:])
            if missing:
                raise EventWaitTimeout(events=', '.join(missing),
                                       uuid=instance_uuid)
        finally:
            with self._lock:
                for key in keys:
                    if self._waiting.get(key) is waiters[key]:
                        del self._waiting[key]
