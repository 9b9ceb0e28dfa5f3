"""Allocation consistency: does placement hold, for every instance and
migration of every cell, what its flavor, host and state say it should?

What each consumer should hold (resources as the scheduler claims them:
``RequestSpec.resources()`` of the flavor, zero amounts left out):

- an **instance** with a host: its flavor on its node's provider (host
  and node -> compute node uuid = provider uuid), nothing anywhere else;
  in VERIFY_RESIZE (vm_state ``resized``) that flavor is the new one on
  the destination, where the instance now lives;
- an instance without a host (never scheduled, shelved offloaded, in
  cell0): nothing;
- a **volume-backed** instance (its boot device a volume) holds no
  DISK_GB for its root disk, as the scheduler claims it;
- **cross-cell moves**: the copies of an instance or migration hidden in
  one cell are not consumers of their own (the visible copy is checked),
  a migration present in two cells is checked once (its visible copy),
  and its source node may be in another cell than its instance;
- the **migration** of an instance in VERIFY_RESIZE (status
  ``finished``): the instance's old flavor on the source node;
- an **evacuation** that is ``done`` (its source compute has not come
  back to clean up): the instance's flavor on the source node;
- a migration that is over (confirmed, reverted, error, failed, ...):
  nothing -- otherwise it is a **leaked** migration allocation;
- a migration still in progress (or finished) while its instance is idle
  and not in VERIFY_RESIZE: **stale**; a migration of a deleted
  instance holding anything: leaked.

An instance is **busy** (not checked, counted) while it has a task state
or a migration being confirmed or reverted: its allocations are moving.
**Orphans** are allocations of consumers that are neither instances nor
migrations nor servers being built (``audit.find``).

``check(ctx)`` reads the API DB once (allocations, mappings) and each
cell once, in parallel (instances with their flavors, migrations, nodes:
a fixed number of statements per cell, per 500 consumers); a cell that
does not answer raises ``audit.CellsUnreachable``. It changes nothing.
"""
import collections

from oslo_serialization import jsonutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.placement import audit
from nova_lite.placement import db as placement_db
from nova_lite.placement import resource_class

INSTANCES = main_models.Instance.__table__
EXTRA = main_models.InstanceExtra.__table__
MIGRATIONS = main_models.Migration.__table__
BDMS = main_models.BlockDeviceMapping.__table__
NODES = main_models.ComputeNode.__table__

# Migration statuses after which a migration holds nothing.
OVER = ('confirmed', 'reverted', 'error', 'failed', 'done', 'completed',
        'cancelled')
# While one of these is in flight the instance's allocations move.
MOVING = ('confirming', 'reverting')

MISMATCH = 'mismatch'
LEAKED_MIGRATION = 'leaked_migration'
STALE_MIGRATION = 'stale_migration'
ORPHAN = 'orphan'

Problem = collections.namedtuple(
    'Problem', 'kind consumer instance expected held detail')


class Report(collections.namedtuple('Report', 'problems checked')):
    """problems: [Problem]; checked: {'cells', 'instances',
    'migrations', 'busy', 'consumers'} counts."""

    @property
    def ok(self):
        return not self.problems

    def to_dict(self):
        return {'problems': [p._asdict() for p in self.problems],
                'checked': dict(self.checked)}


def _flavors(blob):
    """(cur, old) EmbeddedFlavor snapshots of an instance_extra.flavor."""
    flavors = jsonutils.loads(blob) if blob else {}

    def snapshot(slot):
        primitive = flavors.get(slot)
        return None if not primitive else \
            objects.EmbeddedFlavor.obj_from_primitive(primitive)
    return snapshot('cur'), snapshot('old')


def _resources(flavor, volume_backed=False):
    if flavor is None:
        return None
    spec = objects.RequestSpec(flavor=flavor, is_bfv=volume_backed)
    return {rc: amount for rc, amount in spec.resources().items()
            if amount}


