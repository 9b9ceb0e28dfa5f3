#!/usr/bin/env python3
"""Scale: many cells of many compute nodes on MariaDB, rows written
directly, and what the control plane's hot reads cost there.

    python tools/bench/scale.py [--cells 10] [--nodes-per-cell 1000]
        [--servers-per-node 10] [--projects 10] [--measure-at 1,10]
        [--runs 20] [--sections sched,servers,hypervisors,conductor]
        [--keep] [--json FILE]

Build: one MariaDB database per cell (plus the API DB, cell0 and the
local services), schemas from the migrations, then per cell, with
multi-row INSERTs through the models' tables: compute services, compute
nodes, host mappings, one resource provider per node (VCPU, MEMORY_MB,
DISK_GB inventories), and per node --servers-per-node servers as the
boot path leaves an ACTIVE one (instance, instance_extra with its
embedded flavor, info cache, system metadata, the create action and
its compute event; in the API DB its instance mapping, request spec,
consumer and three allocations). Creation times interleave the cells
(the k-th server of each cell is created at about the same time), and
projects are spread over every cell.

Cells are built one after another; when the number built reaches a
value of --measure-at, every section is measured with the cells built
so far mapped (the others do not exist yet):

- sched: the scheduler's select_destinations in this process (its
  real code: candidates query on the API DB, host states from the
  cells, filters, weighers, claim), the claim removed after each call.
- servers: GET /servers/detail?limit=1000 at 2.47 through the real
  WSGI app (noauth2) in this process, with a marker in the middle of
  the list: an administrator's all_tenants listing and one project's.
- hypervisors: GET /os-hypervisors/detail at 2.53, without and with
  ?limit=100.
- conductor: Instance.get_by_uuid by object indirection over RabbitMQ,
  answered by a real nova-lite-conductor process for cell 1 (its own
  vhost, its cell database only), idle and (with other cells built)
  while a second process runs concurrent listing queries (the per-cell
  page and related rows of GET /servers/detail) against the other
  cells.

Each figure: p50/p95 over --runs, SQL statements of one call (counted
with SQLAlchemy's before_cursor_execute in this process), rows or
bytes, and the load average when it was taken. Databases and the vhost
are dropped at the end unless --keep.
"""
import argparse
import datetime
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid as uuid_lib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, HERE)

import eventlet  # noqa: E402

eventlet.monkey_patch()

import sqlalchemy as sa  # noqa: E402
import webob  # noqa: E402

import benchlib  # noqa: E402
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import config  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.api import api as api_db  # noqa: E402
from nova_lite.db.api import models as api_models  # noqa: E402
from nova_lite.db.local_services import api as local_services_db  # noqa
from nova_lite.db.main import api as main_db  # noqa: E402
from nova_lite.db.main import models  # noqa: E402
from nova_lite.db import migration  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import service_version  # noqa: E402

RABBIT = os.environ.get('NOVA_LITE_RABBIT',
                        'rabbit://guest:guest@127.0.0.1:5672')
IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
FLAVOR = {'id': 1, 'flavorid': 'scale.small', 'name': 'scale.small',
          'memory_mb': 512, 'vcpus': 1, 'root_gb': 1, 'ephemeral_gb': 0,
          'swap': 0}
# A node: 64 vCPUs (x4), 256 GiB, 4 TiB; ten 1-vCPU servers use little.
INVENTORY = {
    'VCPU': dict(total=64, reserved=0, min_unit=1, max_unit=64,
                 step_size=1, allocation_ratio=4.0),
    'MEMORY_MB': dict(total=262144, reserved=512, min_unit=1,
                      max_unit=262144, step_size=1, allocation_ratio=1.0),
    'DISK_GB': dict(total=4096, reserved=0, min_unit=1, max_unit=4096,
                    step_size=1, allocation_ratio=1.0),
}
BATCH = 5000            # rows per executemany
PLACEHOLDER = '00000000-0000-4000-8000-0000000abcde'
VERSION = '2.47'
HYPERVISOR_VERSION = '2.53'
CONCURRENCY = 16        # concurrent object calls to the conductor


def load():
    return '%.2f' % os.getloadavg()[0]


def pct(times):
    times = sorted(times)
    return (1000 * statistics.median(times),
            1000 * times[min(len(times) - 1, int(0.95 * len(times)))])


