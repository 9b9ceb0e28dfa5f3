"""The network service's notifications to the compute API: what Neutron's
Nova notifier does, for the embedded network service.

A port bound to a host starts DOWN; when the host's agent (here: the
compute that plugged the VIF, NetworkAPI.ports_plugged) reports the
device up, the port becomes ACTIVE at once and, after
``[local_services] vif_plugged_event_delay`` seconds (the simulated
agent and notifier lag), ``network-vif-plugged`` (tag: the port) is sent
to ``POST /os-server-external-events`` of the compute API, which routes
it to the server's compute.

Where the events go: to the compute API hosted in this process when
one registered itself (``register_sender``; the all-in-one does), else
over HTTP to the compute API that ``[external_events] endpoint`` names,
with the credentials of that section (a compute process of a
multi-process deployment, as Neutron's server reaches Nova with its
[nova] section). A process with neither sends nothing and binds ports
ACTIVE straight away, so no compute waits for an event that cannot come
(``sends_events``).

The embedded volume service sends its volume-reimaged the same way
(send_later).

A pending event of a port that is freed (deallocated, unbound) before
it is sent is dropped, as Neutron sends nothing for a port that is gone.
"""
import threading

import eventlet
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.conf import external_events as events_conf

LOG = logging.getLogger(__name__)

VIF_PLUGGED = 'network-vif-plugged'
# The microversion the HTTP sender asks for: the highest an event it
# sends needs (volume-reimaged, 2.93).
EVENTS_MICROVERSION = '2.93'
DEFAULT_TIMEOUT = 30

_sender = None
# {port id: instance uuid} of the events scheduled and not yet sent.
_pending = {}
_lock = threading.Lock()


def register_sender(sender):
    """sender(events): deliver [{'name', 'server_uuid', 'tag',
    'status'}] to os-server-external-events; returns them answered
    (each with 'code'). None unregisters."""
    global _sender
    _sender = sender


def sends_events():
    """Whether ports bound here start DOWN and announce their plug."""
    return _current_sender() is not None


def _current_sender():
    if _sender is not None:
        return _sender
    if CONF.external_events.endpoint:
        return post_events
    return None


_session = None


def _http_session():
    """One keystoneauth session per process: Keystone auth from
    [external_events] when it names an auth_type (its token cached and
    renewed by the plugin), else none (``token`` is sent as is)."""
    global _session
    if _session is None:
        auth = ks_loading.load_auth_from_conf_options(CONF,
                                                      events_conf.GROUP)
        _session = ks_loading.load_session_from_conf_options(
            CONF, events_conf.GROUP, auth=auth)
    return _session


def _events_url(endpoint):
    endpoint = endpoint.rstrip('/')
    if not endpoint.endswith('/v2.1'):
        endpoint += '/v2.1'
    return endpoint + '/os-server-external-events'


def post_events(events):
    """The HTTP sender: POST events to [external_events] endpoint's
    /os-server-external-events; returns them as answered (each with
    its 'code'; every one the answer's HTTP status when the request as
    a whole was refused)."""
    conf = CONF.external_events
    session = _http_session()
    headers = {'X-OpenStack-Nova-API-Version': EVENTS_MICROVERSION,
               'OpenStack-API-Version': 'compute %s' % EVENTS_MICROVERSION}
    if session.auth is None:
        headers['X-Auth-Token'] = conf.token
    body = {'events': [{k: e[k] for k in ('name', 'server_uuid', 'tag',
                                          'status') if e.get(k)}
                       for e in events]}
    resp = session.post(_events_url(conf.endpoint), json=body,
                        headers=headers, raise_exc=False,
                        timeout=conf.timeout or DEFAULT_TIMEOUT)
    if resp.status_code not in (200, 207):
        LOG.warning('POST %s answered %s: %s', _events_url(conf.endpoint),
                    resp.status_code, resp.text[:500])
        return [dict(e, code=resp.status_code) for e in events]
    return resp.json()['events']


def _send(events):
    with _lock:
        events = [e for e in events if _pending.pop(e['tag'], None)]
    sender = _current_sender()
    if sender is None or not events:
        return
    try:
        answered = sender(events)
    except Exception:
        LOG.exception('Could not send %s to the compute API', events)
        return
    for event in answered or ():
        if event.get('code') != 200:
            LOG.warning('Event %s of port %s for server %s answered %s',
                        event['name'], event['tag'], event['server_uuid'],
                        event.get('code'))


def vif_plugged_later(instance_uuid, port_ids):
    """Send network-vif-plugged of port_ids (ports of instance_uuid)
    after the configured delay, in a green thread of its own."""
    if not port_ids or _current_sender() is None:
        return
    events = [{'name': VIF_PLUGGED, 'server_uuid': instance_uuid,
               'tag': port_id, 'status': 'completed'}
              for port_id in port_ids]
    delay = CONF.local_services.vif_plugged_event_delay
    with _lock:
        for port_id in port_ids:
            _pending[port_id] = instance_uuid
    eventlet.spawn_after(delay, _send, events)


def drop_pending(instance_uuid, port_ids=None):
    """Forget the events not yet sent of the instance's ports (port_ids,
    or all): they were freed."""
    if not _pending:
        return
    with _lock:
        for port_id, owner in list(_pending.items()):
            if owner == instance_uuid and (port_ids is None
                                           or port_id in port_ids):
                del _pending[port_id]


def send_later(events, delay, before=None):
    """Send events after delay seconds in a green thread of its own,
    calling before() first (what the service does when its work is
    done); nothing when no sender is registered."""
    def run():
        if before is not None:
            try:
                before()
            except Exception:
                LOG.exception('Could not finish the work of %s', events)
                events[:] = [dict(e, status='failed') for e in events]
        sender = _current_sender()
        if sender is None:
            return
        try:
            sender(events)
        except Exception:
            LOG.exception('Could not send %s to the compute API', events)
    eventlet.spawn_after(delay, run)
