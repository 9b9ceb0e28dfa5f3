"""Payload of the server_group.* notifications (create, delete,
add_member), with the fields of Nova's ServerGroupPayload."""
from oslo_versionedobjects import fields

from nova_lite.notifications import base


@base.NotificationObjectRegistry.register
class ServerGroupPayload(base.NotificationPayloadBase):
    # 1.0: initial
    VERSION = '1.0'

    SCHEMA = {name: ('group', name) for name in (
        'uuid', 'name', 'user_id', 'project_id', 'members', 'hosts',
        'policy', 'rules')}
    fields = {
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        # The policy as a one-item list (the 2.1 field).
        'policies': fields.ListOfStringsField(nullable=True),
        'members': fields.ListOfStringsField(nullable=True),
        'hosts': fields.ListOfStringsField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'rules': fields.DictOfStringsField(),
    }

    def __init__(self, group):
        super().__init__()
        self.uuid = group.uuid
        self.name = group.name
        self.user_id = group.user_id
        self.project_id = group.project_id
        self.members = list(group.members or [])
        self.hosts = list(group.hosts or [])
        self.policy = group.policy
        self.policies = [group.policy]
        self.rules = {k: str(v) for k, v in (group.rules or {}).items()}


@base.NotificationObjectRegistry.register
class ServerGroupNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('ServerGroupPayload'),
    })
