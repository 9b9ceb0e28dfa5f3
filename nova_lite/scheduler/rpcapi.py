"""Client side of the scheduler RPC API.

API version history:
    1.0 - Initial: select_destinations(spec) -> [[host, node, cell_uuid]].
"""
import oslo_messaging as messaging

from nova_lite import baserpc
from nova_lite import rpc

TOPIC = 'scheduler'


class SchedulerAPI(object):
    VERSION = '1.0'

    def __init__(self):
        target = messaging.Target(topic=TOPIC, version='1.0')
        self.client = rpc.get_client(target,
                                     version_cap=baserpc.version_cap(
                                         'scheduler'))

    def select_destinations(self, context, spec):
        return self.client.prepare().call(context, 'select_destinations',
                                          spec=spec)
