"""ShareMapping: a share attached to a server (2.97), in the server's
cell (share_mappings). The compute API reads and writes them here;
statuses as Nova's: attaching, inactive, active, detaching, error.
"""
from oslo_versionedobjects import fields

from nova_lite.db.main import share_mappings as db
from nova_lite.objects import base

ATTACHING = 'attaching'
INACTIVE = 'inactive'
ACTIVE = 'active'
DETACHING = 'detaching'
ERROR = 'error'


@base.NovaLiteObjectRegistry.register
class ShareMapping(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'share_id': fields.UUIDField(),
        'status': fields.StringField(),
        'tag': fields.StringField(),
        'export_location': fields.StringField(),
        'share_proto': fields.StringField(),
    }

    @classmethod
    def _from_row(cls, context, row):
        obj = cls(context, **{name: row[name] for name in cls.fields})
        obj.obj_reset_changes()
        return obj

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The server's mappings, oldest first (one statement)."""
        return [cls._from_row(context, row)
                for row in db.get_by_instance(context, instance_uuid)]

    @classmethod
    def get_by_instance_uuid_and_share_id(cls, context, instance_uuid,
                                          share_id):
        """ShareNotFound (404) when the server has no such share."""
        return cls._from_row(context, db.get(context, instance_uuid,
                                             share_id))

    def create(self):
        """ShareMappingAlreadyExists (409) for a second mapping of the
        server's share or tag."""
        db.create(self._context, {name: getattr(self, name)
                                  for name in self.fields})
        self.obj_reset_changes()

    def set_status(self, status):
        db.set_status(self._context, self.instance_uuid, self.share_id,
                      status)
        self.status = status
        self.obj_reset_changes()

    def destroy(self):
        db.delete(self._context, self.instance_uuid, self.share_id)
