"""Service records: one per (host, binary) in the cell the service lives in.

Service versions (../shared/specs/service-version-number.rst): every
service records the SERVICE_VERSION of the code it runs; NULL (records
written before the column existed) counts as 1. The history below says
what each version speaks; the minimum version per binary gates online data
migrations, RPC version caps ([upgrade_levels] ... = auto) and start-up.
"""
from oslo_log import log as logging
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

LOG = logging.getLogger(__name__)

# One entry per service version: the RPC API versions that code speaks, the
# object versions it understands (objects sent to it are backported to
# these) and what it enables. Version 1 is the code before the services
# table had a version column (NULL in the database).
# placement_rpc / compute_task_rpc None: that code does not serve that API.
SERVICE_VERSION_HISTORY = {
    1: {'compute_rpc': '1.0', 'conductor_rpc': '1.0',
        'scheduler_rpc': '1.0', 'placement_rpc': None,
        'compute_task_rpc': None,
        'objects': {'Service': '1.0', 'ComputeNode': '1.0',
                    'ComputeNodeList': '1.0', 'ServiceList': '1.0'},
        'enables': 'initial'},
    2: {'compute_rpc': '1.1', 'conductor_rpc': '1.0',
        'scheduler_rpc': '1.0', 'placement_rpc': None,
        'compute_task_rpc': None,
        'objects': {'Service': '1.1', 'ComputeNode': '1.1',
                    'ComputeNodeList': '1.0', 'ServiceList': '1.0'},
        'enables': 'services.version recorded; compute RPC 1.1 '
                   '(get_guests); ComputeNode.uuid; online migration '
                   'migrate_flavors'},
    3: {'compute_rpc': '1.1', 'conductor_rpc': '1.0',
        'scheduler_rpc': '1.0', 'placement_rpc': '1.0',
        'compute_task_rpc': None,
        'objects': {'Service': '1.1', 'ComputeNode': '1.2',
                    'ComputeNodeList': '1.1', 'ServiceList': '1.0'},
        'enables': 'ComputeNode capacity in resource-provider inventories '
                   '(usage from allocations); placement RPC 1.0 served by '
                   'nova-lite-scheduler on every cell transport; online '
                   'migration migrate_compute_node_inventories (needs '
                   'nova-lite-api and nova-lite-conductor >= 3 in every '
                   'cell)'},
    4: {'compute_rpc': '1.1', 'conductor_rpc': '1.0',
        'scheduler_rpc': '1.0', 'placement_rpc': '1.1',
        'compute_task_rpc': '1.0',
        'objects': {'Service': '1.1', 'ComputeNode': '1.2',
                    'ComputeNodeList': '1.1', 'ServiceList': '1.0',
                    'EmbeddedFlavor': '1.0'},
        'enables': 'placement RPC 1.1: claim (optionally moving the '
                   "consumer's allocations to another consumer), "
                   'move_allocations, remove_allocations, get_consumer, '
                   'with consumer generations (API DB consumers table); '
                   'EmbeddedFlavor 1.0, the flavor snapshot servers carry '
                   'in instance_extra; services recorded under the Compute '
                   'API binary names (nova-osapi_compute, nova-conductor, '
                   'nova-scheduler, nova-compute; earlier versions recorded '
                   'nova-lite-*, read under either name); online migration '
                   'migrate_service_binaries (needs nova-osapi_compute, '
                   'nova-conductor and nova-scheduler >= 4 in every cell); '
                   'compute_task RPC 1.0 served by super conductors'},
}
SERVICE_VERSION = max(SERVICE_VERSION_HISTORY)

# Services older than this cannot join the deployment at all (API and
# conductors refuse to start while such computes are recorded, unless
# [workarounds] disable_compute_service_check_for_ffu).
OLDEST_SUPPORTED_SERVICE_VERSION = 1

# A service may be at most this many versions older than the newest of its
# own binary (N-1 rolling upgrades); further behind, it refuses to start.
SERVICE_VERSION_SKEW = 1

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


def _binary_is(binaries):
    """Rows of these binaries under their current or legacy names."""
    names = [n for b in binaries for n in constants.binary_names(b)]
    return models.Service.binary.in_(names)


def _active(query):
    return query.filter(models.Service.deleted == 0)


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
        service._context = context
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
            self.version = SERVICE_VERSION

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
        context.session.flush()
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

    def save(self):
        self._stamp_version()
        self._save()

    @base.remotable
    def _save(self):
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

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, host=host))


# --- legacy binary names --------------------------------------------------
#
# Releases before service version 4 recorded nova-lite-* binaries. Such an
# old API, conductor or scheduler looks its own row up by that name, so a
# row is renamed only once none of them runs (the migration's gate: API,
# conductor and scheduler >= 4 everywhere; an old compute looks its row up
# through its conductor, which then matches either name); until then every
# lookup here matches either name.

