"""The compute API for POST /os-server-external-events: what the
network, volume and other services tell Nova about a server.

Each event is answered on its own, as Nova answers it: 404 (status
failed) for a server that does not exist, 422 (failed) for a server not
yet on a host, else 200 and the event is sent to the server's compute
in its cell (one cast per server, its events together, compute RPC
1.13). A compute too old to take events gets none: its events are
answered 422. A server in the middle of a move (its migration context)
has its network-vif-plugged events sent to the move's other host too,
as Nova sends events to every host of a migration: the compute that
waits for them may not be the server's host yet (a resize revert's
source).
"""
from oslo_log import log as logging

from nova_lite.compute.api import server_actions
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import context as nl_context
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
        _to_other_move_host(instance, server_events)
    return events


def _to_other_move_host(instance, server_events):
    """The network-vif-plugged of server_events also to the other hosts
    of the move in progress (see the module), those that take events."""
    context = (instance.migration_context
               if instance.obj_attr_is_set('migration_context') else None)
    plugged = [e for e in server_events
               if e['name'] == 'network-vif-plugged']
    if not context or not plugged:
        return
    rpc = server_actions.compute_rpc()
    for host in {context.get('source_compute'), context.get('dest_compute')}:
        if host and host != instance.host and rpc.can_send(
                instance.context, host,
                compute_rpcapi.EXTERNAL_EVENTS_VERSION):
            rpc.external_instance_event(instance.context, instance, plugged,
                                        host=host)


def from_network_service(events):
    """The embedded network service's notifier
    (nova_lite.network.nova_events): its events, answered as
    POST /os-server-external-events answers an administrator."""
    return create(nl_context.get_admin_context(),
                  [dict(event) for event in events])
