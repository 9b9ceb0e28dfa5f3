"""Queries on the compute_nodes table of a cell database (the rows as
stored: capacity and usage of migrated nodes live in resource-provider
inventories, see nova_lite.objects.compute_node)."""
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite import utils

INT_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
               'memory_mb_used', 'local_gb_used', 'hypervisor_version',
               'free_ram_mb', 'free_disk_gb', 'current_workload',
               'running_vms', 'disk_available_least')
RATIOS = ('cpu_allocation_ratio', 'ram_allocation_ratio',
           'disk_allocation_ratio')
COLUMNS = (('id', 'uuid', 'service_id', 'host', 'hypervisor_type',
             'hypervisor_hostname', 'cpu_info', 'host_ip', 'pci_stats',
             'numa_topology', 'created_at', 'updated_at', 'deleted_at',
             'deleted', 'stats') + INT_FIELDS + RATIOS)
_TABLE = models.ComputeNode.__table__


def to_dict(row):
    return {c: getattr(row, c) for c in COLUMNS}


def _not_migrated():
    col = _TABLE.c.inventory_migrated
    return sa.or_(_TABLE.c.uuid.is_(None), col.is_(None), col == sa.false())


@main_db.reader
def get_rows(context, filters, after_id=None, limit=None, pending=False):
    """(row dicts, ids of rows flagged migrated): one query."""
    query = sa.select(_TABLE).where(_TABLE.c.deleted == 0)
    for key, value in sorted(filters.items()):
        query = query.where(_TABLE.c[key] == value)
    if pending:
        query = query.where(_not_migrated())
    if after_id is not None:
        query = query.where(_TABLE.c.id > after_id)
    query = query.order_by(_TABLE.c.id).limit(limit)
    rows, migrated = [], []
    for row in context.session.execute(query):
        rows.append(to_dict(row))
        if row.inventory_migrated:
            migrated.append(row.id)
    return rows, migrated


@main_db.writer
def claim_uuids(context, proposed):
    """Set [(id, uuid)] where the node has no uuid yet: concurrent callers
    all end up with the first writer's uuid. Returns [[id, uuid]] as
    stored (deleted nodes left out)."""
    context.session.execute(
        _TABLE.update().where(_TABLE.c.id == sa.bindparam('node_id'),
                              _TABLE.c.uuid.is_(None))
        .values(uuid=sa.bindparam('new_uuid')),
        [{'node_id': i, 'new_uuid': u} for i, u in proposed])
    found = []
    for part in utils.chunks([i for i, _ in proposed]):
        found.extend([i, u] for i, u in context.session.execute(
            sa.select(_TABLE.c.id, _TABLE.c.uuid).where(
                _TABLE.c.id.in_(part), _TABLE.c.deleted == 0)))
    return found


@main_db.writer
def mark_migrated(context, ids):
    """Flag these nodes inventory_migrated (a hint for the scan)."""
    for part in utils.chunks(ids):
        context.session.execute(
            _TABLE.update().where(_TABLE.c.id.in_(part))
            .values(inventory_migrated=True))


@main_db.writer
def create(context, values):
    """Insert a row; returns it as a dict of COLUMNS."""
    row = models.ComputeNode(**values)
    context.session.add(row)
    context.session.flush()
    return to_dict(row)


@main_db.writer
def save(context, compute_id, values):
    """Update a live row (ComputeNodeNotFound if none); returns the new
    updated_at."""
    values['updated_at'] = timeutils.utcnow()
    if not context.session.execute(
            _TABLE.update().where(_TABLE.c.id == compute_id,
                                  _TABLE.c.deleted == 0)
            .values(**values)).rowcount:
        raise exception.ComputeNodeNotFound(node=compute_id)
    return values['updated_at']


@main_db.writer
def destroy(context, compute_id):
    """Soft-delete a live row (no-op if none)."""
    context.session.query(models.ComputeNode).filter_by(
        id=compute_id, deleted=0).update(
            {models.ComputeNode.deleted: models.ComputeNode.id,
             models.ComputeNode.deleted_at: timeutils.utcnow()},
            synchronize_session=False)
