"""Cells seeded with service and compute-node rows (the `seeded` fixture;
not running services: those are the functional `plane`), and the API app
(through webtest, or served by nova_lite.wsgi over a real socket)."""
import atexit
import json
import os
import shutil
import sqlite3
import tempfile

from oslo_utils import timeutils
import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import policy
from nova_lite.wsgi import server as wsgi_server
from tests.conftest import set_override

ADMIN = {'X-Auth-Token': 'admin:admin'}
MEMBER = {'X-Auth-Token': 'bob:project-a'}
COMPUTE = 'nova-compute'


def version(v):
    return {'OpenStack-API-Version': 'compute %s' % v}


def headers(v=None, token=ADMIN):
    result = dict(token)
    if v:
        result.update(version(v))
    return result


class SeededCells(object):
    """cell1: conductor, scheduler, api, 3 computes; cell2: conductor and
    2 computes. Every compute has a host mapping and one node.

    seeded: the hypervisor, service and zone tests check fixed host
    names, capacities and usage, and records they disable, force down,
    delete or put in a cell that cannot be opened; a running plane's
    computes report what they measure and heartbeat. Tests of servers
    use the running plane (plane_fixtures.running) instead.
    """

    LAYOUT = {
        'cell1': [('nova-conductor', 'ctl1'),
                  ('nova-scheduler', 'ctl1'),
                  ('nova-osapi_compute', 'ctl1'),
                  (COMPUTE, 'c1-host1'), (COMPUTE, 'c1-host2'),
                  (COMPUTE, 'c1-host3')],
        'cell2': [('nova-conductor', 'ctl2'),
                  (COMPUTE, 'c2-host1'), (COMPUTE, 'c2-host2')],
    }

    def __init__(self, env):
        self.env = env
        self.services = {}   # host/binary -> Service
        self.nodes = {}      # host -> ComputeNode
        now = timeutils.utcnow()
        for cell_name, rows in self.LAYOUT.items():
            cell = env.cells[cell_name]
            with nova_context.target_cell(env.ctxt, cell) as cctxt:
                for binary, host in rows:
                    service = objects.Service(
                        cctxt, host=host, binary=binary,
                        topic=binary.rsplit('-', 1)[-1],
                        last_seen_up=now)
                    service.create()
                    self.services[(host, binary)] = service
                    if binary != COMPUTE:
                        continue
                    objects.HostMapping(env.ctxt, host=host,
                                        cell_mapping=cell).create()
                    node = objects.ComputeNode(
                        cctxt, host=host, service_id=service.id,
                        hypervisor_hostname=host + '.example.org',
                        hypervisor_type='fake', hypervisor_version=1000,
                        vcpus=8, memory_mb=16384, local_gb=100,
                        vcpus_used=1, memory_mb_used=512, local_gb_used=10,
                        free_ram_mb=15872, free_disk_gb=90,
                        current_workload=0, running_vms=0,
                        disk_available_least=90, host_ip='192.0.2.10',
                        cpu_info=json.dumps({'arch': 'x86_64'}),
                        cpu_allocation_ratio=16.0, ram_allocation_ratio=1.5,
                        disk_allocation_ratio=1.0, stats={})
                    node.create()
                    self.nodes[host] = node

    @classmethod
    def read(cls, env):
        """The SeededCells whose rows env's databases already hold."""
        self = cls.__new__(cls)
        self.env = env
        self.services = {}
        self.nodes = {}
        for cell_name, rows in cls.LAYOUT.items():
            with nova_context.target_cell(
                    env.ctxt, env.cells[cell_name]) as cctxt:
                for binary, host in rows:
                    self.services[(host, binary)] = (
                        objects.Service.get_by_host_and_binary(
                            cctxt, host, binary))
                    if binary == COMPUTE:
                        self.nodes[host] = (
                            objects.ComputeNode.get_by_host_and_nodename(
                                cctxt, host, host + '.example.org'))
        return self

    def compute(self, host):
        return self.services[(host, COMPUTE)]

    def break_cell(self, name):
        """Point a cell's mapping at a database that cannot be opened."""
        cell = objects.CellMapping.get_by_uuid(self.env.ctxt,
                                               self.env.cells[name].uuid)
        cell.database_connection = ('sqlite:////nonexistent/dir/%s.sqlite'
                                    % name)
        cell.save()
        nova_context._CELL_CACHE.clear()