class Counter(object):
    """SQL statements run in this process while counting."""

    def __init__(self):
        self.statements = []
        self.on = False
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)

    def _seen(self, conn, cursor, statement, *args):
        if self.on:
            self.statements.append(statement)

    def count(self, fn):
        self.statements = []
        self.on = True
        try:
            result = fn()
        finally:
            self.on = False
        return len(self.statements), result


# --- building ---------------------------------------------------------------

def _insert(conn, table, rows):
    for start in range(0, len(rows), BATCH):
        conn.execute(table.insert(), rows[start:start + BATCH])


class Cloud(object):
    """The databases and the rows; cells are built one at a time."""

    def __init__(self, args):
        self.args = args
        self.backend = benchlib.Backend('mysql')
        self.api_url = self.backend.new_db('api') + '?charset=utf8mb4'
        self.cell0_url = self.backend.new_db('cell0') + '?charset=utf8mb4'
        self.ls_url = self.backend.new_db('ls') + '?charset=utf8mb4'
        self.cell_urls = [self.backend.new_db('cell%d' % (c + 1))
                          + '?charset=utf8mb4' for c in range(args.cells)]
        self.vhost = 'nl_bench_scale_%s' % uuid_lib.uuid4().hex[:8]
        self.cells_built = 0
        self.provider_id = 0
        self.engines = {}
        self.now = datetime.datetime.utcnow().replace(microsecond=0)
        per_cell = args.nodes_per_cell * args.servers_per_node
        self.base = self.now - datetime.timedelta(
            seconds=per_cell * args.cells + 3600)
        self.cell_uuids = [str(uuid_lib.uuid4()) for _ in range(args.cells)]
        self.markers = {}

    def engine(self, url):
        if url not in self.engines:
            self.engines[url] = sa.create_engine(url)
        return self.engines[url]

    def mq_url(self):
        return '%s/%s' % (RABBIT, self.vhost)

    def sync(self):
        t0 = time.perf_counter()
        migration.db_sync('api', self.api_url)
        migration.db_sync('local_services', self.ls_url)
        for url in [self.cell0_url] + self.cell_urls:
            migration.db_sync('main', url)
        subprocess.run(['rabbitmqctl', '-q', 'add_vhost', self.vhost],
                       check=True, capture_output=True)
        subprocess.run(['rabbitmqctl', '-q', 'set_permissions', '-p',
                        self.vhost, 'guest', '.*', '.*', '.*'], check=True,
                       capture_output=True)
        return time.perf_counter() - t0

    def configure(self, workdir):
        config.parse_args(['scale'], default_config_files=[],
                          configure_logging=False)
        for name, value, group in [
                ('connection', self.api_url, 'api_database'),
                ('connection', self.cell_urls[0], 'database'),
                ('connection', self.ls_url, 'local_services'),
                ('transport_url', 'inproc:///scale', None),
                ('state_path', workdir, None),
                # Rows written once, measured for minutes: up for a week.
                ('service_down_time', 7 * 86400, None),
                ('auth_strategy', 'noauth2', 'api'),
                ('driver', 'noop', 'oslo_messaging_notifications'),
                ('conductor', '1.1', 'upgrade_levels')]:
            CONF.set_override(name, value, group=group)
        api_db.reset()
        main_db.reset()
        local_services_db.reset()
        nova_context._CELL_CACHE.clear()
        ctxt = nova_context.get_admin_context()
        from nova_lite import allinone
        allinone.create_local_defaults(ctxt)
        from nova_lite.placement import resource_class
        self.class_ids = resource_class.resource_class_ids(
            ctxt, sorted(INVENTORY))
        api = self.engine(self.api_url)
        with api.begin() as conn:
            conn.execute(api_models.Flavors.__table__.insert(), [dict(
                FLAVOR, vcpu_weight=None, rxtx_factor=1.0, disabled=False,
                is_public=True, description=None, deleted=0,
                created_at=self.now)])
            conn.execute(api_models.CellMapping.__table__.insert(), [dict(
                uuid=objects.CellMapping.CELL0_UUID, name='cell0',
                transport_url='none:///', database_connection=self.cell0_url,
                disabled=False, created_at=self.now)])
        flavor = objects.EmbeddedFlavor(extra_specs={}, **FLAVOR)
        from nova_lite.objects import embedded_flavor
        self.flavor_json = embedded_flavor.to_json(flavor)
        self.spec_template = objects.RequestSpec(
            instance_uuid=PLACEHOLDER, project_id='PROJECT',
            user_id='USER', flavor=flavor,
            image={'id': IMAGE, 'min_disk': 0, 'min_ram': 0,
                   'name': 'cirros'}, num_instances=1,
            availability_zone=None, ignore_hosts=[],
            requested_destination=None, scheduler_hints=None).to_json()

    def project(self, i):
        return 'project-%03d' % (i % self.args.projects)

    def build_cell(self, c):
        """Every row of cell c (0-based) and its API DB rows."""
        args = self.args
        t0 = time.perf_counter()
        now = self.now
        cell_uuid = self.cell_uuids[c]
        url = self.cell_urls[c]
        version = service_version.SERVICE_VERSION
        services, nodes, hosts = [], [], []
        providers, inventories = [], []
        node_uuids = []
        for n in range(args.nodes_per_cell):
            host = 'c%03d-n%05d' % (c + 1, n)
            node_uuid = str(uuid_lib.uuid4())
            node_uuids.append((host, node_uuid))
            hosts.append(host)
            services.append(dict(
                id=n + 1, uuid=str(uuid_lib.uuid4()), host=host,
                binary='nova-compute', topic='compute', report_count=1,
                disabled=False, forced_down=False, last_seen_up=now,
                created_at=now, updated_at=now, deleted=0, version=version))
            nodes.append(dict(
                id=n + 1, uuid=node_uuid, service_id=n + 1, host=host,
                hypervisor_hostname=host, vcpus=64, memory_mb=262144,
                local_gb=4096, vcpus_used=args.servers_per_node,
                memory_mb_used=512 + 512 * args.servers_per_node,
                local_gb_used=args.servers_per_node,
                free_ram_mb=262144 - 512 - 512 * args.servers_per_node,
                free_disk_gb=4096 - args.servers_per_node,
                current_workload=0, running_vms=args.servers_per_node,
                hypervisor_type='fake', hypervisor_version=1000,
                cpu_info='{}', disk_available_least=4096 -
                args.servers_per_node, host_ip='127.0.0.1', stats='{}',
                cpu_allocation_ratio=4.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0, created_at=now, updated_at=now,
                deleted=0, inventory_migrated=True))
            self.provider_id += 1
            providers.append(dict(id=self.provider_id, uuid=node_uuid,
                                  name=host, generation=1 +
                                  args.servers_per_node, created_at=now))
            for rc, inv in INVENTORY.items():
                inventories.append(dict(resource_provider_id=self.provider_id,
                                        resource_class_id=self.class_ids[rc],
                                        **inv))
        api = self.engine(self.api_url)
        with api.begin() as conn:
            conn.execute(api_models.CellMapping.__table__.insert(), [dict(
                uuid=cell_uuid, name='cell%d' % (c + 1),
                transport_url=(self.mq_url() if c == 0 else 'none:///'),
                database_connection=url, disabled=False, created_at=now)])
            cell_id = conn.execute(sa.select(
                api_models.CellMapping.id).where(
                    api_models.CellMapping.uuid == cell_uuid)).scalar()
            _insert(conn, api_models.HostMapping.__table__, [
                dict(cell_id=cell_id, host=h, created_at=now)
                for h in hosts])
            _insert(conn, api_models.ResourceProvider.__table__, providers)
            _insert(conn, api_models.Inventory.__table__, inventories)
        cell = self.engine(url)
        with cell.begin() as conn:
            _insert(conn, models.Service.__table__, services)
            _insert(conn, models.ComputeNode.__table__, nodes)
        first_provider = self.provider_id - args.nodes_per_cell + 1
        # Servers, a node at a time; k-th server of every cell created
        # at about the same second (cells interleave in time).
        per_node = args.servers_per_node
        ncells = args.cells
        rows = {k: [] for k in ('inst', 'extra', 'cache', 'sysmeta',
                                'action', 'event', 'im', 'rs', 'alloc',
                                'consumer')}
        action_id = 0
        mid = (args.nodes_per_cell * per_node) // 2
        for n, (host, node_uuid) in enumerate(node_uuids):
            provider = first_provider + n
            for s in range(per_node):
                i = n * per_node + s
                # Servers of a node are spread over the cell's life.
                k = s * args.nodes_per_cell + n
                created = self.base + datetime.timedelta(
                    seconds=k * ncells + c)
                u = str(uuid_lib.uuid4())
                project = self.project(k)
                user = 'user-%s' % project[-3:]
                if c == 0 and k == mid:
                    self.markers['all'] = u
                if c == 0 and k == mid - (mid % args.projects):
                    self.markers['project'] = (u, project)
                name = 'srv-%d-%d' % (c + 1, k)
                rows['inst'].append(dict(
                    uuid=u, user_id=user, project_id=project,
                    image_ref=IMAGE, hostname=name, host=host, node=host,
                    launched_on=host, instance_type_id=FLAVOR['id'],
                    vm_state='active', task_state=None, power_state=1,
                    memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0,
                    display_name=name, display_description=None,
                    key_name=None, key_data=None, user_data=None,
                    reservation_id='r-%08x' % (i + c * 10 ** 7),
                    launch_index=0, availability_zone='nova',
                    locked=False, locked_by=None,
                    launched_at=created + datetime.timedelta(seconds=2),
                    terminated_at=None, access_ip_v4=None,
                    access_ip_v6=None, config_drive='', progress=0,
                    root_device_name=None, hidden=False,
                    created_at=created, updated_at=created +
                    datetime.timedelta(seconds=2), deleted=0))
                rows['extra'].append(dict(
                    instance_uuid=u, flavor=self.flavor_json,
                    keypairs='[]', created_at=created, deleted=0))
                rows['cache'].append(dict(
                    instance_uuid=u, network_info='[]', created_at=created,
                    deleted=0))
                rows['sysmeta'].append(dict(
                    instance_uuid=u, key='image_base_image_ref',
                    value=IMAGE, created_at=created, deleted=0))
                action_id += 1
                request_id = 'req-%s' % u
                rows['action'].append(dict(
                    id=action_id, action='create', instance_uuid=u,
                    request_id=request_id, user_id=user, project_id=project,
                    start_time=created, finish_time=None, created_at=created,
                    deleted=0))
                rows['event'].append(dict(
                    event='compute__do_build_and_run_instance',
                    action_id=action_id, start_time=created,
                    finish_time=created + datetime.timedelta(seconds=2),
                    result='Success', host=host, created_at=created,
                    deleted=0))
                rows['im'].append(dict(
                    instance_uuid=u, cell_id=cell_id, project_id=project,
                    user_id=user, queued_for_delete=False,
                    created_at=created))
                rows['rs'].append(dict(
                    instance_uuid=u, created_at=created,
                    spec=self.spec_template.replace(
                        PLACEHOLDER, u).replace(
                            '"PROJECT"', '"%s"' % project).replace(
                                '"USER"', '"%s"' % user)))
                rows['consumer'].append(dict(
                    uuid=u, project_id=project, user_id=user, generation=1,
                    created_at=created))
                for rc, amount in (('VCPU', 1), ('MEMORY_MB', 512),
                                   ('DISK_GB', 1)):
                    rows['alloc'].append(dict(
                        resource_provider_id=provider, consumer_id=u,
                        resource_class_id=self.class_ids[rc], used=amount))
            if len(rows['inst']) >= BATCH or n == len(node_uuids) - 1:
                self._flush(cell, api, rows)
        self.cells_built = c + 1
        return time.perf_counter() - t0

    def _flush(self, cell, api, rows):
        with cell.begin() as conn:
            for key, model in (('inst', models.Instance),
                               ('extra', models.InstanceExtra),
                               ('cache', models.InstanceInfoCache),
                               ('sysmeta', models.InstanceSystemMetadata),
                               ('action', models.InstanceAction),
                               ('event', models.InstanceActionEvent)):
                _insert(conn, model.__table__, rows[key])
        with api.begin() as conn:
            for key, model in (('im', api_models.InstanceMapping),
                               ('rs', api_models.RequestSpec),
                               ('consumer', api_models.Consumer),
                               ('alloc', api_models.Allocation)):
                _insert(conn, model.__table__, rows[key])
        for value in rows.values():
            value.clear()

    def sizes(self):
        """{database: {table: rows}} of the API DB and cell 1, and the
        bytes of every database (data + index, InnoDB's estimate)."""
        out = {}
        with self.engine(self.api_url).connect() as conn:
            out['api'] = {t: conn.execute(sa.text(
                'SELECT COUNT(*) FROM %s' % t)).scalar() for t in (
                'instance_mappings', 'request_specs', 'allocations',
                'consumers', 'resource_providers', 'inventories',
                'host_mappings')}
        with self.engine(self.cell_urls[0]).connect() as conn:
            out['cell1'] = {t: conn.execute(sa.text(
                'SELECT COUNT(*) FROM %s' % t)).scalar() for t in (
                'instances', 'instance_extra', 'instance_info_caches',
                'instance_system_metadata', 'instance_actions',
                'instance_actions_events', 'compute_nodes', 'services')}
            names = [u.split('/')[-1].split('?')[0] for u in
                     [self.api_url] + self.cell_urls[:self.cells_built]]
            # Fresh InnoDB statistics for the sizes below.
            for name in names:
                tables = [r[0] for r in conn.execute(sa.text(
                    'SHOW TABLES FROM `%s`' % name))]
                conn.execute(sa.text('ANALYZE TABLE %s' % ', '.join(
                    '`%s`.`%s`' % (name, t) for t in tables)))
            mb = dict(conn.execute(sa.text(
                'SELECT table_schema, SUM(data_length + index_length) '
                '/ 1048576 FROM information_schema.tables WHERE '
                'table_schema IN (%s) GROUP BY table_schema' % ', '.join(
                    "'%s'" % n for n in names))).all())
        out['mb'] = {'api': round(float(mb.get(names[0], 0)), 1),
                     'cell1': round(float(mb.get(names[1], 0)), 1),
                     'cells_total': round(sum(float(mb.get(n, 0))
                                              for n in names[1:]), 1)}
        return out

    def cleanup(self):
        for engine in self.engines.values():
            engine.dispose()
        self.backend.cleanup()
        subprocess.run(['rabbitmqctl', '-q', 'delete_vhost', self.vhost],
                       capture_output=True)


