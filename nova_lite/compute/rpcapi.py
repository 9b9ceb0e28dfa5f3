"""Client side of the compute RPC API.

API version history:
    1.0 - Initial: ping(host).
"""
import oslo_messaging as messaging

from nova_lite import baserpc
from nova_lite import rpc

TOPIC = 'compute'


class ComputeAPI(object):
    VERSION = '1.0'

    def __init__(self):
        self._clients = {}

    def _client(self, context):
        transport = rpc.transport_for_context(context)
        client = self._clients.get(id(transport))
        if client is None:
            target = messaging.Target(topic=TOPIC, version='1.0')
            client = rpc.get_client(target,
                                    version_cap=baserpc.version_cap(
                                        'compute'),
                                    transport=transport)
            self._clients[id(transport)] = client
        return client

    def ping(self, context, host):
        """Round trip to one compute (targeted at its cell)."""
        cctxt = self._client(context).prepare(server=host, version='1.0')
        return cctxt.call(context, 'ping')
