#!/usr/bin/env python3
"""Compute-node inventory migration and load benchmarks (issue 6, item 7).

    python tools/bench/inventory_migration.py [--nodes 5000] [--cells 2]
        [--backends sqlite,mysql] [--batches 50,1000] [--repeat 5] [--json]

Deployment: an API database and --cells cell databases (SQLite files, or
databases on one MariaDB server), mapped as cells, holding --nodes legacy
compute nodes spread evenly over the cells, as version-1 code wrote them
(capacity and usage in the compute_nodes columns, no uuid, no provider;
updated_at set, as every running compute's resource tracker keeps it).

Migration: wall time of the online migration
(run_migrations(names=['migrate_compute_node_inventories']), per batch
size) until every node has its uuid, its provider with VCPU, MEMORY_MB and
DISK_GB inventories and its host usage allocation, and its flag.
Floor: a raw SQL copy of the same data with no object layer: per cell one
SELECT of the rows, then in the API DB executemany INSERTs of providers,
inventories and allocations (one transaction), then one executemany
UPDATE of uuid and flag in the cell. Target: migration <= 3x the floor.

Load: ComputeNodeList.get_all of every cell, scatter-gathered as the API
and the scheduler do (all nodes, capacity and usage fields read), before
the migration (an old conductor recorded: the nodes are read from their
columns, as the code before this change did) and after it (capacity from
inventories, usage from allocations; "after" is a process that listed the
nodes before, which reads again only the providers whose generation
moved, "first load" one that never read them). The same
nodes sit twice in the deployment, one copy migrated, and the two loads
alternate --repeat times so that both see the same load from other work
on the machine; median, best and this process's CPU time are printed.
Target: after <= 1.5x before.

Every figure is printed with its sizes; nothing is asserted.

Figures and the tuning they led to: doc/performance.rst.
"""
import argparse
import datetime
import json
import statistics
import sys
import time
import uuid

import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite.db import migration
from nova_lite import objects
from nova_lite.objects import service_version
from nova_lite.online_migrations import compute_inventory as inventory_migration  # noqa: E501
from nova_lite.online_migrations import registry
from nova_lite.online_migrations import runner
from nova_lite.placement import capacity
from nova_lite.placement import providers as placement_providers
from nova_lite import utils

from benchlib import Backend  # noqa: E402  (tools/bench on sys.path)
NODES = main_models.ComputeNode.__table__
RP = api_models.ResourceProvider.__table__
INV = api_models.Inventory.__table__
ALLOC = api_models.Allocation.__table__
MIGRATION = 'migrate_compute_node_inventories'


def node_rows(n, start):
    now = datetime.datetime(2020, 1, 1)
    # A live node's row is rewritten by its resource tracker every period,
    # so updated_at is set on every row (migrated or not) in a deployment.
    reported = datetime.datetime(2026, 11, 1, 12, 0, 0)
    rows = []
    for i in range(start, start + n):
        vcpus, memory, disk = 16 + i % 4, 65536, 1000 + i % 7
        used = (i % 9, 512 + 1024 * (i % 5), 20 * (i % 3))
        rows.append({
            'host': 'host%06d' % i, 'hypervisor_hostname': 'node%06d' % i,
            'vcpus': vcpus, 'memory_mb': memory, 'local_gb': disk,
            'vcpus_used': used[0], 'memory_mb_used': used[1],
            'local_gb_used': used[2], 'free_ram_mb': memory - used[1],
            'free_disk_gb': disk - used[2], 'current_workload': 0,
            'running_vms': i % 9, 'hypervisor_type': 'fake',
            'hypervisor_version': 1000, 'cpu_info': '{"arch": "x86_64"}',
            'disk_available_least': disk - used[2], 'host_ip': '192.0.2.1',
            'stats': '{}', 'cpu_allocation_ratio': 16.0,
            'ram_allocation_ratio': 1.5, 'disk_allocation_ratio': 1.0,
            'deleted': 0, 'created_at': now, 'updated_at': reported})
    return rows


