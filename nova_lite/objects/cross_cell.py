"""An instance's records moving between cells (cross-cell resize): run by
the super conductor, which holds every cell database (contexts targeted
with nova_context.target_cell). Not remotable: no compute or cell
conductor ever reaches two cells.

Each function is one transaction per cell it writes (see
nova_lite.db.main.instance_copy).
"""
from nova_lite.db.main import instance_copy as db


def copy_instance(source_ctx, target_ctx, instance_uuid, migration_uuid,
                  hidden=True):
    """Copy the instance and its related rows (with its actions and
    events, and the migration) from source_ctx's cell into target_ctx's,
    the instance and the migration hidden (when hidden): the copy
    replaces any earlier one there."""
    data = db.read_instance(source_ctx, instance_uuid, migration_uuid)
    db.write_instance(target_ctx, data, {'hidden': hidden},
                      {'hidden': hidden, 'cross_cell_move': True})
    sync_actions(source_ctx, target_ctx, instance_uuid)


def sync_actions(from_ctx, to_ctx, instance_uuid):
    """to_ctx's cell gets every action and event of the instance that
    from_ctx's cell has (finish times and results too)."""
    db.merge_actions(to_ctx, instance_uuid,
                     db.read_actions(from_ctx, instance_uuid))


def set_hidden(context, instance_uuid, hidden, migration_uuid=None):
    """Hide (or show) the instance in context's cell, with its copy of
    the migration; False when there is no such live instance."""
    return db.set_hidden(context, instance_uuid, hidden, migration_uuid)


def hard_delete(context, instance_uuid):
    """Remove every row of the instance from context's cell."""
    db.hard_delete(context, instance_uuid)


def exists(context, instance_uuid):
    return db.exists(context, instance_uuid)


def states(context, instance_uuid):
    """(vm_state, task_state) of the live instance in context's cell,
    None when it is gone (one small read)."""
    return db.states(context, instance_uuid)


def migrations_in(context, statuses):
    """uuids of context's cell's cross-cell migrations in statuses."""
    return db.cross_cell_migrations(context, statuses)