@main_db.writer
def _rename_legacy_rows(context, after_id, limit):
    svc = models.Service
    legacy = list(constants.LEGACY_BINARIES.values())
    rows = (context.session.query(svc.id, svc.host, svc.binary,
                                  svc.deleted)
            .filter(svc.binary.in_(legacy), svc.id > after_id)
            .order_by(svc.id).limit(limit).all())
    if not rows:
        return 0, 0, None
    live_current = set(_active(context.session.query(
        svc.host, svc.binary)).filter(
            svc.host.in_({r.host for r in rows}),
            svc.binary.in_(constants.BINARIES)).all())
    done = 0
    for row in rows:
        new = constants.current_binary(row.binary)
        if not row.deleted and (row.host, new) in live_current:
            LOG.warning('Service %s (id %d) on %s is also recorded as %s: '
                        'left under its legacy name', row.binary, row.id,
                        row.host, new)
            continue
        # The legacy name in the WHERE clause makes a concurrent or
        # repeated rename a no-op; updated_at keeps its value (it is a
        # heartbeat's fallback, and nothing about the service changed).
        done += context.session.query(svc).filter(
            svc.id == row.id, svc.binary == row.binary).update(
                {svc.binary: new, svc.updated_at: svc.updated_at},
                synchronize_session=False)
    return len(rows), done, rows[-1].id


def rename_legacy_binaries(context, max_count):
    """Rename service rows of the context's cell recorded under a legacy
    binary name (deleted ones too) to the binary's current name; stop
    after max_count renamed or when none is left. Returns (found, done).

    Idempotent and safe next to itself: each row is renamed by one UPDATE
    that matches its legacy name. A live row whose host is also recorded
    under the current name is found but not done (and logged). Callers
    run this only once no API, conductor or scheduler older than service
    version 4 runs in any cell.
    """
    found = done = 0
    after_id = 0
    while done < max_count:
        batch_found, batch_done, after_id = _rename_legacy_rows(
            context, after_id, max_count - done)
        if not batch_found:
            break
        found += batch_found
        done += batch_done
    return found, done


@main_db.reader
def count_legacy_binaries(context):
    """Rows of the context's cell still under a legacy binary name
    (reads only columns every schema has)."""
    return context.session.query(sa.func.count(models.Service.id)).filter(
        models.Service.binary.in_(
            list(constants.LEGACY_BINARIES.values()))).scalar()


# --- minimum versions ------------------------------------------------------
#
# Answers to "has everyone upgraded far enough?" are cached per process:
# they gate code paths that run on every request, and the answer only
# changes when an operator upgrades something — they then send SIGHUP
# (oslo.service calls reset(), which calls reset_min_version_cache()).

_MIN_VERSION_CACHE = {}


def reset_min_version_cache():
    _MIN_VERSION_CACHE.clear()


@main_db.reader
def _min_versions_in_db(context, binaries):
    rows = (_active(context.session.query(
        models.Service.binary,
        sa.func.min(sa.func.coalesce(models.Service.version, 1))))
        .filter(_binary_is(binaries))
        .group_by(models.Service.binary).all())
    mins = {}
    for binary, version in rows:
        binary = constants.current_binary(binary)
        mins[binary] = min(version, mins.get(binary, version))
    return mins


def get_minimum_versions(context, binaries, use_cache=True):
    """{binary: minimum version} in the context's cell; absent binaries
    (none recorded) are left out."""
    key = (getattr(context, 'cell_uuid', None), tuple(sorted(binaries)))
    if use_cache and key in _MIN_VERSION_CACHE:
        return dict(_MIN_VERSION_CACHE[key])
    result = _min_versions_in_db(context, list(binaries))
    _MIN_VERSION_CACHE[key] = dict(result)
    return result


def get_minimum_version(context, binary, use_cache=True):
    """The minimum recorded version of binary in the context's cell, or 0
    when no such service is recorded."""
    return get_minimum_versions(context, [binary], use_cache).get(binary, 0)


def get_minimum_version_all_cells(context, binaries, use_cache=True):
    """{binary: minimum version across every cell} (cell0 excluded).

    A cell that fails or does not answer is never silently counted as
    upgraded: exception.CellsNotResponding names it.
    """
    key = ('all-cells', tuple(sorted(binaries)))
    if use_cache and key in _MIN_VERSION_CACHE:
        return dict(_MIN_VERSION_CACHE[key])
    results = cell_mapping.scatter_gather_skip_cell0(
        context, lambda cctxt: get_minimum_versions(cctxt, binaries,
                                                    use_cache=False))
    failed = [uuid for uuid, r in results.items()
              if nova_context.is_cell_failure(r)]
    if failed:
        raise exception.CellsNotResponding(cells=', '.join(sorted(failed)))
    mins = {}
    for per_cell in results.values():
        for binary, version in per_cell.items():
            mins[binary] = min(version, mins.get(binary, version))
    _MIN_VERSION_CACHE[key] = dict(mins)
    return mins


