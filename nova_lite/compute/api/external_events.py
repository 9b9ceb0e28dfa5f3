"""The compute API for POST /os-server-external-events: what the
network, volume and other services tell Nova about a server.

Each event is answered on its own, as Nova answers it: 404 (status
failed) for a server that does not exist, 422 (failed) for a server not
yet on a host, else 200 and the event is sent to the server's compute
in its cell (one cast per server, its events together, compute RPC
1.13). A compute too old to take events gets none: its events are
answered 422.
"""
from oslo_log import log as logging

from nova_lite.compute.api import server_actions
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception

LOG = logging.getLogger(__name__)


def _server(context, server_id):
    """The server's Instance (targeted at its cell), or the HTTP code
    its events get: 404 none, 422 not on a host."""
    try:
        instance = server_actions.get(context, server_id)
    except exception.InstanceNotFound:
        return None, 404
    if not instance.host or not instance.obj_attr_is_set('id'):
        return None, 422
    return instance, 200


def create(context, events):
    """events: [{'name', 'server_uuid', 'status', 'tag'?}] (validated).
    Returns them with each one's 'code' and 'status' as answered."""
    servers, accepted = {}, {}
    for event in events:
        uuid = event['server_uuid']
        if uuid not in servers:
            servers[uuid] = _server(context, uuid)
        instance, code = servers[uuid]
        if code == 200 and not server_actions.compute_rpc().can_send(
                instance.context, instance.host,
                compute_rpcapi.EXTERNAL_EVENTS_VERSION):
            code = 422
        event['code'] = code
        if code != 200:
            event['status'] = 'failed'
            LOG.debug('Event %s of %s answered %d', event['name'], uuid,
                      code)
            continue
        accepted.setdefault(uuid, []).append(
            {k: event.get(k) for k in ('name', 'tag', 'status')})
    for uuid, server_events in accepted.items():
        instance = servers[uuid][0]
        server_actions.compute_rpc().external_instance_event(
            instance.context, instance, server_events)
    return events
