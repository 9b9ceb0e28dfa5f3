"""Payloads of the instance notifications that name an image besides
the server, as Nova shapes them: instance.rescue.* (the image the
guest is rescued from) and instance.snapshot.* (the image a snapshot
or a backup is uploaded into)."""
from oslo_versionedobjects import fields

from nova_lite.notifications import base
from nova_lite.notifications.objects import instance as payloads


@base.NotificationObjectRegistry.register
class InstanceActionRescuePayload(payloads.InstanceActionPayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(payloads.InstanceActionPayload.fields, **{
        'rescue_image_ref': fields.UUIDField(nullable=True),
    })

    def __init__(self, context, instance, rescue_image_ref, fault=None):
        super().__init__(context, instance, fault=fault)
        self.rescue_image_ref = rescue_image_ref


@base.NotificationObjectRegistry.register
class InstanceActionRescueNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceActionRescuePayload'),
    })


@base.NotificationObjectRegistry.register
class InstanceActionSnapshotPayload(payloads.InstanceActionPayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(payloads.InstanceActionPayload.fields, **{
        'snapshot_image_id': fields.UUIDField(),
    })

    def __init__(self, context, instance, snapshot_image_id, fault=None):
        super().__init__(context, instance, fault=fault)
        self.snapshot_image_id = snapshot_image_id


@base.NotificationObjectRegistry.register
class InstanceActionSnapshotNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceActionSnapshotPayload'),
    })