# --- measuring --------------------------------------------------------------

def measure_sched(counter, runs):
    from nova_lite.placement import allocations
    from nova_lite.scheduler import manager
    ctxt = nova_context.get_admin_context()
    sched = manager.SchedulerManager()
    flavor = objects.EmbeddedFlavor(extra_specs={}, **FLAVOR)
    spec = objects.RequestSpec(
        instance_uuid=str(uuid_lib.uuid4()), project_id='p', user_id='u',
        flavor=flavor, image=None, num_instances=1, availability_zone=None,
        ignore_hosts=[], requested_destination=None, scheduler_hints=None)

    def once():
        consumer = str(uuid_lib.uuid4())
        start, cpu0 = time.perf_counter(), time.process_time()
        answer = sched.select_destinations(ctxt, spec_obj=spec,
                                           instance_uuids=[consumer],
                                           return_alternates=True)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu0
        assert answer and answer[0], 'no host selected'
        allocations.remove_allocations(ctxt, consumer)
        return elapsed, cpu, answer
    for _ in range(3):
        once()
    statements, (_, _, answer) = counter.count(once)
    runs = [once() for _ in range(runs)]
    p50, p95 = pct([r[0] for r in runs])
    return {'p50_ms': p50, 'p95_ms': p95, 'statements': statements,
            'alternates': len(answer[0]) - 1, 'load': load(),
            'cpu_ms': pct([r[1] for r in runs])[0]}


