"""Client side of the scheduler RPC API.

API version history:
    1.0 - Initial: select_destinations(spec) -> [[host, node, cell_uuid]].
    1.1 - select_destinations(spec_obj, instance_uuids, return_alternates)
          -> per instance [primary, alternates...] selections, the
          primary's resources claimed.

Cap: [upgrade_levels] scheduler, re-derived on each call from the minimum
service versions, which SIGHUP makes the process read again.
"""
import oslo_messaging as messaging

from nova_lite.conf import CONF
from nova_lite.objects import service_version
from nova_lite import rpc

TOPIC = 'scheduler'


class SchedulerAPI(object):
    VERSION = '1.1'

    def __init__(self):
        self.client = rpc.CappedClient(
            messaging.Target(topic=TOPIC, version='1.0'),
            lambda: service_version.rpc_version_cap('scheduler'))

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True):
        # Claims for a request of many instances take a while, and more
        # when many requests queue at the scheduler: long_rpc_timeout.
        cctxt = self.client.prepare(version='1.1',
                                    timeout=CONF.long_rpc_timeout)
        return cctxt.call(context, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates)