class Deployment(object):
    """n_nodes legacy nodes spread over n_cells cells; with copies=2, the
    same nodes once more in n_cells further cells (the load comparison
    migrates one copy and keeps the other on its columns)."""

    def __init__(self, backend, n_nodes, n_cells, copies=1):
        self.backend = backend
        self.api_url = backend.new_db('api')
        migration.db_sync('api', self.api_url)
        self.cell_urls = []
        for i in range(n_cells * copies + 1):
            url = backend.new_db('cell%d' % i)
            migration.db_sync('main', url)
            self.cell_urls.append(url)
        CONF.set_override('connection', self.api_url, group='api_database')
        CONF.set_override('connection', self.cell_urls[1], group='database')
        api_db.reset()
        main_db.reset()
        nova_context._CELL_CACHE.clear()
        self.ctxt = nova_context.get_admin_context()
        self.cells = []
        for i, url in enumerate(self.cell_urls):
            kwargs = {'uuid': objects.CellMapping.CELL0_UUID,
                      'transport_url': 'none:///'} if i == 0 else {
                'transport_url': 'inproc:///cell%d' % i}
            cell = objects.CellMapping(self.ctxt, name='cell%d' % i,
                                       database_connection=url, **kwargs)
            cell.create()
            if i:
                self.cells.append(cell)
        per_cell = n_nodes // n_cells
        for i, cell in enumerate(self.cells):
            engine = sa.create_engine(cell.database_connection,
                                      poolclass=sa.pool.NullPool)
            with engine.begin() as conn:
                conn.execute(NODES.insert(), node_rows(
                    per_cell, (i % n_cells) * per_cell))
            engine.dispose()
        self.n_nodes = per_cell * n_cells
        # Standard resource classes exist once the API DB is in use.
        placement_providers.resource_class_ids(self.ctxt)

    def cell_contexts(self, cells=None):
        for cell in cells or self.cells:
            with nova_context.target_cell(self.ctxt, cell) as cctxt:
                yield cctxt

    def load_all(self, cells=None):
        """Every node of the cells, as the API and the scheduler load them
        (scatter-gather: one green thread per cell); a checksum of their
        capacity and usage fields."""
        def load(cctxt):
            total = 0
            for node in objects.ComputeNodeList.get_all(cctxt):
                total += (node.vcpus + node.memory_mb + node.local_gb
                          + node.vcpus_used + node.memory_mb_used
                          + node.local_gb_used)
                total += int(node.cpu_allocation_ratio
                             + node.ram_allocation_ratio
                             + node.disk_allocation_ratio)
            return total
        results = nova_context.scatter_gather_cells(
            self.ctxt, cells or self.cells, 600, load)
        assert not any(nova_context.is_cell_failure(r)
                       for r in results.values()), results
        return sum(results.values())

    def hold_gate(self):
        """Record an old conductor: nodes stay on their columns."""
        with nova_context.target_cell(self.ctxt, self.cells[-1]) as cctxt:
            svc = objects.Service(cctxt, host='old-conductor',
                                  binary=constants.CONDUCTOR_BINARY,
                                  topic='conductor', version=2)
            svc.create()
        service_version.reset_min_version_cache()
        return svc

    def release_gate(self, svc):
        with nova_context.target_cell(self.ctxt, self.cells[-1]) as cctxt:
            svc._context = cctxt
            svc.destroy()
        service_version.reset_min_version_cache()

    def counts(self):
        with api_db.get_engine().connect() as conn:
            return [conn.execute(sa.select(sa.func.count()).select_from(t))
                    .scalar() for t in (RP, INV, ALLOC)]


def migrate(dep, batch):
    start = time.perf_counter()
    rows, code = runner.run_migrations(dep.ctxt, names=[MIGRATION],
                                                  batch=batch)
    elapsed = time.perf_counter() - start
    assert code == 0 and rows[0]['done'] == dep.n_nodes, rows
    providers, inventories, _ = dep.counts()
    assert (providers, inventories) == (dep.n_nodes, 3 * dep.n_nodes)
    return elapsed


