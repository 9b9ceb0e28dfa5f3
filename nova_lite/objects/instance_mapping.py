from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import cell_mapping


_MAPPINGS = api_models.InstanceMapping.__table__
_CELLS = api_models.CellMapping.__table__
_MAPPING_KEYS = ('id', 'instance_uuid', 'project_id', 'user_id',
                 'queued_for_delete')
_CELL_KEYS = cell_mapping.COLUMNS


def _to_dict(row):
    rec = {k: getattr(row, k) for k in _MAPPING_KEYS}
    rec['queued_for_delete'] = bool(rec['queued_for_delete'])
    rec['cell_mapping'] = (cell_mapping.row_to_dict(row.cell_mapping)
                           if row.cell_mapping else None)
    return rec


# Every request about one server reads its mapping: one core statement
# built once (the ORM query with a joined load cost more than the rest
# of the lookup).
_BY_INSTANCE_UUID = sa.select(
    *[_MAPPINGS.c[k] for k in _MAPPING_KEYS],
    *[_CELLS.c[k].label('cell_' + k) for k in _CELL_KEYS]).select_from(
        _MAPPINGS.outerjoin(_CELLS, _CELLS.c.id == _MAPPINGS.c.cell_id)
).where(_MAPPINGS.c.instance_uuid == sa.bindparam('instance_uuid'))


def _joined_to_dict(row):
    mapping = row._mapping
    rec = {k: mapping[k] for k in _MAPPING_KEYS}
    rec['queued_for_delete'] = bool(rec['queued_for_delete'])
    rec['cell_mapping'] = (
        None if mapping['cell_id'] is None else
        {k: mapping['cell_' + k] for k in _CELL_KEYS})
    return rec


@base.NovaLiteObjectRegistry.register
class InstanceMapping(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
        'queued_for_delete': fields.BooleanField(default=False),
    }

    @staticmethod
    def _from_db_object(context, obj, db):
        for key in ('id', 'instance_uuid', 'project_id', 'user_id',
                    'queued_for_delete'):
            setattr(obj, key, db[key])
        obj.cell_mapping = (cell_mapping.CellMapping._from_db_object(
            context, cell_mapping.CellMapping(), db['cell_mapping'])
            if db['cell_mapping'] else None)
        obj.obj_reset_changes()
        # No public setter (ovo convention): doc/private-apis.rst.
        obj.context = context
        return obj

    @staticmethod
    @api_db.connection_reader
    def _get_by_instance_uuid_from_db(context, instance_uuid):
        row = context.connection.execute(
            _BY_INSTANCE_UUID, {'instance_uuid': instance_uuid}).first()
        if row is None:
            raise exception.InstanceMappingNotFound(uuid=instance_uuid)
        return _joined_to_dict(row)

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        return cls._from_db_object(
            context, cls(),
            cls._get_by_instance_uuid_from_db(context, instance_uuid))

    @staticmethod
    @api_db.writer
    def _create_in_db(context, updates):
        cell_uuid = updates.pop('cell_uuid', None)
        if cell_uuid:
            cell = context.session.query(api_models.CellMapping).filter_by(
                uuid=cell_uuid).one()
            updates['cell_id'] = cell.id
        row = api_models.InstanceMapping(**updates)
        context.session.add(row)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def create(self):
        updates = self.obj_get_changes()
        cell = updates.pop('cell_mapping', None)
        if cell is not None:
            updates['cell_uuid'] = cell.uuid
        self._from_db_object(self.context, self,
                             self._create_in_db(self.context, updates))

    @staticmethod
    @api_db.writer
    def _save_in_db(context, instance_uuid, updates):
        row = context.session.query(api_models.InstanceMapping).filter_by(
            instance_uuid=instance_uuid).first()
        if row is None:
            raise exception.InstanceMappingNotFound(uuid=instance_uuid)
        if 'cell_uuid' in updates:
            cell_uuid = updates.pop('cell_uuid')
            updates['cell_id'] = (context.session.query(
                api_models.CellMapping).filter_by(uuid=cell_uuid).one().id
                if cell_uuid else None)
        row.update(updates)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def save(self):
        updates = self.obj_get_changes()
        if 'cell_mapping' in updates:
            cell = updates.pop('cell_mapping')
            updates['cell_uuid'] = cell.uuid if cell else None
        self._from_db_object(self.context, self, self._save_in_db(
            self.context, self.instance_uuid, updates))

    @staticmethod
    @api_db.writer
    def _destroy_in_db(context, instance_uuid):
        context.session.query(api_models.InstanceMapping).filter_by(
            instance_uuid=instance_uuid).delete()

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self.context, self.instance_uuid)


@api_db.writer
def _set_cell(context, instance_uuids, cell_uuid):
    cell_id = context.session.query(api_models.CellMapping.id).filter_by(
        uuid=cell_uuid).scalar()
    context.session.query(api_models.InstanceMapping).filter(
        api_models.InstanceMapping.instance_uuid.in_(
            list(instance_uuids))).update(
        {'cell_id': cell_id}, synchronize_session=False)


def set_cell(context, instance_uuids, cell_uuid):
    """Point the instances' mappings at cell_uuid (one statement)."""
    _set_cell(context, instance_uuids, cell_uuid)


@api_db.writer
def _queue_for_delete(context, instance_uuid):
    return context.session.query(api_models.InstanceMapping).filter_by(
        instance_uuid=instance_uuid).update(
        {'queued_for_delete': True}, synchronize_session=False)


def queue_for_delete(context, instance_uuid):
    """Mark the mapping of a deleted server (kept until archived)."""
    return bool(_queue_for_delete(context, instance_uuid))
