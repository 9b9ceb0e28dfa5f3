"""Placement audit: allocations and providers nothing stands behind.

- An **orphaned allocation** is held by a consumer that is neither an
  instance (not deleted, in any cell), nor a server still being built
  (an instance mapping without a cell yet), nor a migration (not
  deleted, in any cell), nor a compute node's own host usage (consumer =
  the provider's uuid).
- A **provider without a node** is a resource provider whose uuid is no
  compute node (not deleted) of any cell.

``find()`` reads the API DB in one query per table (per 500 uuids) and
each cell once (in parallel); a cell that does not answer makes the
audit fail (CellsUnreachable) rather than call its consumers orphaned.
``delete()`` removes what find() reported: the orphaned allocations
(every allocation of such a consumer), then each provider without a node
with its inventories and host usage, unless a live consumer still
allocates from it (kept, reported). Running it again finds nothing left:
it is idempotent.
"""
import collections

import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import db as placement_db
from nova_lite.placement import hosts
from nova_lite.placement import providers
from nova_lite.placement import resource_class

RP, ALLOC = providers.RP, providers.ALLOC
MAPPING = api_models.InstanceMapping.__table__
INSTANCES = main_models.Instance.__table__
MIGRATIONS = main_models.Migration.__table__
NODES = main_models.ComputeNode.__table__

Orphan = collections.namedtuple('Orphan', 'consumer provider resources')
Provider = collections.namedtuple('Provider', 'uuid name')
Report = collections.namedtuple(
    'Report', 'allocations providers consumers_checked cells_checked')


class CellsUnreachable(exception.NovaLiteException):
    msg_fmt = ('Cells %(cells)s did not answer; nothing is reported or '
               'deleted without them.')


def allocation_rows(session):
    """[(consumer, provider uuid, provider name, class id, used)]."""
    return session.execute(
        sa.select(ALLOC.c.consumer_id, RP.c.uuid, RP.c.name,
                  ALLOC.c.resource_class_id, ALLOC.c.used)
        .select_from(ALLOC.join(RP, RP.c.id == ALLOC.c.resource_provider_id))
        .order_by(ALLOC.c.consumer_id, RP.c.uuid)).all()


def mapped_consumers(session, consumers):
    """{instance uuid: has a cell} of the consumers with a mapping."""
    found = {}
    for part in placement_db.chunks(consumers):
        for uuid, cell_id in session.execute(
                sa.select(MAPPING.c.instance_uuid, MAPPING.c.cell_id)
                .where(MAPPING.c.instance_uuid.in_(part))):
            found[uuid] = cell_id is not None
    return found


@main_db.reader
def _live_in_cell(cctxt, consumers, provider_uuids):
    """(consumers that are live instances or migrations, providers that
    are live compute nodes) in one cell."""
    live, nodes = set(), set()
    session = cctxt.session
    for table in (INSTANCES, MIGRATIONS):
        for part in placement_db.chunks(consumers):
            live.update(row[0] for row in session.execute(
                sa.select(table.c.uuid).where(
                    table.c.deleted == 0, table.c.uuid.in_(part))))
    for part in placement_db.chunks(provider_uuids):
        nodes.update(row[0] for row in session.execute(
            sa.select(NODES.c.uuid).where(
                NODES.c.deleted == 0, NODES.c.uuid.in_(part))))
    return live, nodes


def find(ctx):
    """Report of what placement holds that nothing stands behind."""
    with placement_db.reading(ctx) as session:
        rows = allocation_rows(session)
        all_providers = session.execute(
            sa.select(RP.c.uuid, RP.c.name).order_by(RP.c.uuid)).all()
        provider_uuids = [uuid for uuid, _name in all_providers]
        consumers = sorted({row[0] for row in rows} - set(provider_uuids))
        mapped = mapped_consumers(session, consumers)
    cells = objects.CellMappingList.get_all(ctx)
    results = nova_context.scatter_gather_cells(
        ctx, cells, CONF.cell_timeout, _live_in_cell, consumers,
        provider_uuids)
    failed = [cell.name or cell.uuid for cell in cells
              if nova_context.is_cell_failure(results[cell.uuid])]
    if failed:
        raise CellsUnreachable(cells=', '.join(sorted(failed)))
    live, nodes = set(), set()
    for found_live, found_nodes in results.values():
        live |= found_live
        nodes |= found_nodes
    # Being built: mapped, no cell yet (its instance is not written).
    live |= {uuid for uuid, has_cell in mapped.items() if not has_cell}
    orphaned = {c for c in consumers if c not in live}
    held = collections.OrderedDict()
    for consumer, rp_uuid, _name, rc_id, used in rows:
        if consumer in orphaned:
            held.setdefault((consumer, rp_uuid), {})[rc_id] = used
    names = resource_class.names_by_id(
        ctx, {rc for res in held.values() for rc in res})
    return Report(
        allocations=[Orphan(consumer, rp_uuid, {names[rc]: used
                                                for rc, used in res.items()})
                     for (consumer, rp_uuid), res in held.items()],
        providers=[Provider(uuid, name) for uuid, name in all_providers
                   if uuid not in nodes],
        consumers_checked=len(consumers), cells_checked=len(cells))


def delete(ctx, report):
    """Remove what report found. Returns {'allocations': consumers whose
    allocations went, 'providers': provider uuids deleted, 'kept':
    {provider uuid: why}}."""
    done = {'allocations': [], 'providers': [], 'kept': {}}
    for consumer in sorted({orphan.consumer
                            for orphan in report.allocations}):
        if allocations.remove_allocations(ctx, consumer):
            done['allocations'].append(consumer)
    for provider in report.providers:
        try:
            done['providers'].extend(
                hosts.delete_unused_host_providers(ctx, [provider.uuid]))
        except exception.ResourceProviderInUse:
            done['kept'][provider.uuid] = ('live consumers still allocate '
                                           'from it')
    return done