def get_service_version(context, host, binary, use_cache=True):
    """The recorded version of one service (in the context's cell)."""
    key = ('host', getattr(context, 'cell_uuid', None), host, binary)
    if use_cache and key in _MIN_VERSION_CACHE:
        return _MIN_VERSION_CACHE[key]
    version = Service.get_by_host_and_binary(context, host, binary).version
    _MIN_VERSION_CACHE[key] = version
    return version


def unmet_needs(context, needs):
    """Which of {binary: version} needs are not met across all cells: the
    gate of online data migrations (online_migrations.registry's needs)
    and of compute-node inventory moves.

    Returns a human-readable string, or None when every need is met. A
    binary with no recorded service does not block; a cell that does not
    answer does (it is not provably upgraded).
    """
    try:
        mins = get_minimum_version_all_cells(context, list(needs))
    except exception.CellsNotResponding as exc:
        return exc.format_message()
    waiting = ['%s >= %d (oldest is %d)' % (binary, need, mins[binary])
               for binary, need in sorted(needs.items())
               if binary in mins and mins[binary] < need]
    return ('waiting for ' + ', '.join(waiting)) if waiting else None


def rpc_version_for(service, service_version):
    """The RPC API version ('compute', ...) a service version speaks."""
    entry = SERVICE_VERSION_HISTORY.get(service_version)
    if entry is None:
        # Older than anything we know: the oldest we know is the best bet.
        entry = SERVICE_VERSION_HISTORY[min(SERVICE_VERSION_HISTORY)]
        if service_version > SERVICE_VERSION:
            entry = SERVICE_VERSION_HISTORY[SERVICE_VERSION]
    return entry['%s_rpc' % service]


def object_versions_for(service_version):
    entry = SERVICE_VERSION_HISTORY.get(
        min(max(service_version, min(SERVICE_VERSION_HISTORY)),
            SERVICE_VERSION))
    return dict(entry['objects'])


def get_auto_version_cap(service, binary=None):
    """RPC cap for [upgrade_levels] <service> = auto: what the oldest
    recorded server binary (default: the one serving <service>) speaks,
    across all cells when this process can see them, else in its own
    cell; None when that binary does not serve <service> at all. Cached
    until reset_min_version_cache() (SIGHUP)."""
    binary = binary or constants.SERVER_BINARIES[service]
    key = ('cap', service, binary)
    if key in _MIN_VERSION_CACHE:
        return _MIN_VERSION_CACHE[key]
    ctxt = nova_context.get_admin_context()
    try:
        if CONF.api_database.connection:
            minimum = get_minimum_version_all_cells(ctxt, [binary]).get(
                binary, SERVICE_VERSION)
        else:
            minimum = get_minimum_version(ctxt, binary) or SERVICE_VERSION
    except Exception:
        LOG.exception('Cannot read minimum %s version; capping at the '
                      'oldest supported', binary)
        minimum = OLDEST_SUPPORTED_SERVICE_VERSION
    cap = _MIN_VERSION_CACHE[key] = rpc_version_for(service, minimum)
    return cap


# The cap that lets nothing be sent: no server of the API serves it yet.
NOT_SERVED_CAP = '0.0'


def rpc_version_cap(service):
    """The RPC version cap for calls to service ('conductor', ...) from
    [upgrade_levels] <service>: an explicit version pins; 'auto' derives
    it (get_auto_version_cap; NOT_SERVED_CAP when the oldest server does
    not serve the API at all); unset means no cap."""
    value = getattr(CONF.upgrade_levels, service)
    if not value:
        return None
    if value != 'auto':
        return value
    cap = get_auto_version_cap(service)
    return NOT_SERVED_CAP if cap is None else cap


def check_can_start(context, binary, host, version=SERVICE_VERSION,
                    all_cells=False):
    """Refuse to start a service that is too old for its peers.

    Raises ServiceTooOld when another service of the same binary is more
    than SERVICE_VERSION_SKEW versions newer, or when this code is older
    than OLDEST_SUPPORTED_SERVICE_VERSION; raises TooOldComputeService
    (API and conductors) when computes older than the oldest supported
    version are recorded, unless the FFU workaround is set.
    """
    if version < OLDEST_SUPPORTED_SERVICE_VERSION:
        raise exception.ServiceTooOld(thisver=version,
                                      minver=OLDEST_SUPPORTED_SERVICE_VERSION)
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
            SERVICE_VERSION_SKEW:
        raise exception.ServiceTooOld(thisver=version, minver=newest_peer)
    if binary in (constants.API_BINARY, constants.CONDUCTOR_BINARY) and \
            not CONF.workarounds.disable_compute_service_check_for_ffu:
        old = sorted('%s (v%d)' % (h, v) for b, h, v in peers
                     if b == constants.COMPUTE_BINARY
                     and v < OLDEST_SUPPORTED_SERVICE_VERSION)
        if old:
            raise exception.TooOldComputeService(
                binary=binary, current=version,
                oldest_supported=OLDEST_SUPPORTED_SERVICE_VERSION,
                hosts=', '.join(old))