@pytest.fixture
def api_env(cells_env):
    """cells_env configured for the API: noauth2, fresh policy."""
    # The conf fixture's CONF.reset() forgets the parsed (empty) command
    # line; the policy enforcer needs it to look for policy files.
    CONF([], project='nova_lite', default_config_files=[])
    set_override('auth_strategy', 'noauth2', group='api')
    set_override('cell_timeout', 5)
    # The seeded computes are records only: an RPC to one (the hypervisor
    # uptime in show from 2.88) waits this long for no answer.
    set_override('rpc_response_timeout', 1)
    policy.reset()
    yield cells_env
    policy.reset()


# The seeded databases, made once a process: a template directory and
# {cell name: its CellMapping's uuid}.
_SEEDED_TEMPLATE = []


def _sqlite_path(url):
    return url[len('sqlite:///'):]


def _databases(env):
    """{file name: database URL} of every database of env."""
    dbs = {'api.sqlite': env.api_url,
           'local_services.sqlite': env.local_services_url}
    dbs.update(('%s.sqlite' % name, url)
               for name, url in env.cell_urls.items())
    return dbs


def _seed(env):
    """SeededCells(env) for a cells_env as CellsEnv made it.

    The first of a process seeds its databases through the objects (as
    SeededCells does) and keeps a copy of them; later ones get a copy of
    those databases in a directory of their own (the env's URLs, the
    configuration and the cell mappings moved to it) and their records
    read back, with every service's heartbeat set to now: the same rows
    for a fraction of the writes' cost (placement inventory, providers).
    """
    if not _SEEDED_TEMPLATE:
        seeded = SeededCells(env)
        tdir = tempfile.mkdtemp(prefix='nova-lite-seeded-')
        atexit.register(shutil.rmtree, tdir, True)
        for fname, url in _databases(env).items():
            # The backup API copies what the open connections committed
            # (WAL included).
            src = sqlite3.connect(_sqlite_path(url))
            dst = sqlite3.connect(os.path.join(tdir, fname))
            with dst:
                src.backup(dst)
            dst.close()
            src.close()
        _SEEDED_TEMPLATE.append((tdir, {name: cell.uuid for name, cell
                                        in env.cells.items()}))
        return seeded
    tdir, _uuids = _SEEDED_TEMPLATE[0]
    # A directory of its own: the env's first databases may still have
    # connections open, so they are left as they are.
    new = os.path.join(env.path, 'seeded')
    os.mkdir(new)
    env.api_url = 'sqlite:///%s' % os.path.join(new, 'api.sqlite')
    env.local_services_url = 'sqlite:///%s' % os.path.join(
        new, 'local_services.sqlite')
    env.cell_urls = dict((name, 'sqlite:///%s' % os.path.join(
        new, '%s.sqlite' % name)) for name in env.cell_urls)
    for fname, url in _databases(env).items():
        shutil.copyfile(os.path.join(tdir, fname), _sqlite_path(url))
    now = timeutils.utcnow().strftime('%Y-%m-%d %H:%M:%S.%f')
    api = sqlite3.connect(_sqlite_path(env.api_url))
    with api:
        for name, url in env.cell_urls.items():
            api.execute('UPDATE cell_mappings SET database_connection = ? '
                        'WHERE name = ?', (url, name))
    api.close()
    for name, url in env.cell_urls.items():
        cell_db = sqlite3.connect(_sqlite_path(url))
        with cell_db:
            cell_db.execute('UPDATE services SET last_seen_up = ? '
                            'WHERE last_seen_up IS NOT NULL', (now,))
        cell_db.close()
    set_override('connection', env.api_url, group='api_database')
    set_override('connection', env.cell_urls['cell1'], group='database')
    set_override('connection', env.local_services_url,
                 group='local_services')
    env.cleanup()
    env.cells = dict((cell.name, cell) for cell in
                     objects.CellMappingList.get_all(env.ctxt))
    return SeededCells.read(env)


@pytest.fixture
def seeded(api_env):
    return _seed(api_env)


@pytest.fixture
def app(seeded):
    return webtest.TestApp(api_app.load_app())


@pytest.fixture
def served(seeded):
    """The API app under nova_lite.wsgi's eventlet server on a free port."""
    server = wsgi_server.Server('nova-lite-api', api_app.load_app(),
                                '127.0.0.1', 0)
    server.start()
    yield server
    server.stop()
    server.wait()