@main_db.reader
def _read_cell(cctxt, consumers):
    """Visible instances (with flavors, and whether their root disk is a
    volume), the migrations that matter (not over, or holding
    allocations; hidden copies too, to tell a migration in two cells)
    and the compute nodes of one cell."""
    session = cctxt.session
    volume_root = sa.exists().where(
        BDMS.c.instance_uuid == INSTANCES.c.uuid, BDMS.c.deleted == 0,
        BDMS.c.boot_index == 0, BDMS.c.destination_type == 'volume')
    instances = [dict(row._mapping) for row in session.execute(
        sa.select(INSTANCES.c.uuid, INSTANCES.c.host, INSTANCES.c.node,
                  INSTANCES.c.vm_state, INSTANCES.c.task_state,
                  EXTRA.c.flavor, volume_root.label('volume_backed'))
        .select_from(INSTANCES.outerjoin(EXTRA, sa.and_(
            EXTRA.c.instance_uuid == INSTANCES.c.uuid,
            EXTRA.c.deleted == 0)))
        .where(INSTANCES.c.deleted == 0,
               INSTANCES.c.hidden == sa.false()))]
    columns = (MIGRATIONS.c.id, MIGRATIONS.c.uuid,
               MIGRATIONS.c.instance_uuid, MIGRATIONS.c.status,
               MIGRATIONS.c.source_compute, MIGRATIONS.c.source_node,
               MIGRATIONS.c.dest_compute, MIGRATIONS.c.dest_node,
               MIGRATIONS.c.hidden, MIGRATIONS.c.migration_type)
    migrations = {}
    wheres = [[MIGRATIONS.c.status.not_in(OVER)]] + [
        [MIGRATIONS.c.uuid.in_(part)]
        for part in placement_db.chunks(consumers)]
    for where in wheres:
        for row in session.execute(sa.select(*columns).where(
                MIGRATIONS.c.deleted == 0, *where)):
            migrations[row.uuid] = dict(row._mapping)
    nodes = {(row.host, row.hypervisor_hostname): row.uuid
             for row in session.execute(
                 sa.select(NODES.c.uuid, NODES.c.host,
                           NODES.c.hypervisor_hostname)
                 .where(NODES.c.deleted == 0))}
    return instances, list(migrations.values()), nodes


class _Checker(object):
    """Compares what one cell's consumers hold with what they should."""

    def __init__(self, held):
        self.held = held
        self.problems = []
        self.busy = 0

    def expect(self, consumer, instance, expected, detail=''):
        held = self.held.get(consumer, {})
        if held != expected:
            self.problems.append(Problem(MISMATCH, consumer, instance,
                                         expected, held, detail))

    def nothing(self, kind, migration, detail, even_empty=False):
        """migration should hold nothing; report it as kind when it
        does (or, even_empty, anyway)."""
        held = self.held.get(migration['uuid'], {})
        if held or even_empty:
            self.problems.append(Problem(
                kind, migration['uuid'], migration['instance_uuid'], {},
                held, detail))

    def cell(self, instances, migrations, nodes):
        by_instance = collections.defaultdict(list)
        for migration in sorted(migrations, key=lambda m: m['id']):
            by_instance[migration['instance_uuid']].append(migration)
        for instance in instances:
            self.instance(instance, by_instance.pop(instance['uuid'], []),
                          nodes)
        # Migrations of deleted instances: a problem only when holding.
        for gone in by_instance.values():
            for migration in gone:
                self.nothing(LEAKED_MIGRATION, migration,
                             'status %s, its instance is gone'
                             % migration['status'])

    def instance(self, instance, migrations, nodes):
        uuid = instance['uuid']
        if instance['task_state'] is not None or any(
                m['status'] in MOVING for m in migrations):
            self.busy += 1
            return
        flavor, old_flavor = _flavors(instance['flavor'])
        resized = instance['vm_state'] == 'resized'
        finished = [m for m in migrations if m['status'] == 'finished']
        verifying = finished[-1] if resized and finished else None
        for migration in migrations:
            if migration is verifying:
                self.migration(migration, old_flavor, nodes,
                               bool(instance['volume_backed']))
            elif (migration.get('migration_type') == 'evacuation'
                  and migration['status'] == 'done'):
                self.migration(migration, flavor, nodes,
                               bool(instance['volume_backed']))
            elif migration['status'] in OVER:
                self.nothing(LEAKED_MIGRATION, migration,
                             'status %s' % migration['status'])
            else:
                self.nothing(STALE_MIGRATION, migration,
                             'status %s, instance %s and idle' % (
                                 migration['status'],
                                 instance['vm_state']), even_empty=True)
        if resized and verifying is None:
            self.problems.append(Problem(
                MISMATCH, uuid, uuid, None, self.held.get(uuid, {}),
                'VERIFY_RESIZE without a finished migration'))
        if not instance['host']:
            self.expect(uuid, uuid, {}, 'no host')
            return
        node = nodes.get((instance['host'], instance['node']))
        if node is None:
            self.problems.append(Problem(
                MISMATCH, uuid, uuid, None, self.held.get(uuid, {}),
                'no compute node %s on host %s' % (instance['node'],
                                                   instance['host'])))
            return
        self.expect(uuid, uuid, {node: _resources(
                        flavor, bool(instance['volume_backed']))},
                    'flavor %s on %s' % (flavor and flavor.name,
                                         instance['host']))

    def migration(self, migration, old_flavor, nodes, volume_backed):
        node = nodes.get((migration['source_compute'],
                          migration['source_node']))
        if node is None or old_flavor is None:
            self.problems.append(Problem(
                MISMATCH, migration['uuid'], migration['instance_uuid'],
                None, self.held.get(migration['uuid'], {}),
                'no source node %s or no old flavor' % (
                    migration['source_node'],)))
            return
        self.expect(migration['uuid'], migration['instance_uuid'],
                    {node: _resources(old_flavor, volume_backed)},
                    'old flavor %s on source %s' % (
                        old_flavor.name, migration['source_compute']))