def _get(app, path, token='admin:admin', version=VERSION):
    req = webob.Request.blank(path, headers={
        'X-Auth-Token': token, 'OpenStack-API-Version': 'compute %s'
        % version})
    resp = req.get_response(app)
    assert resp.status_int == 200, (path, resp.status, resp.body[:300])
    return resp.body


def measure_get(counter, app, path, runs, token='admin:admin',
                version=VERSION, key=None):
    body = _get(app, path, token, version)      # warm
    statements, body = counter.count(lambda: _get(app, path, token, version))
    times, cpu = [], []
    for _ in range(runs):
        start, cpu0 = time.perf_counter(), time.process_time()
        _get(app, path, token, version)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu0)
    p50, p95 = pct(times)
    items = len(json.loads(body)[key]) if key else None
    return {'p50_ms': p50, 'p95_ms': p95, 'statements': statements,
            'items': items, 'bytes': len(body), 'load': load(),
            'cpu_ms': pct(cpu)[0]}


def measure_servers(counter, app, cloud, runs):
    out = {}
    marker = cloud.markers['all']
    out['all_tenants'] = measure_get(
        counter, app, '/v2.1/servers/detail?all_tenants=1&limit=1000&'
        'marker=%s' % marker, runs, key='servers')
    uuid, project = cloud.markers['project']
    out['project'] = measure_get(
        counter, app, '/v2.1/servers/detail?limit=1000&marker=%s' % uuid,
        runs, token='user-%s:%s' % (project[-3:], project), key='servers')
    return out


