"""Compute nodes: one per hypervisor node, in the cell of its host."""
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite.objects import base

_INT_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
               'memory_mb_used', 'local_gb_used', 'hypervisor_version',
               'free_ram_mb', 'free_disk_gb', 'current_workload',
               'running_vms', 'disk_available_least')
_RATIOS = ('cpu_allocation_ratio', 'ram_allocation_ratio',
           'disk_allocation_ratio')
_COLUMNS = (('id', 'uuid', 'service_id', 'host', 'hypervisor_type',
             'hypervisor_hostname', 'cpu_info', 'host_ip', 'pci_stats',
             'numa_topology', 'created_at', 'updated_at', 'deleted_at',
             'deleted', 'stats') + _INT_FIELDS + _RATIOS)


def _to_dict(row):
    return {c: getattr(row, c) for c in _COLUMNS}


def _active(query):
    return query.filter(models.ComputeNode.deleted == 0)


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: uuid
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(nullable=True),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'hypervisor_hostname': fields.StringField(nullable=True),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'current_workload': fields.IntegerField(nullable=True),
        'running_vms': fields.IntegerField(nullable=True),
        'cpu_info': fields.StringField(nullable=True),
        'disk_available_least': fields.IntegerField(nullable=True),
        'host_ip': fields.IPAddressField(nullable=True),
        'pci_stats': fields.StringField(nullable=True),
        'numa_topology': fields.StringField(nullable=True),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(),
        'ram_allocation_ratio': fields.FloatField(),
        'disk_allocation_ratio': fields.FloatField(),
    }

    @staticmethod
    def _from_db_object(context, node, db):
        for key in node.fields:
            value = db[key]
            if key == 'stats':
                value = jsonutils.loads(value) if value else {}
            elif key == 'deleted':
                value = bool(value)
            setattr(node, key, value)
        node._context = context
        node.obj_reset_changes()
        return node

    @classmethod
    def _one(cls, context, db):
        return cls._from_db_object(context, cls(), db)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('uuid', None)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, compute_uuid):
        db = cls._get_from_db(context, uuid=compute_uuid)
        if db is None:
            raise exception.ComputeNodeNotFound(node=compute_uuid)
        return cls._one(context, db)

    @staticmethod
    def _to_db_values(updates):
        values = dict(updates)
        if 'stats' in values:
            values['stats'] = jsonutils.dumps(values['stats'] or {})
        if values.get('host_ip') is not None:
            values['host_ip'] = str(values['host_ip'])
        for key in ('id', 'deleted', 'deleted_at', 'created_at',
                    'updated_at'):
            values.pop(key, None)
        return values

    @staticmethod
    @main_db.reader
    def _get_from_db(context, **filters):
        row = _active(context.session.query(models.ComputeNode)).filter_by(
            **filters).first()
        return _to_dict(row) if row is not None else None

    @base.remotable_classmethod
    def get_by_id(cls, context, compute_id):
        db = cls._get_from_db(context, id=compute_id)
        if db is None:
            raise exception.ComputeNodeNotFound(node=compute_id)
        return cls._one(context, db)

    @base.remotable_classmethod
    def get_by_host_and_nodename(cls, context, host, nodename):
        db = cls._get_from_db(context, host=host,
                              hypervisor_hostname=nodename)
        if db is None:
            raise exception.ComputeNodeNotFound(node=nodename)
        return cls._one(context, db)

    @staticmethod
    @main_db.writer
    def _create_in_db(context, values):
        row = models.ComputeNode(**values)
        context.session.add(row)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self._to_db_values(self.obj_get_changes())
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values))

    @staticmethod
    @main_db.writer
    def _save_in_db(context, compute_id, values):
        row = _active(context.session.query(models.ComputeNode)).filter_by(
            id=compute_id).first()
        if row is None:
            raise exception.ComputeNodeNotFound(node=compute_id)
        values.setdefault('updated_at', timeutils.utcnow())
        row.update(values)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def save(self):
        values = self._to_db_values(self.obj_get_changes())
        self._from_db_object(self._context, self,
                             self._save_in_db(self._context, self.id, values))

    @staticmethod
    @main_db.writer
    def _destroy_in_db(context, compute_id):
        context.session.query(models.ComputeNode).filter_by(
            id=compute_id, deleted=0).update(
                {models.ComputeNode.deleted: models.ComputeNode.id,
                 models.ComputeNode.deleted_at: timeutils.utcnow()},
                synchronize_session=False)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.id)


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('ComputeNode')}

    @staticmethod
    @main_db.reader
    def _get_from_db(context, **filters):
        query = _active(context.session.query(models.ComputeNode)).filter_by(
            **filters).order_by(models.ComputeNode.id)
        return [_to_dict(r) for r in query.all()]

    @base.remotable_classmethod
    def get_all(cls, context):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context))

    @base.remotable_classmethod
    def get_all_by_host(cls, context, host):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, host=host))
