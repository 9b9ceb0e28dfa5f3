"""Client side of the conductor RPC API.

API version history:
    1.0 - Initial: object indirection (object_class_action_versions,
          object_action, object_backport_versions) for computes.
"""
import oslo_messaging as messaging

from nova_lite import baserpc
from nova_lite import rpc

TOPIC = 'conductor'


class ConductorAPI(object):
    """Calls the cell conductor; used as computes' indirection API."""
    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=TOPIC, version='1.0')
        self.client = rpc.get_client(target,
                                     version_cap=baserpc.version_cap(
                                         'conductor'),
                                     transport=transport)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)