def measure_hypervisors(counter, app, runs):
    return {
        'detail': measure_get(counter, app, '/v2.1/os-hypervisors/detail',
                              max(3, runs // 4),
                              version=HYPERVISOR_VERSION, key='hypervisors'),
        'detail_limit100': measure_get(
            counter, app, '/v2.1/os-hypervisors/detail?limit=100',
            max(3, runs // 4), version=HYPERVISOR_VERSION,
            key='hypervisors')}


class Conductor(object):
    """A real nova-lite-conductor for cell 1: its own vhost, its cell
    database, no API database."""

    def __init__(self, cloud, workdir):
        self.conf = os.path.join(workdir, 'cell1-conductor.conf')
        self.log = os.path.join(workdir, 'cell1-conductor.log')
        with open(self.conf, 'w') as f:
            f.write('[DEFAULT]\nhost = scale-cell1-conductor\n'
                    'transport_url = %s\nstate_path = %s\n'
                    '[database]\nconnection = %s\n'
                    '[oslo_messaging_notifications]\ndriver = noop\n'
                    % (cloud.mq_url(), workdir, cloud.cell_urls[0]))
        binary = os.path.join(os.path.dirname(sys.executable),
                              'nova-lite-conductor')
        self.proc = subprocess.Popen(
            [binary, '--config-file', self.conf, '--log-file', self.log],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        from nova_lite.conductor import rpcapi as conductor_rpcapi
        from nova_lite import rpc
        self.transport = rpc.get_cell_transport(cloud.mq_url())
        self.api = conductor_rpcapi.ConductorAPI(transport=self.transport)
        self.waited = False

    def context(self):
        if not self.waited:
            from nova_lite import baserpc
            from nova_lite.conductor import rpcapi as conductor_rpcapi
            baserpc.BaseAPI(conductor_rpcapi.TOPIC,
                            transport=self.transport).wait_until_ready(
                nova_context.get_admin_context(), timeout=120,
                early_timeout=1)
            self.waited = True
        ctxt = nova_context.get_admin_context()
        ctxt.indirection_api = self.api
        return ctxt

    def stop(self):
        self.transport.cleanup()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _cell1_uuids(cloud, count):
    with cloud.engine(cloud.cell_urls[0]).connect() as conn:
        uuids = [r[0] for r in conn.execute(sa.text(
            'SELECT uuid FROM instances'))]
    return random.Random(1).sample(uuids, min(count, len(uuids)))


def measure_conductor(counter, conductor, cloud, runs, loaded):
    """Instance.get_by_uuid through the conductor; loaded: with the
    loader process running against the other cells."""
    uuids = _cell1_uuids(cloud, runs + 5)
    ctxt = conductor.context()
    for u in uuids[:5]:
        objects.Instance.get_by_uuid(ctxt, u)
    # What the conductor runs for one call, counted here (same code,
    # this process, no indirection).
    cells = objects.CellMappingList.get_all(nova_context.get_admin_context())
    cell1 = next(c for c in cells if c.uuid == cloud.cell_uuids[0])
    with nova_context.target_cell(nova_context.get_admin_context(),
                                  cell1) as cctxt:
        statements, _ = counter.count(
            lambda: objects.Instance.get_by_uuid(cctxt, uuids[0]))
    loader = None
    if loaded:
        loader = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), '--loader',
             '--loader-api', cloud.api_url, '--loader-skip',
             cloud.cell_uuids[0], '--loader-threads', '8'],
            stdout=subprocess.PIPE, text=True)
        # Its workers run from this line on.
        assert loader.stdout.readline().strip() == 'ready'
        time.sleep(1)
    times = []
    t0 = time.perf_counter()
    for u in uuids[5:]:
        start = time.perf_counter()
        inst = objects.Instance.get_by_uuid(ctxt, u)
        times.append(time.perf_counter() - start)
        assert inst.uuid == u
    wall = time.perf_counter() - t0
    # Capacity: CONCURRENCY callers at once (computes call concurrently).
    pool = eventlet.GreenPool(CONCURRENCY)
    t1 = time.perf_counter()
    for inst in pool.imap(lambda u: objects.Instance.get_by_uuid(ctxt, u),
                          uuids[5:] * 2):
        assert inst.uuid
    concurrent = 2 * len(uuids[5:]) / (time.perf_counter() - t1)
    result = {'load': load(), 'concurrent_calls_per_s': concurrent}
    if loader is not None:
        loader.send_signal(signal.SIGTERM)
        out, _ = loader.communicate(timeout=60)
        done = json.loads(out.strip().splitlines()[-1])
        result['loader_lists_per_s'] = done['lists'] / done['seconds']
        result['loader_p50_ms'] = done['p50_ms']
    p50, p95 = pct(times)
    result.update({'p50_ms': p50, 'p95_ms': p95, 'statements': statements,
                   'calls_per_s': len(times) / wall})
    return result


