"""Service records: one per (host, binary) in the cell the service lives in.

Each record carries the service version of the code that wrote it
(nova_lite.objects.service_version has the history and the minimum-version
gate); a service refuses to start when it is too old for its peers
(check_can_start).
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import cell_mapping
from nova_lite.objects import service_version

_FIELDS = ('id', 'uuid', 'host', 'binary', 'topic', 'report_count',
           'disabled', 'disabled_reason', 'last_seen_up', 'forced_down',
           'created_at', 'updated_at', 'deleted_at', 'deleted', 'version')


def _to_dict(row):
    values = {f: getattr(row, f) for f in _FIELDS}
    if values['version'] is None:
        values['version'] = 1
    # A row not renamed yet reads as its binary's current name.
    values['binary'] = constants.current_binary(values['binary'])
    return values


# Rows of these binaries under their current or legacy names.
_binary_is = service_version.binary_in


def _active(query):
    return query.filter(models.Service.deleted == 0)


_SERVICES = models.Service.__table__
# Built once with bound parameters (every server listing of an
# administrator runs it per cell, for the page's host statuses).
_OF_BINARIES_ON_HOSTS = sa.select(*[_SERVICES.c[f] for f in _FIELDS]).where(
    _SERVICES.c.deleted == 0,
    _SERVICES.c.binary.in_(sa.bindparam('binaries', expanding=True)),
    _SERVICES.c.host.in_(sa.bindparam('hosts', expanding=True)),
).order_by(_SERVICES.c.id)


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: version
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'version': fields.IntegerField(),
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
        # No public setter (ovo convention): doc/private-apis.rst.
        service.context = context
        service.obj_reset_changes()
        return service

    @classmethod
    def _one(cls, context, db):
        return cls._from_db_object(context, cls(), db)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('version', None)

    def _stamp_version(self):
        # The running code's version, unless the caller set one (a service
        # recording what it runs, decided where that code runs).
        if 'version' not in self.obj_what_changed():
            self.version = service_version.SERVICE_VERSION

    # --- lookups ---------------------------------------------------------

    @staticmethod
    @main_db.reader
    def _get_from_db(context, binary=None, **filters):
        query = _active(context.session.query(models.Service)).filter_by(
            **filters)
        if binary is not None:
            query = query.filter(_binary_is([binary])).order_by(
                # Should a service be recorded under both names, the
                # current one wins.
                (models.Service.binary != constants.current_binary(
                    binary)).asc())
        row = query.first()
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
        return cls.get_by_host_and_binary(context, host,
                                          constants.COMPUTE_BINARY)

    # --- writes ----------------------------------------------------------

    @staticmethod
    @main_db.writer
    def _create_in_db(context, values):
        if values.get('binary') is not None:
            values['binary'] = constants.current_binary(values['binary'])
            same_binary = _binary_is([values['binary']])
        else:
            same_binary = models.Service.binary.is_(None)
        exists = _active(context.session.query(models.Service)).filter(
            models.Service.host == values.get('host'),
            sa.or_(same_binary,
                   models.Service.topic == values.get('topic'))).first()
        if exists is not None:
            raise exception.ServiceExists(host=values.get('host'),
                                          binary=values.get('binary'))
        row = models.Service(**values)
        context.session.add(row)
        try:
            context.session.flush()
        except db_exc.DBDuplicateEntry:
            # Another process (a second API on the host) won the race.
            raise exception.ServiceExists(host=values.get('host'),
                                          binary=values.get('binary'))
        return _to_dict(row)

    def create(self):
        self._stamp_version()
        self._create()

    @base.remotable
    def _create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        updates.setdefault('report_count', 0)
        self._from_db_object(self.context, self,
                             self._create_in_db(self.context, updates))

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

    def save(self):
        self._stamp_version()
        self._save()

    @base.remotable
    def _save(self):
        updates = self.obj_get_changes()
        updates.pop('id', None)
        self._from_db_object(self.context, self, self._save_in_db(
            self.context, self.id, updates))

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
        self._from_db_object(self.context, self,
                             self._report_in_db(self.context, self.id))

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
        self._destroy_in_db(self.context, self.id)

    @staticmethod
    @main_db.reader
    def _peer_versions_from_db(context, binary):
        rows = _active(context.session.query(
            models.Service.binary, models.Service.host,
            sa.func.coalesce(models.Service.version, 1))).filter(
                _binary_is([binary, constants.COMPUTE_BINARY])).all()
        return [[constants.current_binary(b), h, v] for b, h, v in rows]

    @base.remotable_classmethod
    def get_peer_versions(cls, context, binary):
        """[[binary, host, version]] for binary and the computes in this
        cell (remotable: a compute asks its conductor)."""
        return cls._peer_versions_from_db(context, binary)

    def is_up(self, down_time=None):
        """Not forced down, and heard from within down_time seconds
        (default: service_down_time())."""
        if self.forced_down:
            return False
        last = self.last_seen_up or self.updated_at or self.created_at
        if last is None:
            return False
        down_time = down_time or service_down_time()
        # Loaded rows are tz-aware (ovo DateTimeField), utcnow() is naive.
        last = timeutils.normalize_time(last)
        return abs(timeutils.delta_seconds(last, timeutils.utcnow())) \
            <= down_time


def compute_is_up(context, host):
    """Whether host's nova-compute (in the cell context is targeted at)
    is recorded, not forced down and heard from lately: what a live
    migration needs of both its hosts, and what an evacuation needs
    its source not to be. False for a host with no compute."""
    try:
        return Service.get_by_compute_host(context, host).is_up()
    except exception.HostBinaryNotFound:
        return False


def service_down_time():
    """Seconds without a heartbeat before a service counts as down:
    [DEFAULT] service_down_time, but never under 2.5 report intervals, so
    that one missed heartbeat never makes a service look down."""
    return max(CONF.service_down_time, 2.5 * CONF.report_interval)


@base.NovaLiteObjectRegistry.register
class ServiceList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('Service')}

    @staticmethod
    @main_db.reader
    def _get_from_db(context, disabled=None, binary=None, **filters):
        query = _active(context.session.query(models.Service))
        if disabled is not None:
            query = query.filter_by(disabled=disabled)
        if binary is not None:
            query = query.filter(_binary_is([binary]))
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

    @classmethod
    def get_by_binary_and_hosts(cls, context, binary, hosts):
        """The services of binary on these hosts only (one query, not
        one row per service of the cell). Not remotable: for callers
        holding the cell database (the API)."""
        if not hosts:
            return base.obj_make_list(context, cls(context), [])
        return base.obj_make_list(context, cls(context),
                                  cls._of_binary_on_hosts(context, binary,
                                                          hosts))

    @staticmethod
    @main_db.connection_reader
    def _of_binary_on_hosts(context, binary, hosts):
        rows = context.connection.execute(_OF_BINARIES_ON_HOSTS, {
            'binaries': list(constants.binary_names(binary)),
            'hosts': sorted(hosts)})
        return [_to_dict(r) for r in rows]

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, host=host))


def get_service_version(context, host, binary, use_cache=True):
    """The recorded version of one service (in the context's cell), cached
    with the minimum versions (service_version.reset_min_version_cache)."""
    return service_version.cached(
        ('host', getattr(context, 'cell_uuid', None), host, binary),
        lambda: Service.get_by_host_and_binary(context, host,
                                               binary).version,
        use_cache)


def check_can_start(context, binary, host,
                    version=service_version.SERVICE_VERSION,
                    all_cells=False):
    """Refuse to start a service that is too old for its peers.

    Raises ServiceTooOld when another service of the same binary is more
    than SERVICE_VERSION_SKEW versions newer, or when this code is older
    than OLDEST_SUPPORTED_SERVICE_VERSION (both in service_version);
    raises TooOldComputeService (API and conductors) when computes older
    than the oldest supported version are recorded, unless the FFU
    workaround is set.
    """
    oldest = service_version.OLDEST_SUPPORTED_SERVICE_VERSION
    if version < oldest:
        raise exception.ServiceTooOld(thisver=version, minver=oldest)
    if all_cells:
        per_cell = cell_mapping.scatter_gather_skip_cell0(
            context, Service.get_peer_versions, binary)
        peers = [p for r in per_cell.values()
                 if not nova_context.is_cell_failure(r) for p in r]
    else:
        peers = Service.get_peer_versions(context, binary)
    newest_peer = max((v for b, h, v in peers if b == binary and h != host),
                      default=None)
    if newest_peer is not None and newest_peer - version > \
            service_version.SERVICE_VERSION_SKEW:
        raise exception.ServiceTooOld(thisver=version, minver=newest_peer)
    if binary in (constants.API_BINARY, constants.CONDUCTOR_BINARY) and \
            not CONF.workarounds.disable_compute_service_check_for_ffu:
        old = sorted('%s (v%d)' % (h, v) for b, h, v in peers
                     if b == constants.COMPUTE_BINARY and v < oldest)
        if old:
            raise exception.TooOldComputeService(
                binary=binary, current=version, oldest_supported=oldest,
                hosts=', '.join(old))


# Migration statuses after which a migration no longer involves its hosts.
MIGRATION_FINISHED = ('confirmed', 'reverted', 'error', 'failed',
                      'completed', 'cancelled', 'done')


@main_db.reader
def host_in_use(context, host):
    """(hosts a live instance, takes part in a migration in progress) of
    a compute host, in the cell context is targeted at: two queries."""
    instances = models.Instance.__table__
    migrations = models.Migration.__table__
    session = context.session
    instance = session.execute(sa.select(instances.c.id).where(
        instances.c.deleted == 0,
        instances.c.host == host).limit(1)).first()
    migration = session.execute(sa.select(migrations.c.id).where(
        migrations.c.deleted == 0,
        sa.or_(migrations.c.source_compute == host,
               migrations.c.dest_compute == host),
        migrations.c.status.notin_(MIGRATION_FINISHED)).limit(1)).first()
    return instance is not None, migration is not None
