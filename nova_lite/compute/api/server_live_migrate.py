"""The compute API of live migration: os-migrateLive, and force_complete
and abort (DELETE) of an in-progress live migration
(/servers/{id}/migrations/{migration_id}).

os-migrateLive is refused before anything is written, in Nova's order:
the lock and the states (409: ACTIVE or PAUSED, no task), a named host
no compute of any cell is (400); services too old for it (409: every
compute of the server's cell at service version 26, the super
conductors serving compute_task 1.7). Then task_state migrating is set
with a compare-and-swap on "no task" together with the instance action
live-migration, and the move is sent to the super conductor
(conductor.tasks.live_migrate): a call before 2.34 (its refusals --
no valid host, a pre-check, the server's own host, a host of another
cell, a compute down -- answer 400), a cast from 2.34 (they end in the
action's event and the server's fault; the server stays where it was).

force_complete and abort act on the server's live migration by id
(404 for another server's or none), the server migrating (409
otherwise): force_complete while it is running, abort while it is
running -- or, from 2.65, queued or preparing (400 InvalidMigrationState
otherwise); each records its instance action and casts to the source.
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import constants
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service_version

# The service version every nova-compute of the cell runs for a live
# migration (service_version.SERVICE_VERSION_HISTORY).
LIVE_MIGRATION_SERVICE_VERSION = 26
LIVE_VM_STATES = (inst_obj.ACTIVE, inst_obj.PAUSED)
# What an abort accepts (2.24 .. 2.64; from 2.65 with_queued).
ABORTABLE = (migration_obj.RUNNING,)
ABORTABLE_QUEUED = (migration_obj.QUEUED, migration_obj.PREPARING,
                    migration_obj.RUNNING)

_conductor = None


def _compute_task():
    global _conductor
    if _conductor is None:
        _conductor = conductor_rpcapi.ComputeTaskAPI()
    return _conductor


def _check_services(instance, action):
    """409 unless the cell's computes and the super conductors can do
    a live migration."""
    too_old = exception.ComputeTooOldForAction(
        action=action, instance_uuid=instance.uuid, host=instance.host)
    if not _compute_task().can_send(conductor_rpcapi.LIVE_MIGRATE_VERSION):
        raise too_old
    found = service_version.get_minimum_versions(
        instance.context, [constants.COMPUTE_BINARY])
    if found.get(constants.COMPUTE_BINARY, 0) < \
            LIVE_MIGRATION_SERVICE_VERSION:
        raise too_old


def _check_host_known(context, host):
    """400 unless host is a compute of some cell (its host mapping);
    one of another cell is refused by the conductor, as Nova's."""
    try:
        objects.HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        raise exception.MigrateHostNotFound(host=host)


def live_migrate(context, instance, host=None, block_migration=None,
                 disk_over_commit=None, force=False, wait=False):
    """Live-migrate the server (see the module). block_migration None:
    'auto'. wait: the request's microversion is below 2.34."""
    action = 'os-migrateLive'
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, action, LIVE_VM_STATES)
    server_actions.check_host(instance)
    if host is not None:
        _check_host_known(context, host)
    _check_services(instance, action)
    instance.task_state = inst_obj.MIGRATING
    try:
        with inst_obj.transaction(instance.context):
            instance.save(expected_task_state=[None])
            instance_events.record_action(instance.context, instance,
                                          actions.LIVE_MIGRATION)
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))
    try:
        _compute_task().live_migrate_instance(
            context, instance, host=host, block_migration=block_migration,
            disk_over_commit=disk_over_commit, force=force, wait=wait)
    except exception.NoValidHost as exc:
        raise exception.NoValidHostForLiveMigration(
            reason=exc.format_message())


def _migration(instance, migration_id):
    """The server's migration migration_id (a string from the URL);
    404 for none or another server's."""
    ids = dict(migration_id=migration_id, instance_id=instance.uuid)
    try:
        number = int(migration_id)
        migration = objects.Migration.get_by_id(instance.context, number)
    except (ValueError, exception.MigrationNotFound):
        raise exception.LiveMigrationNotFoundForInstance(**ids)
    if migration.instance_uuid != instance.uuid:
        raise exception.LiveMigrationNotFoundForInstance(**ids)
    return migration


def _check_migrating(context, instance, method):
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, method, LIVE_VM_STATES,
                               (inst_obj.MIGRATING,))


def _send(instance, action, method, migration):
    instance_events.record_action(instance.context, instance, action)
    rpc = server_actions.compute_rpc()
    getattr(rpc, method)(instance.context, instance, migration.id)


def force_complete(context, instance, migration_id):
    """Make the running live migration migration_id finish now."""
    _check_migrating(context, instance, 'force_complete')
    migration = _migration(instance, migration_id)
    if migration.status != migration_obj.RUNNING:
        raise exception.InvalidMigrationState(
            migration_id=migration_id, instance_uuid=instance.uuid,
            state=migration.status, method='force complete')
    _send(instance, actions.LIVE_MIGRATION_FORCE_COMPLETE,
          'live_migration_force_complete', migration)


def abort(context, instance, migration_id, with_queued=False):
    """Abort the live migration migration_id (rolled back, cancelled):
    running, or with_queued (2.65) also queued or preparing."""
    _check_migrating(context, instance, 'abort live migration')
    migration = _migration(instance, migration_id)
    allowed = ABORTABLE_QUEUED if with_queued else ABORTABLE
    if (migration.migration_type != migration_obj.LIVE_MIGRATION
            or migration.status not in allowed):
        raise exception.InvalidMigrationState(
            migration_id=migration_id, instance_uuid=instance.uuid,
            state=migration.status, method='abort live migration')
    _send(instance, actions.LIVE_MIGRATION_CANCEL, 'live_migration_abort',
          migration)
