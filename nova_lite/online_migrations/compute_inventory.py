"""The migrate_compute_node_inventories online migration: compute-node
capacity moves from compute_nodes columns to resource-provider inventories
in the API database.

APIs and conductors older than 3 read capacity from the compute_nodes
columns only: it moves once every one of them (in every cell) reads the
inventories.
"""
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import compute_nodes as compute_nodes_db
from nova_lite.objects import cell_mapping
from nova_lite.objects import compute_inventory
from nova_lite.objects import compute_node
from nova_lite.online_migrations import registry

LOG = logging.getLogger(__name__)

# Nodes per call: a batch is a fixed number of statements and four commits;
# 1,000 nodes are one short transaction per database
# (tools/bench/inventory_migration.py).
COMPUTE_NODE_BATCH = 1000


def _compute_nodes_pending(context):
    """Compute nodes of every reachable cell not flagged migrated (of the
    [database] cell alone in a process without the API database)."""
    if not api_db.available():
        return _count_unmigrated_nodes(context) \
            if CONF.database.connection else 0
    count = 0
    for cell in cell_mapping.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                count += _count_unmigrated_nodes(cctxt)
            except Exception:
                LOG.warning('Cannot count compute nodes to migrate in cell '
                            '%s', cell.identity)
    return count


def _count_unmigrated_nodes(cctxt):
    # Before inventory_migrated exists no node has moved yet; before
    # compute_nodes exists there is none.
    return registry.count_rows(
        cctxt,
        'SELECT count(*) FROM compute_nodes WHERE deleted = 0 AND (uuid IS '
        'NULL OR inventory_migrated IS NULL OR NOT inventory_migrated)',
        'SELECT count(*) FROM compute_nodes WHERE deleted = 0') or 0


@registry.register(name='migrate_compute_node_inventories',
                   batch=COMPUTE_NODE_BATCH,
                   needs={constants.API_BINARY: 3,
                          constants.CONDUCTOR_BINARY: 3},
                   pending=_compute_nodes_pending)
def migrate_compute_node_inventories(context, max_count):
    """Give every compute node without one a resource provider with its
    inventories and host usage (compute_node.migrate, the steps of
    ComputeNode._migrate_inventory: uuid in the cell DB, then provider +
    inventories + usage in one API DB transaction, then the cell's
    inventory_migrated hint). Returns (found, done).

    Walks the cells in turn and each cell's unflagged nodes by id, in bulk
    (one cell query, one uuid UPDATE, one API DB transaction and one flag
    UPDATE per batch), until max_count nodes are done. Idempotent and safe
    next to itself and to loaders migrating the same nodes: providers that
    exist are never recreated. A node whose columns make no valid
    inventory is found, not done, and logged.
    """
    found = done = 0
    for cell in cell_mapping.CellMappingList.get_all(context):
        if cell.is_cell0() or done >= max_count:
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            cell_found, cell_done = migrate_pending(
                cctxt, max_count - done)
        found += cell_found
        done += cell_done
    return found, done


def migrate_pending(context, max_count):
    """The migration's work in one cell (context targeted at it): nodes not
    flagged migrated, by id, in bulk on their rows (no objects built),
    until max_count are done or none are left. Returns (found, done); a
    node that cannot be migrated is found, not done, and never holds up
    the ones behind it."""
    placement = compute_inventory.placement_for(context,
                                                compute_node.ComputeNode)
    found = done = 0
    after_id = None
    while done < max_count:
        rows, _ = compute_nodes_db.get_rows(context, {}, after_id=after_id,
                                            limit=max_count - done,
                                            pending=True)
        if not rows:
            break
        after_id = rows[-1]['id']
        found += len(rows)
        done += len(compute_node.migrate(context, rows, placement, None,
                                         with_data=False))
    return found, done