def loader_main(args):
    """Concurrent per-cell listing reads (what GET /servers/detail
    ?limit=1000 asks of each cell, marker in the middle) against every
    cell but --loader-skip, until SIGTERM; prints one JSON line."""
    config.parse_args(['scale-loader'], default_config_files=[],
                      configure_logging=False)
    CONF.set_override('connection', args.loader_api, 'api_database')
    from nova_lite.db.main import instance_pages as cell_pages
    from nova_lite.db.main import instances as cell_rows
    ctxt = nova_context.get_admin_context()
    cells = [c for c in objects.CellMappingList.get_all(ctxt)
             if c.uuid != args.loader_skip and not c.is_cell0()]
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    times = []
    keys, dirs = ['created_at', 'uuid'], ['desc', 'desc']

    def worker(index):
        rnd = random.Random(index)
        while not stop:
            cell = rnd.choice(cells)
            start = time.perf_counter()
            with nova_context.target_cell(ctxt, cell) as cctxt:
                middle = cell_pages.list_records(
                    cctxt, {'hidden': False}, keys, dirs, 1, None,
                    raw=True)
                marker = {'created_at': middle[0]['created_at']
                          - datetime.timedelta(seconds=rnd.randint(
                              1000, 50000)), 'uuid': 'f' * 36}
                recs = cell_pages.list_records(
                    cctxt, {'hidden': False}, keys, dirs, 1000, marker,
                    raw=True)
                cell_rows.fill_related(cctxt, [cell_rows.decode(r)
                                               for r in recs])
            times.append(time.perf_counter() - start)
    t0 = time.perf_counter()
    pool = [eventlet.spawn(worker, i) for i in range(args.loader_threads)]
    print('ready', flush=True)
    while not stop:
        eventlet.sleep(0.1)
    for thread in pool:
        thread.wait()
    seconds = time.perf_counter() - t0
    print(json.dumps({'lists': len(times), 'seconds': seconds,
                      'p50_ms': 1000 * statistics.median(times)
                      if times else None}))


