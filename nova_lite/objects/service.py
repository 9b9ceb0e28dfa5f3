"""Service records: one per (host, binary) in the cell the service lives in."""
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite.objects import base

_FIELDS = ('id', 'uuid', 'host', 'binary', 'topic', 'report_count',
           'disabled', 'disabled_reason', 'last_seen_up', 'forced_down',
           'created_at', 'updated_at', 'deleted_at', 'deleted')


def _to_dict(row):
    return {f: getattr(row, f) for f in _FIELDS}


def _active(query):
    return query.filter(models.Service.deleted == 0)


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(default=0),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
    }

    @staticmethod
    def _from_db_object(context, service, db):
        for key in _FIELDS:
            value = db[key]
            if key == 'deleted':
                value = bool(value)
            elif key in ('disabled', 'forced_down'):
                value = bool(value)
            setattr(service, key, value)
        service._context = context
        service.obj_reset_changes()
        return service

    @classmethod
    def _one(cls, context, db):
        return cls._from_db_object(context, cls(), db)

    # --- lookups ---------------------------------------------------------

    @staticmethod
    @main_db.reader
    def _get_from_db(context, **filters):
        row = _active(context.session.query(models.Service)).filter_by(
            **filters).first()
        return _to_dict(row) if row is not None else None

    @base.remotable_classmethod
    def get_by_id(cls, context, service_id):
        db = cls._get_from_db(context, id=service_id)
        if db is None:
            raise exception.ServiceNotFound(service_id=service_id)
        return cls._one(context, db)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, service_uuid):
        db = cls._get_from_db(context, uuid=service_uuid)
        if db is None:
            raise exception.ServiceNotFound(service_id=service_uuid)
        return cls._one(context, db)

    @base.remotable_classmethod
    def get_by_host_and_binary(cls, context, host, binary):
        db = cls._get_from_db(context, host=host, binary=binary)
        if db is None:
            raise exception.HostBinaryNotFound(host=host, binary=binary)
        return cls._one(context, db)

    @classmethod
    def get_by_compute_host(cls, context, host):
        return cls.get_by_host_and_binary(context, host, 'nova-lite-compute')

    # --- writes ----------------------------------------------------------

    @staticmethod
    @main_db.writer
    def _create_in_db(context, values):
        exists = _active(context.session.query(models.Service)).filter(
            models.Service.host == values.get('host'),
            sa.or_(models.Service.binary == values.get('binary'),
                   models.Service.topic == values.get('topic'))).first()
        if exists is not None:
            raise exception.ServiceExists(host=values.get('host'),
                                          binary=values.get('binary'))
        row = models.Service(**values)
        context.session.add(row)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        updates.setdefault('report_count', 0)
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, updates))

    @staticmethod
    @main_db.writer
    def _save_in_db(context, service_id, values):
        row = _active(context.session.query(models.Service)).filter_by(
            id=service_id).first()
        if row is None:
            raise exception.ServiceNotFound(service_id=service_id)
        row.update(values)
        context.session.flush()
        return _to_dict(row)

    @base.remotable
    def save(self):
        updates = self.obj_get_changes()
        updates.pop('id', None)
        self._from_db_object(self._context, self, self._save_in_db(
            self._context, self.id, updates))

    @staticmethod
    @main_db.writer
    def _report_in_db(context, service_id):
        # One UPDATE, no read-modify-write race between heartbeats.
        now = timeutils.utcnow()
        count = _active(context.session.query(models.Service)).filter_by(
            id=service_id).update(
                {models.Service.report_count: models.Service.report_count + 1,
                 models.Service.last_seen_up: now},
                synchronize_session=False)
        if not count:
            raise exception.ServiceNotFound(service_id=service_id)
        return _to_dict(context.session.query(models.Service).filter_by(
            id=service_id).one())

    @base.remotable
    def report_state(self):
        """Heartbeat: bump report_count and last_seen_up."""
        self._from_db_object(self._context, self,
                             self._report_in_db(self._context, self.id))

    @staticmethod
    @main_db.writer
    def _destroy_in_db(context, service_id):
        now = timeutils.utcnow()
        row = _active(context.session.query(models.Service)).filter_by(
            id=service_id).first()
        if row is None:
            raise exception.ServiceNotFound(service_id=service_id)
        row.update({'deleted': row.id, 'deleted_at': now})
        context.session.query(models.ComputeNode).filter_by(
            service_id=service_id, deleted=0).update(
                {models.ComputeNode.deleted: models.ComputeNode.id,
                 models.ComputeNode.deleted_at: now},
                synchronize_session=False)

    @base.remotable
    def destroy(self):
        """Soft-delete the service and its compute nodes."""
        self._destroy_in_db(self._context, self.id)

    def is_up(self, down_time=None):
        from nova_lite.conf import CONF
        if self.forced_down:
            return False
        last = self.last_seen_up or self.updated_at or self.created_at
        if last is None:
            return False
        down_time = down_time or CONF.service_down_time
        return abs(timeutils.delta_seconds(last, timeutils.utcnow())) \
            <= down_time


@base.NovaLiteObjectRegistry.register
class ServiceList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('Service')}

    @staticmethod
    @main_db.reader
    def _get_from_db(context, **filters):
        query = _active(context.session.query(models.Service))
        if filters.get('disabled') is not None:
            query = query.filter_by(disabled=filters.pop('disabled'))
        filters.pop('disabled', None)
        query = query.filter_by(**filters).order_by(models.Service.id)
        return [_to_dict(r) for r in query.all()]

    @base.remotable_classmethod
    def get_all(cls, context, disabled=None):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context,
                                                   disabled=disabled))

    @base.remotable_classmethod
    def get_by_binary(cls, context, binary):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, binary=binary))

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, host=host))
