"""Client side of the scheduler RPC API.

API version history:
    1.0 - Initial: select_destinations(spec) -> [[host, node, cell_uuid]].
    1.1 - select_destinations(spec_obj, instance_uuids, return_alternates)
          -> per instance [primary, alternates...] selections, the
          primary's resources claimed.
    1.2 - select_destinations(..., migration_uuid): a move's claim hands
          the instance's source allocation to the migration consumer in
          the same transaction.

Cap: [upgrade_levels] scheduler, re-derived on each call from the minimum
service versions, which SIGHUP makes the process read again.
"""
import oslo_messaging as messaging

from nova_lite.conf import CONF
from nova_lite.objects import service_version
from nova_lite import rpc

TOPIC = 'scheduler'


class SchedulerAPI(object):
    VERSION = '1.2'

    def __init__(self):
        self.client = rpc.CappedClient(
            messaging.Target(topic=TOPIC, version='1.0'),
            lambda: service_version.rpc_version_cap('scheduler'))

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True, migration_uuid=None):
        # Claims for a request of many instances take a while, and more
        # when many requests queue at the scheduler: long_rpc_timeout.
        # The scheduler heartbeats while it works on it, so a scheduler
        # that dies holding the request (its message acknowledged and
        # gone) fails the call after rpc_response_timeout, not
        # long_rpc_timeout: the conductor then buries the build.
        kwargs = {}
        version = '1.1'
        if migration_uuid is not None:
            version = '1.2'
            kwargs['migration_uuid'] = migration_uuid
        cctxt = self.client.prepare(
            version=version, timeout=CONF.long_rpc_timeout,
            call_monitor_timeout=CONF.rpc_response_timeout)
        return cctxt.call(context, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates, **kwargs)
