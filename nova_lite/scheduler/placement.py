"""The scheduler's placement RPC endpoint (see placement_rpcapi).

Every scheduler serves the topic on the API transport and on each cell's
transport, found from the cell mappings at start and again on SIGHUP
(reset), so computes and cell conductors reach it through the only message
queue they know. The endpoint runs nova_lite.objects.compute_inventory's
in-process calls: this process holds the API DB.
"""
import functools

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import baserpc
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite import rpc
from nova_lite.scheduler import placement_rpcapi
from nova_lite import utils

LOG = logging.getLogger(__name__)


class PlacementEndpoint(object):
    target = messaging.Target(version='1.0')

    def _run(self, fn, *args):
        try:
            return fn(*args)
        except exception.NovaLiteException:
            # Expected errors (e.g. InvalidInventory) travel back as
            # themselves, without a traceback in this log.
            raise messaging.ExpectedException()

    def get_compute_providers(self, context, uuids, with_gate=False):
        return self._run(compute_inventory.LOCAL.get_compute_providers,
                         context, uuids, with_gate)

    def create_compute_providers(self, context, providers, with_data=True):
        return self._run(compute_inventory.LOCAL.create_compute_providers,
                         context, providers, with_data)

    def update_compute_provider(self, context, uuid, inventories, used):
        return self._run(compute_inventory.LOCAL.update_compute_provider,
                         context, uuid, inventories, used)

    def delete_compute_provider(self, context, uuid):
        return self._run(compute_inventory.LOCAL.delete_compute_provider,
                         context, uuid)


def _label(url):
    """A transport URL fit for logs (no password)."""
    return utils.mask_password(url) if url else 'the API transport'


class PlacementServers(object):
    """The placement RPC servers of one scheduler host: one on the API
    transport, one per cell transport."""

    def __init__(self, host):
        self.host = host
        self.endpoint = PlacementEndpoint()
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