def floor_copy(dep):
    """The same data moved with raw SQL, no objects, no crash ordering."""
    class_ids = placement_providers.resource_class_ids(
        dep.ctxt, ['VCPU', 'MEMORY_MB', 'DISK_GB'])
    api_engine = sa.create_engine(dep.api_url, poolclass=sa.pool.NullPool)
    columns = [NODES.c.id, NODES.c.hypervisor_hostname, NODES.c.vcpus,
               NODES.c.memory_mb, NODES.c.local_gb, NODES.c.vcpus_used,
               NODES.c.memory_mb_used, NODES.c.local_gb_used,
               NODES.c.disk_available_least, NODES.c.cpu_allocation_ratio,
               NODES.c.ram_allocation_ratio, NODES.c.disk_allocation_ratio]
    start = time.perf_counter()
    for cell in dep.cells:
        engine = sa.create_engine(cell.database_connection,
                                  poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            rows = conn.execute(sa.select(*columns).where(
                NODES.c.deleted == 0, NODES.c.uuid.is_(None))).all()
        uuids = {r.id: str(uuid.uuid4()) for r in rows}
        now = datetime.datetime.utcnow()
        with api_engine.begin() as conn:
            conn.execute(RP.insert(), [
                {'uuid': uuids[r.id], 'name': r.hypervisor_hostname,
                 'generation': 0, 'created_at': now} for r in rows])
            ids = {}
            for part in utils.chunks(list(uuids.values())):
                ids.update(conn.execute(sa.select(RP.c.uuid, RP.c.id).where(
                    RP.c.uuid.in_(part))).all())
            inventories, allocations = [], []
            for r in rows:
                pid = ids[uuids[r.id]]
                for rc, total, used, ratio, max_unit in (
                        ('VCPU', r.vcpus, r.vcpus_used,
                         r.cpu_allocation_ratio, r.vcpus),
                        ('MEMORY_MB', r.memory_mb, r.memory_mb_used,
                         r.ram_allocation_ratio, r.memory_mb),
                        ('DISK_GB', r.local_gb, r.local_gb_used,
                         r.disk_allocation_ratio,
                         min(r.local_gb, r.disk_available_least))):
                    inventories.append({
                        'resource_provider_id': pid,
                        'resource_class_id': class_ids[rc], 'total': total,
                        'reserved': 0, 'min_unit': 1, 'max_unit': max_unit,
                        'step_size': 1, 'allocation_ratio': ratio})
                    if used:
                        allocations.append({
                            'resource_provider_id': pid,
                            'consumer_id': uuids[r.id],
                            'resource_class_id': class_ids[rc],
                            'used': used})
            conn.execute(INV.insert(), inventories)
            conn.execute(ALLOC.insert(), allocations)
        with engine.begin() as conn:
            conn.execute(
                NODES.update().where(NODES.c.id == sa.bindparam('node_id'))
                .values(uuid=sa.bindparam('new_uuid'),
                        inventory_migrated=True),
                [{'node_id': i, 'new_uuid': u} for i, u in uuids.items()])
        engine.dispose()
    elapsed = time.perf_counter() - start
    api_engine.dispose()
    providers, inventories, _ = dep.counts()
    assert (providers, inventories) == (dep.n_nodes, 3 * dep.n_nodes)
    return elapsed


def bench_load(backend, args):
    """The same nodes twice: one copy migrated, the other kept on its
    columns by an old conductor; their loads alternate, so both see the
    same load from anything else running on the machine."""
    dep = Deployment(backend, args.nodes, args.cells, copies=2)
    legacy, migrated = dep.cells[:args.cells], dep.cells[args.cells:]
    for cctxt in dep.cell_contexts(migrated):
        inventory_migration.migrate_pending(cctxt, dep.n_nodes)
    gate = dep.hold_gate()
    assert dep.load_all(legacy) == dep.load_all(migrated)
    assert dep.counts()[0] == dep.n_nodes   # the legacy copy stayed
    runs = {'before': [], 'after': [], 'after_cold': []}
    cpu = dict.fromkeys(runs, 0.0)
    for _ in range(args.repeat):
        for label, cells in (('before', legacy), ('after', migrated),
                             ('after_cold', migrated)):
            if label == 'after_cold':
                # As a process's first listing: no capacity read before.
                capacity.clear_cache()
            start, start_cpu = time.perf_counter(), time.process_time()
            dep.load_all(cells)
            runs[label].append(time.perf_counter() - start)
            cpu[label] += time.process_time() - start_cpu
    dep.release_gate(gate)
    result = {}
    for label, times in runs.items():
        result['load_%s_s' % label] = statistics.median(times)
        result['load_%s_best_s' % label] = min(times)
        result['load_%s_cpu_s' % label] = cpu[label] / args.repeat
    result['load_ratio'] = result['load_after_s'] / result['load_before_s']
    result['load_best_ratio'] = (result['load_after_best_s']
                                 / result['load_before_best_s'])
    result['load_cpu_ratio'] = (result['load_after_cpu_s']
                                / result['load_before_cpu_s'])
    result['load_cold_ratio'] = (result['load_after_cold_s']
                                 / result['load_before_s'])
    return result


def _teardown():
    api_db.reset()
    main_db.reset()
    nova_context._CELL_CACHE.clear()
    service_version.reset_min_version_cache()


def run(args):
    results = []
    for kind in args.backends.split(','):
        backend = Backend(kind)
        result = {'backend': kind, 'nodes': args.nodes, 'cells': args.cells}
        try:
            dep = Deployment(backend, args.nodes, args.cells)
            result['floor_s'] = floor_copy(dep)
            _teardown()
            backend.drop_all()
            for batch in args.batches:
                dep = Deployment(backend, args.nodes, args.cells)
                seconds = migrate(dep, batch)
                result['migration_batch%d_s' % batch] = seconds
                result['migration_batch%d_ratio' % batch] = \
                    seconds / result['floor_s']
                _teardown()
                backend.drop_all()
            result.update(bench_load(backend, args))
            _teardown()
            backend.drop_all()
            results.append(result)
        finally:
            _teardown()
            backend.cleanup()
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=5000)
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--backends', default='sqlite,mysql')
    parser.add_argument('--batches', default='50,1000,5000',
                        help='migration batch sizes (the migration\'s own '
                             'default: %d; the runner\'s generic one: %d)'
                        % (inventory_migration.COMPUTE_NODE_BATCH,
                           registry.DEFAULT_BATCH))
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(',')]
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print('%(backend)s: %(nodes)d legacy compute nodes in %(cells)d '
              'cells (3 inventories + host usage each)' % r)
        print('  floor: raw SQL copy            %8.3f s' % r['floor_s'])
        for batch in args.batches:
            print('  migration, batch %-5d         %8.3f s  (%.2fx floor)'
                  % (batch, r['migration_batch%d_s' % batch],
                     r['migration_batch%d_ratio' % batch]))
        print('  load all %d nodes, alternating before/after, %d runs each:'
              % (r['nodes'], args.repeat))
        print('    median  before %.3f s  after %.3f s  (%.2fx)' % (
            r['load_before_s'], r['load_after_s'], r['load_ratio']))
        print('    best    before %.3f s  after %.3f s  (%.2fx)' % (
            r['load_before_best_s'], r['load_after_best_s'],
            r['load_best_ratio']))
        print('    our CPU before %.3f s  after %.3f s  (%.2fx; the '
              'database server\'s time not included)' % (
                  r['load_before_cpu_s'], r['load_after_cpu_s'],
                  r['load_cpu_ratio']))
        print('    first load after (nothing read before in the process): '
              'median %.3f s  (%.2fx before)' % (
                  r['load_after_cold_s'], r['load_cold_ratio']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