def _held(ctx):
    """{consumer: {provider uuid: {class name: used}}} of every
    allocation (one query, plus resource class names)."""
    with placement_db.reading(ctx) as session:
        rows = audit.allocation_rows(session)
    names = resource_class.names_by_id(ctx, {row[3] for row in rows})
    held = {}
    for consumer, rp_uuid, _name, rc_id, used in rows:
        held.setdefault(consumer, {}).setdefault(rp_uuid, {})[
            names[rc_id]] = used
    return held


def _merged(cell_results):
    """Every cell's answer as one: visible instances, each migration
    once (the visible copy of one in two cells, else either), and the
    nodes of every cell (a cross-cell move's source node is in the
    other cell). Migration ids are only unique per cell: the order of a
    cell's migrations is kept by numbering them anew."""
    instances, nodes, by_uuid = [], {}, {}
    order = 0
    for cell_instances, cell_migrations, cell_nodes in cell_results:
        instances.extend(cell_instances)
        nodes.update(cell_nodes)
        for migration in sorted(cell_migrations, key=lambda m: m['id']):
            order += 1
            kept = by_uuid.get(migration['uuid'])
            if kept is None or (kept['hidden'] and not migration['hidden']):
                by_uuid[migration['uuid']] = dict(migration, id=order)
    return instances, list(by_uuid.values()), nodes


def check(ctx):
    """Report of every allocation that disagrees with its consumer."""
    held = _held(ctx)
    cells = objects.CellMappingList.get_all(ctx)
    results = nova_context.scatter_gather_cells(
        ctx, cells, CONF.cell_timeout, _read_cell, sorted(held))
    failed = [cell.name or cell.uuid for cell in cells
              if nova_context.is_cell_failure(results[cell.uuid])]
    if failed:
        raise audit.CellsUnreachable(cells=', '.join(sorted(failed)))
    checker = _Checker(held)
    instances, migrations, nodes = _merged([results[c.uuid] for c in cells])
    counts = {'cells': len(cells), 'instances': len(instances),
              'migrations': len(migrations)}
    checker.cell(instances, migrations, nodes)
    orphans = collections.OrderedDict()
    for orphan in audit.find(ctx).allocations:
        orphans.setdefault(orphan.consumer, {})[orphan.provider] = \
            orphan.resources
    problems = checker.problems + [
        Problem(ORPHAN, consumer, None, {}, held,
                'neither an instance nor a migration')
        for consumer, held in orphans.items()]
    counts.update(busy=checker.busy, consumers=len(held))
    return Report(problems, counts)
