"""The embedded control plane: every service in one process.

SQLite files under a state directory, in-process ``inproc://`` transports (one
per cell plus the API's, so cells stay isolated as with split RabbitMQ
vhosts), cell0 + N cells, M simulated computes per cell. Used by
``nova-lite-all-in-one`` and by the functional tests.

Layout of the state directory::

    api.sqlite  cell0.sqlite  cell1.sqlite ...   databases
    local_services.sqlite                        images, networks, ports,
                                                 volumes
    fake-hypervisor/<host>.json, .journal        simulated guests
    nova_lite.conf                               for nova-lite-manage/-status
"""
import os

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_policy import opts as policy_opts
from oslo_service import service as oslo_service

from nova_lite.api import novncproxy
from nova_lite.compute.api import external_events
from nova_lite.compute.service import manager as compute_manager
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.local_services import api as local_services_db
from nova_lite.db.main import api as main_db
from nova_lite.db import migration
from nova_lite.image import api as image_api
from nova_lite.network import api as network_api
from nova_lite.network import nova_events
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import host_mapping
from nova_lite.placement import rpcapi as placement_rpcapi
from nova_lite import rpc
from nova_lite.scheduler import manager as scheduler_manager
from nova_lite import service
from nova_lite.wsgi import server as wsgi_server
from nova_lite.wsgi import service as wsgi_service

LOG = logging.getLogger(__name__)

API_TRANSPORT = 'inproc://'
# Databases the contexts of in-process cell conductors and computes refuse
# (db.database): the rules a deployment enforces with separate processes.
CELL_CONDUCTOR_REFUSES = frozenset(['api_database'])
COMPUTE_REFUSES = frozenset(['api_database', 'database'])
# The local-services database's file (computes may open it: it stands in
# for Glance and Neutron).
LOCAL_SERVICES = 'local_services'


def cell_names(cells):
    return ['cell%d' % i for i in range(1, cells + 1)]


def compute_hosts(cell_name, computes_per_cell):
    return ['%s-compute%d' % (cell_name, i)
            for i in range(1, computes_per_cell + 1)]


def sqlite_url(state_dir, name):
    return 'sqlite:///%s' % os.path.join(os.path.abspath(state_dir),
                                         '%s.sqlite' % name)


def write_config(state_dir, host, port):
    """The config nova-lite-manage/-status use against this plane."""
    path = os.path.join(state_dir, 'nova_lite.conf')
    with open(path, 'w') as f:
        f.write('[DEFAULT]\n'
                'transport_url = %s\n'
                'state_path = %s\n'
                '\n[api]\n'
                'auth_strategy = %s\n'
                'listen = %s\n'
                'port = %d\n'
                '\n[api_database]\n'
                'connection = %s\n'
                '\n[database]\n'
                'connection = %s\n'
                '\n[local_services]\n'
                'connection = %s\n'
                % (API_TRANSPORT, os.path.abspath(state_dir),
                   CONF.api.auth_strategy, host, port,
                   sqlite_url(state_dir, 'api'),
                   sqlite_url(state_dir, 'cell1'),
                   sqlite_url(state_dir, LOCAL_SERVICES)))
    return path


def _overrides(state_dir, host, port):
    return [('state_path', os.path.abspath(state_dir), None),
            ('transport_url', API_TRANSPORT, None),
            ('connection', sqlite_url(state_dir, 'api'), 'api_database'),
            ('connection', sqlite_url(state_dir, 'cell1'), 'database'),
            ('connection', sqlite_url(state_dir, LOCAL_SERVICES),
             'local_services'),
            ('listen', host, 'api'),
            ('port', port, 'api')]


# What the plane defaults to but a config file may change: noauth2,
# unless [api] auth_strategy = keystone (with [keystone_authtoken]) says
# tokens come from a real Keystone.
_DEFAULTS = [('auth_strategy', 'noauth2', 'api')]