# --- report -----------------------------------------------------------------

def report(label, figure):
    parts = ['p50 %7.1f ms' % figure['p50_ms'],
             'p95 %7.1f ms' % figure['p95_ms']]
    if figure.get('cpu_ms') is not None:
        parts.append('cpu %6.1f ms' % figure['cpu_ms'])
    if figure.get('statements') is not None:
        parts.append('%3d statements' % figure['statements'])
    if figure.get('items') is not None:
        parts.append('%5d items' % figure['items'])
    if figure.get('bytes') is not None:
        parts.append('%8d bytes' % figure['bytes'])
    for key in ('alternates', 'calls_per_s', 'concurrent_calls_per_s',
                'loader_lists_per_s',
                'loader_p50_ms'):
        if figure.get(key) is not None:
            parts.append('%s %.1f' % (key, figure[key]))
    parts.append('load %s' % figure['load'])
    print('    %-34s %s' % (label, '  '.join(parts)), flush=True)


def measure_all(cloud, counter, conductor, args):
    from nova_lite.api import app as api_app
    nova_context._CELL_CACHE.clear()
    app = api_app.load_app()
    ncells = cloud.cells_built
    size = {'cells': ncells, 'nodes': ncells * args.nodes_per_cell,
            'servers': ncells * args.nodes_per_cell * args.servers_per_node,
            'nodes_per_cell': args.nodes_per_cell}
    print('  measured with %(cells)d cells, %(nodes)d nodes, %(servers)d '
          'servers (%(nodes_per_cell)d nodes per cell):' % size, flush=True)
    figures = {'size': size}
    sections = args.sections.split(',')
    if 'sched' in sections:
        figures['select_destinations'] = measure_sched(counter, args.runs)
        report('select_destinations', figures['select_destinations'])
    if 'servers' in sections:
        for key, fig in measure_servers(counter, app, cloud,
                                        args.runs).items():
            figures['servers_%s' % key] = fig
            report('servers/detail %s' % key, fig)
    if 'hypervisors' in sections:
        for key, fig in measure_hypervisors(counter, app, args.runs).items():
            figures['hypervisors_%s' % key] = fig
            report('os-hypervisors/%s' % key, fig)
    if 'conductor' in sections and conductor is not None:
        figures['conductor_idle'] = measure_conductor(
            counter, conductor, cloud, args.runs * 5, loaded=False)
        report('conductor get_by_uuid idle', figures['conductor_idle'])
        if ncells > 1:
            figures['conductor_loaded'] = measure_conductor(
                counter, conductor, cloud, args.runs * 5, loaded=True)
            report('conductor get_by_uuid, others busy',
                   figures['conductor_loaded'])
    figures['rows'] = cloud.sizes()
    print('    rows: %s' % json.dumps(figures['rows']), flush=True)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cells', type=int, default=10)
    parser.add_argument('--nodes-per-cell', type=int, default=1000)
    parser.add_argument('--servers-per-node', type=int, default=10)
    parser.add_argument('--projects', type=int, default=5)
    parser.add_argument('--measure-at', default='1,10',
                        help='cell counts at which to measure (the last '
                             'is always measured)')
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--sections',
                        default='sched,servers,hypervisors,conductor')
    parser.add_argument('--keep', action='store_true',
                        help='leave the databases and the vhost')
    parser.add_argument('--json', help='write every figure to this file')
    parser.add_argument('--loader', action='store_true',
                        help=argparse.SUPPRESS)
    parser.add_argument('--loader-api', help=argparse.SUPPRESS)
    parser.add_argument('--loader-skip', help=argparse.SUPPRESS)
    parser.add_argument('--loader-threads', type=int, default=8,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loader:
        return loader_main(args)
    measure_at = sorted({int(x) for x in args.measure_at.split(',')
                         if 0 < int(x) <= args.cells} | {args.cells})
    print('scale: %d cells x %d nodes x %d servers per node on MariaDB '
          '(%s), %d projects, %d runs; load %s; %s' % (
              args.cells, args.nodes_per_cell, args.servers_per_node,
              benchlib.MYSQL, args.projects, args.runs, load(),
              datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')),
          flush=True)
    workdir = tempfile.mkdtemp(prefix='nl-bench-scale-')
    cloud = Cloud(args)
    conductor = None
    results = {'args': vars(args), 'stages': []}
    t_all = time.perf_counter()
    try:
        print('  schemas synced in %.1f s' % cloud.sync(), flush=True)
        cloud.configure(workdir)
        counter = Counter()
        if 'conductor' in args.sections:
            # Starts while the cells are written; waited for when used.
            conductor = Conductor(cloud, workdir)
        build_s = 0.0
        for c in range(args.cells):
            took = cloud.build_cell(c)
            build_s += took
            print('  cell %d built in %.1f s (load %s)' % (c + 1, took,
                                                          load()),
                  flush=True)
            if c + 1 in measure_at:
                figures = measure_all(cloud, counter, conductor, args)
                figures['build_s'] = build_s
                results['stages'].append(figures)
        results['total_s'] = time.perf_counter() - t_all
        print('  built %d servers in %.1f s; everything took %.1f s'
              % (args.cells * args.nodes_per_cell * args.servers_per_node,
                 build_s, results['total_s']), flush=True)
    finally:
        if conductor is not None:
            conductor.stop()
        if args.keep:
            print('  kept: API DB %s, cells %s, vhost %s' % (
                cloud.api_url, ' '.join(cloud.cell_urls), cloud.vhost))
        else:
            cloud.cleanup()
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1, default=str)
    return results


if __name__ == '__main__':
    main()
