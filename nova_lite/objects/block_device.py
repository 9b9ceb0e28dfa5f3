"""BlockDeviceMapping(List): the disks of a server, in its cell.

Every server has them, as in Nova: an image-backed server's root disk
(source image, destination local, boot index 0), a volume-backed
server's root volume (destination volume, boot index 0) and every
volume attached to it (destination volume). A volume mapping carries the
volume id once the volume exists, the attachment id of its attachment
in the volume service and the connection info its host got; computes
read and write them through their cell conductor (remotable methods),
never the database.

BDM_DICT_FIELDS are the keys of the plain dicts a boot request's
mappings travel in (the build request's block_device_mappings) until the
super conductor writes them in the instance's cell (create_for_instance).
"""
from oslo_utils import uuidutils
from oslo_versionedobjects import fields

from nova_lite.db.main import block_devices as db
from nova_lite.objects import base

SOURCE_IMAGE, SOURCE_VOLUME, SOURCE_BLANK = 'image', 'volume', 'blank'
DEST_LOCAL, DEST_VOLUME = 'local', 'volume'

BDM_DICT_FIELDS = ('source_type', 'destination_type', 'boot_index',
                   'device_name', 'device_type', 'disk_bus',
                   'guest_format', 'delete_on_termination', 'volume_id',
                   'volume_size', 'image_id', 'snapshot_id', 'tag',
                   'attachment_id')


@base.NovaLiteObjectRegistry.register
class BlockDeviceMapping(base.NovaLiteObject,
                         base.NovaLitePersistentObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'source_type': fields.StringField(nullable=True),
        'destination_type': fields.StringField(nullable=True),
        'guest_format': fields.StringField(nullable=True),
        'device_type': fields.StringField(nullable=True),
        'disk_bus': fields.StringField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'device_name': fields.StringField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'snapshot_id': fields.StringField(nullable=True),
        'volume_id': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'image_id': fields.StringField(nullable=True),
        'no_device': fields.BooleanField(default=False),
        'connection_info': fields.SensitiveStringField(nullable=True),
        'attachment_id': fields.StringField(nullable=True),
        'tag': fields.StringField(nullable=True),
    })

    @property
    def is_volume(self):
        return self.destination_type == DEST_VOLUME

    @property
    def is_root(self):
        return self.boot_index == 0

    @classmethod
    def _from_rec(cls, context, obj, rec):
        for name in obj.fields:
            value = rec.get(name)
            if name in ('delete_on_termination', 'no_device', 'deleted'):
                value = bool(value)
            setattr(obj, name, value)
        obj.context = context
        obj.obj_reset_changes()
        return obj

    @base.remotable_classmethod
    def get_by_volume_and_instance(cls, context, volume_id, instance_uuid):
        """VolumeNotAttached (404) when the volume is not the
        instance's."""
        return cls._from_rec(context, cls(), db.get_by_volume_and_instance(
            context, volume_id, instance_uuid))

    @base.remotable
    def create(self):
        values = {k: v for k, v in self.obj_get_changes().items()
                  if k in db.COLUMNS and k not in ('id', 'created_at')}
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._from_rec(self.context, self,
                       db.create_many(self.context, [values])[0])

    @base.remotable
    def save(self):
        values = {k: v for k, v in self.obj_get_changes().items()
                  if k in db.COLUMNS and k not in ('id', 'uuid')}
        if values:
            self._from_rec(self.context, self,
                           db.update(self.context, self.id, values))

    @base.remotable
    def destroy(self):
        db.destroy(self.context, self.id)


@base.NovaLiteObjectRegistry.register
class BlockDeviceMappingList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('BlockDeviceMapping')}

    @classmethod
    def _make(cls, context, recs):
        result = cls(objects=[BlockDeviceMapping._from_rec(
            context, BlockDeviceMapping(), r) for r in recs])
        result.context = context
        result.obj_reset_changes()
        return result

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The instance's live mappings, in boot order."""
        return cls._make(context, db.get_by_instance(context,
                                                     instance_uuid))

    @base.remotable_classmethod
    def create_for_instance(cls, context, instance_uuid, bdm_dicts):
        """Write the mappings of a boot request (dicts of
        BDM_DICT_FIELDS) for the instance, in one transaction."""
        values = [dict({k: d.get(k) for k in BDM_DICT_FIELDS},
                       uuid=uuidutils.generate_uuid(),
                       instance_uuid=instance_uuid)
                  for d in bdm_dicts]
        return cls._make(context, db.create_many(context, values))

    def root_bdm(self):
        return next((b for b in self.objects if b.is_root), None)

    def volumes(self):
        return [b for b in self.objects if b.is_volume]


def is_volume_backed(bdm_dicts):
    """Whether a boot request's mappings (dicts) boot from a volume."""
    return any(str(b.get('boot_index')) == '0'
               and b.get('destination_type') == DEST_VOLUME
               for b in bdm_dicts or ())