def configure(state_dir, host='127.0.0.1', port=8774, service_host=None):
    """Point CONF at the state directory's databases and transports;
    service_host: [DEFAULT] host unless the configuration sets it (the
    host the API, super conductor and scheduler record as theirs, so
    the events and notifications they send name it too)."""
    os.makedirs(state_dir, exist_ok=True)
    for name, value, group in _overrides(state_dir, host, port):
        CONF.set_override(name, value, group=group)
    for name, value, group in _DEFAULTS:
        CONF.set_default(name, value, group=group)
    if service_host:
        CONF.set_default('host', service_host)
    api_db.reset()
    main_db.reset()
    local_services_db.reset()
    nova_context.clear_cell_cache()


# --allow-cross-cell-resize: who may move a server to another cell (the
# same persons who may resize it), and a weight that sends a move to
# another cell rather than keeping it in the server's own.
CROSS_CELL_POLICY_DIR = 'cross-cell-policy.d'
CROSS_CELL_RULE = ('"compute:servers:resize:cross_cell": '
                   '"rule:project_member_or_admin"\n')
PREFER_OTHER_CELLS = -1000000.0


def allow_cross_cell_resize(state_dir):
    """Open the cross-cell resize policy rule (a policy directory of the
    state directory, read after the operator's policy file and
    directories) and make the scheduler prefer hosts of other cells."""
    policy_dir = os.path.join(os.path.abspath(state_dir),
                              CROSS_CELL_POLICY_DIR)
    os.makedirs(policy_dir, exist_ok=True)
    with open(os.path.join(policy_dir, 'cross-cell-resize.yaml'), 'w') as f:
        f.write(CROSS_CELL_RULE)
    for group, opts in policy_opts.list_opts():
        CONF.register_opts(opts, group=group)
    CONF.set_override('policy_dirs',
                      list(CONF.oslo_policy.policy_dirs) + [policy_dir],
                      group='oslo_policy')
    CONF.set_override('cross_cell_move_weight_multiplier',
                      PREFER_OTHER_CELLS, group='filter_scheduler')


def unconfigure():
    """Undo configure() (tests run several planes in one process)."""
    for name, _value, group in _overrides('.', '', 0):
        CONF.clear_override(name, group=group)
    for name, _value, group in _DEFAULTS:
        CONF.clear_default(name, group=group)
    CONF.clear_default('host')
    api_db.reset()
    main_db.reset()
    local_services_db.reset()
    nova_context.clear_cell_cache()


def prepare_databases(state_dir, cells):
    """Create and sync databases, map cell0 + cells, and ship the default
    images and network (idempotent)."""
    migration.db_sync('api', sqlite_url(state_dir, 'api'))
    migration.db_sync('local_services', sqlite_url(state_dir, LOCAL_SERVICES))
    ctxt = nova_context.get_admin_context()
    create_local_defaults(ctxt)
    mapped = {c.name: c for c in objects.CellMappingList.get_all(ctxt)}
    for name in ['cell0'] + cell_names(cells):
        url = sqlite_url(state_dir, name)
        migration.db_sync('main', url)
        if name in mapped:
            _move_to_inproc(mapped[name])
            continue
        kwargs = {}
        if name == 'cell0':
            kwargs = {'uuid': objects.CellMapping.CELL0_UUID,
                      'transport_url': 'none:///'}
        else:
            kwargs = {'transport_url': 'inproc:///%s' % name}
        cell = objects.CellMapping(ctxt, name=name, database_connection=url,
                                   **kwargs)
        cell.create()
        mapped[name] = cell
    return mapped


# The flavors a devstack (and Nova's legacy defaults) start with:
# (flavorid, name, memory_mb, root_gb, vcpus).
DEFAULT_FLAVORS = [('1', 'm1.tiny', 512, 1, 1),
                   ('2', 'm1.small', 2048, 20, 1),
                   ('3', 'm1.medium', 4096, 40, 2),
                   ('4', 'm1.large', 8192, 80, 4),
                   ('5', 'm1.xlarge', 16384, 160, 8)]


def create_default_flavors(ctxt):
    """The public m1.* flavors (a fresh plane only: an operator who
    deleted one does not get it back at the next start)."""
    for flavorid, name, memory_mb, root_gb, vcpus in DEFAULT_FLAVORS:
        objects.Flavor(ctxt, flavorid=flavorid, name=name,
                       memory_mb=memory_mb, root_gb=root_gb, vcpus=vcpus,
                       ephemeral_gb=0, swap=0, is_public=True).create()


