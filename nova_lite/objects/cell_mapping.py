from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite import exception
from nova_lite.objects import base
from nova_lite import rpc


# A cell mapping's record: these columns of its row.
COLUMNS = ('id', 'uuid', 'name', 'transport_url', 'database_connection',
           'disabled', 'created_at', 'updated_at')


def row_to_dict(row):
    """A cell_mappings row as the dict the objects are built from."""
    return {c: getattr(row, c) for c in COLUMNS}


_CELLS = api_models.CellMapping.__table__
# Built once: every listing and every API request that looks for a
# server's cell reads the cells.
_ALL = sa.select(*[_CELLS.c[c] for c in COLUMNS]).order_by(
    sa.asc(_CELLS.c.id))


@base.NovaLiteObjectRegistry.register
class CellMapping(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    CELL0_UUID = constants.CELL0_UUID

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(nullable=True),
        'database_connection': fields.StringField(nullable=True),
        'disabled': fields.BooleanField(default=False),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    def is_cell0(self):
        return (self.obj_attr_is_set('uuid')
                and self.uuid == constants.CELL0_UUID)

    def connect(self):
        """(database context manager, transport) of this cell, new each
        call (context.target_cell caches them). cell0 has no message queue:
        nothing runs there ('none:///')."""
        db = main_db.create_context_manager(self.database_connection)
        url = self.transport_url
        mq = (rpc.get_cell_transport(url)
              if url and not url.startswith('none:') else None)
        return db, mq

    @property
    def identity(self):
        return '%s(%s)' % (self.uuid, self.name) if self.name else self.uuid

    @staticmethod
    def _from_db_object(context, cell, db_cell):
        for key in cell.fields:
            setattr(cell, key, db_cell[key])
        cell.obj_reset_changes()
        # No public setter (ovo convention): doc/private-apis.rst.
        cell.context = context
        return cell

    @staticmethod
    @api_db.reader
    def _get_by_uuid_from_db(context, uuid):
        row = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).first()
        if row is None:
            raise exception.CellMappingNotFound(uuid=uuid)
        return row_to_dict(row)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(),
                                   cls._get_by_uuid_from_db(context, uuid))

    @staticmethod
    @api_db.writer
    def _create_in_db(context, updates):
        if updates.get('name') and context.session.query(
                api_models.CellMapping).filter_by(
                    name=updates['name']).first():
            raise exception.CellMappingExists(name=updates['name'])
        row = api_models.CellMapping(**updates)
        context.session.add(row)
        context.session.flush()
        return row_to_dict(row)

    @base.remotable
    def create(self):
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        self._from_db_object(self.context, self,
                             self._create_in_db(self.context, updates))

    @staticmethod
    @api_db.writer
    def _save_in_db(context, uuid, updates):
        row = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).first()
        if row is None:
            raise exception.CellMappingNotFound(uuid=uuid)
        if updates.get('name') and context.session.query(
                api_models.CellMapping).filter(
                    api_models.CellMapping.name == updates['name'],
                    api_models.CellMapping.uuid != uuid).first():
            raise exception.CellMappingExists(name=updates['name'])
        row.update(updates)
        context.session.flush()
        return row_to_dict(row)

    @base.remotable
    def save(self):
        changes = self.obj_get_changes()
        self._from_db_object(self.context, self,
                             self._save_in_db(self.context, self.uuid,
                                              changes))

    @staticmethod
    @api_db.writer
    def _destroy_in_db(context, uuid):
        row = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).first()
        if row is None:
            raise exception.CellMappingNotFound(uuid=uuid)
        hosts = context.session.query(api_models.HostMapping).filter_by(
            cell_id=row.id).count()
        if hosts:
            raise exception.CellNotEmpty(uuid=uuid, what='%d hosts' % hosts)
        instances = context.session.query(
            api_models.InstanceMapping).filter_by(cell_id=row.id).count()
        if instances:
            raise exception.CellNotEmpty(uuid=uuid,
                                         what='%d instances' % instances)
        context.session.delete(row)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self.context, self.uuid)


@base.NovaLiteObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('CellMapping')}

    @staticmethod
    @api_db.connection_reader
    def _get_all_from_db(context):
        return [row_to_dict(r) for r in context.connection.execute(_ALL)]

    @base.remotable_classmethod
    def get_all(cls, context):
        return base.obj_make_list(context, cls(context),
                                  cls._get_all_from_db(context))


def scatter_gather_skip_cell0(context, fn, *args, **kwargs):
    """context.scatter_gather_cells over every cell but cell0, with
    [DEFAULT] cell_timeout."""
    cells = [c for c in CellMappingList.get_all(context) if not c.is_cell0()]
    return nova_context.scatter_gather_cells(context, cells, CONF.cell_timeout,
                                             fn, *args, **kwargs)
