"""Client side of the placement RPC API.

The scheduler holds the API DB for placement data and serves this topic on
the API transport and on every cell's transport, so that a compute (which
only knows its own cell's message queue and never opens a database) and a
cell conductor (no [api_database]) can read and write compute-node
inventories without touching the API DB themselves.

API version history:
    1.0 - Initial: get_compute_providers(uuids, with_gate),
          create_compute_providers(providers, with_data),
          update_compute_provider(uuid, inventories, used),
          delete_compute_provider(uuid).

Cap: [upgrade_levels] placement. "auto" derives it from the oldest
nova-lite-scheduler where this process sees every cell's services (a
scheduler older than service version 3 serves no placement topic at all);
computes and cell conductors cannot see them and send uncapped, relying on
the documented upgrade order (schedulers before computes).
"""
import oslo_messaging as messaging

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite import rpc

TOPIC = 'placement'
SERVER_BINARY = 'nova-lite-scheduler'


class PlacementUnavailable(exception.NovaLiteException):
    msg_fmt = ('The placement RPC API cannot be used: %(reason)s')


class PlacementAPI(object):
    VERSION = '1.0'

    _by_transport = {}

    @classmethod
    def for_transport(cls, transport):
        """One client per transport (cached: clients are cheap to keep)."""
        api = cls._by_transport.get(id(transport))
        if api is None or api.transport is not transport:
            api = cls(transport)
            cls._by_transport[id(transport)] = api
        return api

    def __init__(self, transport=None):
        self.transport = transport
        self._clients = {}
        self._ready = False

    def _wait_until_ready(self, context):
        """Before the first call: a message published before any scheduler
        declared the topic's queue on this transport would be dropped by
        the broker (a compute starting alongside the scheduler), so ping
        with short timeouts first, for at most rpc_response_timeout."""
        if self._ready:
            return
        from nova_lite import baserpc
        baserpc.BaseAPI(TOPIC, transport=self.transport).wait_until_ready(
            context, timeout=CONF.rpc_response_timeout_seconds)
        self._ready = True

    @staticmethod
    def _cap():
        level = CONF.upgrade_levels.placement
        if not level:
            return None
        if level != 'auto':
            return level
        if not api_db.available():
            return None
        from nova_lite.objects import service as service_obj
        cap = service_obj.get_auto_version_cap('placement',
                                               binary=SERVER_BINARY)
        if cap is None:
            raise PlacementUnavailable(
                reason='the oldest %s does not serve it yet (service '
                       'version < 3)' % SERVER_BINARY)
        return cap

    def _call(self, context, method, version='1.0', **kwargs):
        cap = self._cap()
        client = self._clients.get(cap)
        if client is None:
            client = rpc.get_client(
                messaging.Target(topic=TOPIC, version='1.0'),
                version_cap=cap, transport=self.transport)
            self._clients[cap] = client
        if not client.can_send_version(version):
            raise PlacementUnavailable(reason='capped at %s, %s needs %s'
                                       % (cap, method, version))
        self._wait_until_ready(context)
        return client.prepare(version=version).call(context, method,
                                                    **kwargs)

    def get_compute_providers(self, context, uuids, with_gate=False):
        return self._call(context, 'get_compute_providers',
                          uuids=list(uuids), with_gate=with_gate)

    def create_compute_providers(self, context, providers, with_data=True):
        return self._call(context, 'create_compute_providers',
                          providers=list(providers), with_data=with_data)

    def update_compute_provider(self, context, uuid, inventories, used):
        return self._call(context, 'update_compute_provider', uuid=uuid,
                          inventories=inventories, used=used)

    def delete_compute_provider(self, context, uuid):
        return self._call(context, 'delete_compute_provider', uuid=uuid)
