"""aggregate.* notification payloads, shaped as Nova documents them."""
from oslo_versionedobjects import fields

from nova_lite.notifications import base


@base.NotificationObjectRegistry.register
class AggregatePayload(base.NotificationPayloadBase):
    # 1.0: initial
    VERSION = '1.0'

    SCHEMA = {
        'id': ('aggregate', 'id'),
        'uuid': ('aggregate', 'uuid'),
        'name': ('aggregate', 'name'),
        'hosts': ('aggregate', 'hosts'),
        'metadata': ('aggregate', 'metadata'),
    }

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(nullable=False),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'metadata': fields.DictOfStringsField(nullable=True),
    }

    def __init__(self, aggregate):
        super().__init__()
        self.populate_schema(aggregate=aggregate)


@base.NotificationObjectRegistry.register
class AggregateNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('AggregatePayload'),
    })


@base.NotificationObjectRegistry.register
class AggregateCachePayload(base.NotificationPayloadBase):
    # 1.0: initial
    VERSION = '1.0'

    SCHEMA = {
        'id': ('aggregate', 'id'),
        'uuid': ('aggregate', 'uuid'),
        'name': ('aggregate', 'name'),
    }

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(nullable=False),
        'name': fields.StringField(),
        'host': fields.StringField(),
        'total': fields.IntegerField(),
        'index': fields.IntegerField(),
        'images_cached': fields.ListOfStringsField(),
        'images_failed': fields.ListOfStringsField(),
    }

    def __init__(self, aggregate, host, index, total):
        super().__init__()
        self.populate_schema(aggregate=aggregate)
        self.host, self.index, self.total = host, index, total
        self.images_cached, self.images_failed = [], []


@base.NotificationObjectRegistry.register
class AggregateCacheNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('AggregateCachePayload'),
    })