def _move_to_inproc(cell):
    """A cell of a state directory made before the in-process transport
    had its own scheme is on fake:// (then served by that transport,
    now by oslo.messaging's fake driver again): move it to inproc://."""
    url = cell.transport_url or ''
    if url.startswith('fake:'):
        cell.transport_url = 'inproc:' + url[len('fake:'):]
        cell.save()


def create_local_defaults(ctxt):
    """The images and the shared network every plane starts with."""
    image_api.API().ensure_default_images(ctxt)
    network_api.API().ensure_default_network(ctxt)


def discover_hosts(ctxt, cells):
    """Map every compute host found in the cells' databases
    (objects.host_mapping.discover_hosts); a conflict or an unreadable
    cell is logged. Returns the hosts mapped."""
    found = host_mapping.discover_hosts(ctxt, cells)
    for problem in found.problems():
        LOG.warning('%s', problem)
    return found.hosts()


def warm_up_engines(ctxt, cells):
    """Create every database engine this process will use (each cell's,
    the API's, the local services'), now: creating one tests a
    connection, which must not happen while requests and services
    write to the same SQLite files."""
    api_db.get_engines()
    main_db.get_engines()
    local_services_db.get_engines()
    for cell in cells:
        with nova_context.target_cell(ctxt, cell) as cctxt:
            main_db.get_engines(cctxt)


class _Discard(object):
    """A notification endpoint that drops what it is given."""

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        pass

    audit = critical = debug = error = sample = warn = info


def drain_notifications():
    """A started listener that consumes the default queue of the
    versioned notification topics on the inproc transports (None when no
    notifications are sent there). The in-process driver keeps every
    message until a listener without a pool takes it, so without this a
    long-running all-in-one would hold every notification it ever sent.
    Other listeners in the process use a pool of their own: each pool
    receives every notification."""
    url = rpc.notification_url()
    if not CONF.oslo_messaging_notifications.driver or \
            not url.startswith('inproc:'):
        return None
    listener = messaging.get_notification_listener(
        rpc.get_notification_transport(url),
        [messaging.Target(topic=topic) for topic in
         CONF.notifications.versioned_notifications_topics],
        [_Discard()], executor='threading')
    listener.start()
    return listener


