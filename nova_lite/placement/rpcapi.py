"""Client side of the placement RPC API.

The scheduler holds the API DB for placement data and serves this topic on
the API transport and on every cell's transport, so that a compute (which
only knows its own cell's message queue and never opens a database) and a
cell conductor (no [api_database]) can use placement without touching the
API DB themselves.

API version history:
    1.0 - Initial: get_compute_providers(uuids, with_gate),
          create_compute_providers(providers, with_data),
          update_compute_provider(uuid, inventories, used),
          delete_compute_provider(uuid).
    1.1 - Allocations with consumer generations: claim(consumer_id,
          request, consumer_generation, project_id, user_id, move_to,
          move_to_generation), move_allocations(source, target,
          source_generation, target_generation, project_id, user_id),
          remove_allocations(consumer_id, consumer_generation),
          get_consumer(consumer_id). An unchecked generation is sent as
          an absent argument.

Cap: [upgrade_levels] placement. "auto" asks the auto_cap the client was
made with (the oldest nova-lite-scheduler's version where this process
sees every cell's services; None: it serves no placement topic at all);
computes and cell conductors cannot see them and send uncapped, relying on
the documented upgrade order (schedulers before computes).
"""
import oslo_messaging as messaging

from nova_lite import baserpc
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite import rpc

TOPIC = 'placement'
SERVER_BINARY = constants.SCHEDULER_BINARY
UNCHECKED = allocations.UNCHECKED


class PlacementUnavailable(exception.NovaLiteException):
    msg_fmt = ('The placement RPC API cannot be used: %(reason)s')


class PlacementAPI(object):
    VERSION = '1.1'

    _by_transport = {}

    @classmethod
    def for_transport(cls, transport, auto_cap=None):
        """One client per transport (cached: clients are cheap to keep)."""
        api = cls._by_transport.get(id(transport))
        if api is None or api.transport is not transport:
            api = cls(transport, auto_cap)
            cls._by_transport[id(transport)] = api
        elif auto_cap is not None:
            api.auto_cap = auto_cap
        return api

    def __init__(self, transport=None, auto_cap=None):
        """auto_cap() -> the cap for [upgrade_levels] placement = auto, or
        None when no placement server speaks any version (not given:
        "auto" sends uncapped)."""
        self.transport = transport
        self.auto_cap = auto_cap
        self._clients = {}
        self._ready = False

    def _wait_until_ready(self, context):
        """Before the first call: a message published before any scheduler
        declared the topic's queue on this transport would be dropped by
        the broker (a compute starting alongside the scheduler), so ping
        with short timeouts first, for at most rpc_response_timeout."""
        if self._ready:
            return
        baserpc.BaseAPI(TOPIC, transport=self.transport).wait_until_ready(
            context, timeout=CONF.rpc_response_timeout)
        self._ready = True

    def _cap(self):
        level = CONF.upgrade_levels.placement
        if not level:
            return None
        if level != 'auto':
            return level
        if not api_db.available() or self.auto_cap is None:
            return None
        cap = self.auto_cap()
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

    def claim(self, context, consumer_id, request,
              consumer_generation=UNCHECKED, project_id=None, user_id=None,
              move_to=None,
              move_to_generation=UNCHECKED):
        return self._call(context, 'claim', version='1.1', **_checked(
            consumer_id=consumer_id, request=request,
            consumer_generation=consumer_generation, project_id=project_id,
            user_id=user_id, move_to=move_to,
            move_to_generation=move_to_generation))

    def move_allocations(self, context, source, target,
                         source_generation=UNCHECKED,
                         target_generation=UNCHECKED, project_id=None,
                         user_id=None):
        return self._call(context, 'move_allocations', version='1.1',
                          **_checked(source=source, target=target,
                                     source_generation=source_generation,
                                     target_generation=target_generation,
                                     project_id=project_id, user_id=user_id))

    def remove_allocations(self, context, consumer_id,
                           consumer_generation=UNCHECKED):
        return self._call(context, 'remove_allocations', version='1.1',
                          **_checked(consumer_id=consumer_id,
                                     consumer_generation=consumer_generation))

    def get_consumer(self, context, consumer_id):
        return self._call(context, 'get_consumer', version='1.1',
                          consumer_id=consumer_id)


def _checked(**kwargs):
    """kwargs without the generations left unchecked (absent on the wire)."""
    return dict((k, v) for k, v in kwargs.items() if v is not UNCHECKED)
