"""Auto-confirm: a cell conductor's periodic task confirms the resizes
and cold migrations of its cell that have waited in VERIFY_RESIZE for
longer than [DEFAULT] resize_confirm_window seconds (0: never).

It reads only its cell's database and casts confirm_resize to each
source compute, which drops the set-aside guest and releases the
migration's allocation through the placement RPC topic: no up-call to
the API database. Each migration is claimed with a compare-and-swap
(finished -> confirming), so several conductors of one cell (or a user
confirming at the same moment) confirm it once.

A cross-cell move (migration.cross_cell_move) is not the cell
conductor's: its source host is in another cell, out of the cell
transport's reach. The super conductor's periodic task confirms those
(confirm_old_cross_cell_resizes), through the same confirm as a user's.
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# Confirmations sent per periodic run at most (the rest wait for the
# next run).
BATCH = 50


def confirm_old_resizes(context):
    """Confirm this cell's moves finished longer than the window ago;
    returns the instance uuids confirmed. Two queries (migrations, then
    their instances), then one CAS and one cast per migration."""
    window = CONF.resize_confirm_window
    if window <= 0 or not _serves_a_cell(context):
        return []
    migrations = objects.MigrationList.get_unconfirmed_by_age(
        context, window, limit=BATCH)
    if not migrations:
        return []
    instances = {i.uuid: i for i in objects.InstanceList.get_by_filters(
        context, {'uuid': [m.instance_uuid for m in migrations]})}
    rpc = compute_rpcapi.ComputeAPI()
    confirmed = []
    for migration in migrations:
        instance = instances.get(migration.instance_uuid)
        if instance is None or instance.vm_state != instance_obj.RESIZED:
            # Deleted, or moved on (e.g. reset by an administrator):
            # nothing to confirm any more.
            _save(migration, migration_obj.ERROR)
            continue
        if instance.task_state is not None or migration.cross_cell_move:
            continue
        if not _save(migration, migration_obj.CONFIRMING):
            continue
        LOG.info('Automatically confirming the %s of %s (finished more '
                 'than %d seconds ago)', migration.migration_type,
                 instance.uuid, window)
        instance_events.record_action(context, instance,
                                      instance_action.CONFIRM_RESIZE)
        rpc.confirm_resize(context, migration.source_compute, instance,
                           migration)
        confirmed.append(instance.uuid)
    return confirmed


def confirm_old_cross_cell_resizes(context, confirm):
    """A super conductor's part: the cross-cell moves of every cell
    finished longer than the window ago, each claimed (finished ->
    confirming) then confirm(context, instance, migration) -- the
    compute_task confirm_snapshot_based_resize. Returns the instance
    uuids confirmed."""
    window = CONF.resize_confirm_window
    if window <= 0 or not api_db.available():
        return []
    confirmed = []
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            migrations = [m for m in objects.MigrationList
                          .get_unconfirmed_by_age(cctxt, window,
                                                  limit=BATCH)
                          if m.cross_cell_move and not m.hidden]
            if not migrations:
                continue
            instances = {i.uuid: i for i in
                         objects.InstanceList.get_by_filters(
                             cctxt, {'uuid': [m.instance_uuid
                                              for m in migrations]})}
            for migration in migrations:
                instance = instances.get(migration.instance_uuid)
                if (instance is None or instance.task_state is not None
                        or instance.vm_state != instance_obj.RESIZED
                        or not _save(migration, migration_obj.CONFIRMING)):
                    continue
                LOG.info('Automatically confirming the cross-cell %s of %s '
                         '(finished more than %d seconds ago)',
                         migration.migration_type, instance.uuid, window)
                instance_events.record_action(
                    cctxt, instance, instance_action.CONFIRM_RESIZE)
                confirm(context, instance, migration)
                confirmed.append(instance.uuid)
    return confirmed


def _serves_a_cell(context):
    """A cell conductor: no API DB, or (all-in-one) a context targeted
    at its cell. A super conductor's casts would go out on the API
    transport, where no compute listens."""
    return (getattr(context, 'cell_uuid', None) is not None
            or not api_db.available())


def _save(migration, status):
    migration.status = status
    try:
        migration.save(expected_status=[migration_obj.FINISHED])
        return True
    except (exception.MigrationStatusConflict,
            exception.MigrationNotFound):
        return False