class Plane(oslo_service.ServiceBase):
    """All services of one deployment, started in dependency order."""

    def __init__(self, state_dir, cells=2, computes_per_cell=2,
                 host='127.0.0.1', port=8774, service_host='aio',
                 with_api=True, service_versions=None,
                 default_flavors=False, with_novncproxy=False):
        self.state_dir = state_dir
        self.n_cells = cells
        self.computes_per_cell = computes_per_cell
        self.host = host
        self.port = port
        self.on_started = None   # called once every service runs
        self.service_host = service_host
        self.services = []
        self.with_api = with_api
        # {host: service version}: run some services as if older code
        # (upgrade tests).
        self.service_versions = service_versions or {}
        self.api = None
        # Create DEFAULT_FLAVORS when the state directory has no API
        # database yet (nova-lite-all-in-one; the tests start empty).
        self.default_flavors = default_flavors
        # The noVNC console proxy on a free port of host, the consoles'
        # URLs pointing at it (nova-lite-all-in-one).
        self.with_novncproxy = with_novncproxy
        self.novncproxy = None
        self.cells = {}
        self._drain = None

    # --- construction ---------------------------------------------------

    def _cell_services(self, cell):
        cell_ctxt = nova_context.get_admin_context()
        nova_context.set_target_cell(cell_ctxt, cell)
        transport = cell_ctxt.mq_connection

        # As in a deployment, the cell conductor and the computes reach
        # compute-node inventories (API DB) only through the scheduler's
        # placement topic on this cell's transport.
        placement = placement_rpcapi.PlacementAPI.for_transport(
            transport, compute_inventory.placement_auto_cap)
        cell_ctxt.placement_api = placement
        # As in a deployment, the cell conductor has no API DB and a
        # compute no database at all: their contexts refuse them.
        cell_ctxt.refused_databases = CELL_CONDUCTOR_REFUSES

        def target_this_cell(ctxt):
            nova_context.set_target_cell(ctxt, cell)
            ctxt.placement_api = placement
            ctxt.refused_databases = CELL_CONDUCTOR_REFUSES

        yield service.Service(
            '%s-conductor' % cell.name, constants.CONDUCTOR_BINARY,
            conductor_rpcapi.TOPIC,
            conductor_manager.endpoints(super_conductor=False),
            base_context=cell_ctxt, transport=transport,
            context_hook=target_this_cell)

        # Computes: no database, remotable calls through this cell's
        # conductor.
        indirection = conductor_rpcapi.ConductorAPI(transport=transport)

        def through_conductor(ctxt):
            ctxt.indirection_api = indirection
            ctxt.mq_connection = transport
            ctxt.placement_api = placement
            ctxt.refused_databases = COMPUTE_REFUSES

        for host in compute_hosts(cell.name, self.computes_per_cell):
            compute_ctxt = nova_context.get_admin_context()
            through_conductor(compute_ctxt)
            yield service.Service(
                host, constants.COMPUTE_BINARY, 'compute',
                [compute_manager.ComputeManager(host)],
                base_context=compute_ctxt, transport=transport,
                context_hook=through_conductor,
                version=self.service_versions.get(host))

    def build(self):
        fresh = not os.path.exists(os.path.join(self.state_dir,
                                                'api.sqlite'))
        configure(self.state_dir, self.host, self.port, self.service_host)
        self.cells = prepare_databases(self.state_dir, self.n_cells)
        if fresh and self.default_flavors:
            create_default_flavors(nova_context.get_admin_context())
        write_config(self.state_dir, self.host, self.port)
        self.services = [
            # The super conductor: the API DB, on the API transport.
            service.Service(self.service_host, constants.CONDUCTOR_BINARY,
                            conductor_rpcapi.TOPIC,
                            conductor_manager.endpoints(
                                super_conductor=True)),
            service.Service(self.service_host, constants.SCHEDULER_BINARY,
                            'scheduler',
                            [scheduler_manager.SchedulerManager()]),
        ]
        for name in cell_names(self.n_cells):
            self.services.extend(self._cell_services(self.cells[name]))
        if self.with_api:
            self.api = wsgi_service.WSGIService(host=self.host, port=self.port,
                                           workers=1,
                                           record_host=self.service_host)
            self.port = self.api.port
        if self.with_novncproxy:
            self.novncproxy = wsgi_server.Server(
                'nova-lite-novncproxy', novncproxy.app, self.host, 0)
            CONF.set_override('novncproxy_base_url', 'http://%s:%d/'
                              'vnc_auto.html' % (self.host,
                                                 self.novncproxy.port),
                              group='vnc')
        return self

    # --- ServiceBase ------------------------------------------------------

    def start(self):
        self._drain = drain_notifications()
        for svc in self.services:
            svc.start()
        ctxt = nova_context.get_admin_context()
        discover_hosts(ctxt, self.cells.values())
        warm_up_engines(ctxt, self.cells.values())
        if self.novncproxy is not None:
            self.novncproxy.start()
        if self.api is not None:
            self.api.start()
            # This process hosts the compute API: the network service's
            # network-vif-plugged events go to it.
            nova_events.register_sender(external_events.from_network_service)
        LOG.info('nova_lite all-in-one: API on http://%s:%d/v2.1',
                 self.host, self.port)
        if self.on_started is not None:
            self.on_started()

    def stop(self, graceful=True):
        if self.novncproxy is not None:
            self.novncproxy.stop()
        if self.api is not None:
            nova_events.register_sender(None)
            self.api.stop()
        for svc in reversed(self.services):
            try:
                svc.stop()
            except Exception:
                LOG.exception('Error stopping %s', svc)
        if self._drain is not None:
            self._drain.stop()
            self._drain.wait()
            self._drain = None

    def wait(self):
        if self.api is not None:
            self.api.wait()
        for svc in self.services:
            try:
                svc.wait()
            except Exception:
                pass

    def reset(self):
        for svc in self.services:
            svc.reset()

    @property
    def endpoint(self):
        return 'http://%s:%d' % (self.host, self.port)
