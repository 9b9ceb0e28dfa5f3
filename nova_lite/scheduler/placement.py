"""The scheduler's placement RPC servers (nova_lite.placement.manager).

Every scheduler serves the topic on the API transport and on each cell's
transport, found from the cell mappings at start and again on SIGHUP
(reset), so computes and cell conductors reach it through the only message
queue they know. This process holds the API DB; the endpoint gets the
compute-node gate from the ComputeNode mapping.
"""
import functools

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import baserpc
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.placement import manager as placement_manager
from nova_lite.placement import rpcapi as placement_rpcapi
from nova_lite import rpc
from nova_lite import utils

LOG = logging.getLogger(__name__)


def _label(url):
    """A transport URL fit for logs (no password)."""
    return utils.mask_password(url) if url else 'the API transport'


class PlacementServers(object):
    """The placement RPC servers of one scheduler host: one on the API
    transport, one per cell transport."""

    def __init__(self, host):
        self.host = host
        self.endpoint = placement_manager.PlacementEndpoint(
            compute_inventory.gate_blocked)
        self._servers = {}   # transport url ('' = API) -> RPC server

    def _urls(self, context):
        urls = ['']
        for cell in objects.CellMappingList.get_all(context):
            url = cell.transport_url
            if cell.is_cell0() or not url or url.startswith('none:'):
                continue
            urls.append(url)
        return urls

    def start(self, context=None):
        """Serve on every transport not served yet (idempotent)."""
        context = context or nova_context.get_admin_context()
        for url in self._urls(context):
            if url in self._servers:
                continue
            transport = rpc.get_transport(url or None)
            server = rpc.get_server(
                messaging.Target(topic=placement_rpcapi.TOPIC,
                                 server=self.host),
                [self.endpoint, baserpc.BaseRPCAPI('placement')],
                transport=transport)
            server.start()
            self._servers[url] = server
            LOG.info('Serving placement on %s', _label(url))

    def stop(self):
        # A listener's stop() returns only when its current consume times
        # out (up to 5 s with rabbit): stop every server at once.
        def stop_one(url, server):
            try:
                server.stop()
                server.wait()
            except Exception:
                LOG.exception('Error stopping the placement server on %s',
                              _label(url))
        utils.run_together(*[functools.partial(stop_one, url, server)
                             for url, server in self._servers.items()])
        self._servers.clear()
