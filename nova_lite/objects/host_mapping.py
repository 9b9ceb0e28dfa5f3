from oslo_versionedobjects import fields
from sqlalchemy import orm

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import cell_mapping


def _to_dict(row):
    return {'id': row.id, 'host': row.host, 'created_at': row.created_at,
            'updated_at': row.updated_at,
            'cell_mapping': cell_mapping._to_dict(row.cell)}


@base.NovaLiteObjectRegistry.register
class HostMapping(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'host': fields.StringField(),
        'cell_mapping': fields.ObjectField('CellMapping'),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, obj, db):
        for key in ('id', 'host', 'created_at', 'updated_at'):
            setattr(obj, key, db[key])
        obj.cell_mapping = cell_mapping.CellMapping._from_db_object(
            context, cell_mapping.CellMapping(), db['cell_mapping'])
        obj.obj_reset_changes()
        # No public setter (ovo convention): doc/private-apis.rst.
        obj._context = context
        return obj

    @staticmethod
    @api_db.reader
    def _get_by_host_from_db(context, host):
        row = (context.session.query(api_models.HostMapping)
               .options(orm.joinedload(api_models.HostMapping.cell))
               .filter_by(host=host).first())
        if row is None:
            raise exception.HostMappingNotFound(name=host)
        return _to_dict(row)

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return cls._from_db_object(context, cls(),
                                   cls._get_by_host_from_db(context, host))

    @staticmethod
    @api_db.writer
    def _create_in_db(context, host, cell_uuid):
        session = context.session
        if session.query(api_models.HostMapping).filter_by(
                host=host).first():
            raise exception.HostMappingExists(name=host)
        cell = session.query(api_models.CellMapping).filter_by(
            uuid=cell_uuid).first()
        if cell is None:
            raise exception.CellMappingNotFound(uuid=cell_uuid)
        row = api_models.HostMapping(host=host, cell_id=cell.id)
        row.cell = cell
        session.add(row)
        session.flush()
        return _to_dict(row)

    @base.remotable
    def create(self):
        self._from_db_object(self._context, self, self._create_in_db(
            self._context, self.host, self.cell_mapping.uuid))

    @staticmethod
    @api_db.writer
    def _destroy_in_db(context, host):
        count = context.session.query(api_models.HostMapping).filter_by(
            host=host).delete()
        if not count:
            raise exception.HostMappingNotFound(name=host)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.host)


@base.NovaLiteObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('HostMapping')}

    @staticmethod
    @api_db.reader
    def _get_from_db(context, cell_uuid=None):
        query = (context.session.query(api_models.HostMapping)
                 .options(orm.joinedload(api_models.HostMapping.cell))
                 .order_by(api_models.HostMapping.host))
        if cell_uuid:
            query = query.join(api_models.HostMapping.cell).filter(
                api_models.CellMapping.uuid == cell_uuid)
        return [_to_dict(r) for r in query.all()]

    @base.remotable_classmethod
    def get_all(cls, context):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context))

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_uuid):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, cell_uuid))
