"""Payloads of the resize and cold-migration notifications that carry
more than InstanceActionPayload: instance.resize_prep.start/end (the
flavor the server moves to) and instance.exists (the audit period the
usage so far belongs to, sent when a move starts), as Nova shapes
them."""
from oslo_versionedobjects import fields

from nova_lite.notifications import base
from nova_lite.notifications.objects import instance as payloads


@base.NotificationObjectRegistry.register
class InstanceActionResizePrepPayload(payloads.InstanceActionPayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(payloads.InstanceActionPayload.fields, **{
        'new_flavor': fields.ObjectField('FlavorPayload', nullable=True),
    })

    def __init__(self, context, instance, new_flavor, fault=None):
        super().__init__(context, instance, fault=fault)
        self.new_flavor = payloads.FlavorPayload.from_flavor(new_flavor)


@base.NotificationObjectRegistry.register
class InstanceActionResizePrepNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceActionResizePrepPayload'),
    })


@base.NotificationObjectRegistry.register
class InstanceActionVolumeSwapPayload(payloads.InstanceActionPayload):
    """instance.volume_swap.*: the volume a server leaves and the one it
    moves to (Nova's payload of that name)."""
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(payloads.InstanceActionPayload.fields, **{
        'old_volume_id': fields.StringField(),
        'new_volume_id': fields.StringField(),
    })

    def __init__(self, context, instance, old_volume_id, new_volume_id,
                 fault=None):
        super().__init__(context, instance, fault=fault)
        self.old_volume_id = old_volume_id
        self.new_volume_id = new_volume_id


@base.NotificationObjectRegistry.register
class InstanceActionVolumeSwapNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceActionVolumeSwapPayload'),
    })


@base.NotificationObjectRegistry.register
class InstanceExistsPayload(payloads.InstancePayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(payloads.InstancePayload.fields, **{
        'audit_period': fields.ObjectField('AuditPeriodPayload'),
    })

    def __init__(self, context, instance):
        super().__init__(
            context, instance,
            audit_period=payloads.AuditPeriodPayload.current_month())


@base.NotificationObjectRegistry.register
class InstanceExistsNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceExistsPayload'),
    })
