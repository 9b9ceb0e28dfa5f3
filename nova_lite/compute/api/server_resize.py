"""The compute API of resize and cold migration (same cell): resize,
migrate, confirmResize and revertResize.

What a user can get wrong is refused before anything is written, in
Nova's order: the lock (409), the vm and task states (409), the host's
compute (down or too old: 409), the flavor (unknown or disabled, the
same flavor, a smaller root disk: 400), the host an administrator named
(unknown, or the server's own: 400). Then the task state is set with a
compare-and-swap on "no task" (of two racing requests, or a request and
a delete, exactly one wins), the instance action is recorded and the
move is cast to the super conductor (compute_task RPC 1.2), which
schedules and claims (nova_lite.conductor.tasks.migrate).

Confirm and revert act on the migration in status finished: its status
moves (compare-and-swap) to confirming / reverting, so a confirm, a
revert and the cell conductor's auto-confirm cannot all win; then a cast
to the source (confirm) or the destination (revert).

Cross-cell: when the caller may move the server across cells (policy
compute:servers:resize:cross_cell, default nobody, checked by the REST
layer, which passes its answer as cross_cell_allowed) and every nova-
compute of every cell runs service version 11 or later (and the super
conductors speak compute_task 1.3), the move is cast with
allow_cross_cell: the scheduler may pick a host of another cell;
otherwise the move stays in the cell, without error. Confirm, revert and
a delete in VERIFY_RESIZE of a cross-cell move
(migration.cross_cell_move) go to the super conductor
(conductor.tasks.cross_cell_finish).
"""
from nova_lite.compute.api import flavors as compute_flavors
from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service_version
from nova_lite import quota

# vm_states a resize or migration starts from (with no task), as Nova.
MOVE_VM_STATES = (inst_obj.ACTIVE, inst_obj.STOPPED)
# compute_task RPC version of migrate_server.
MIGRATE_SERVER_VERSION = '1.2'
# compute_task RPC version with cross-cell moves; the service version
# every nova-compute must run for one.
CROSS_CELL_VERSION = '1.3'
CROSS_CELL_SERVICE_VERSION = 11

_conductor = None


def _compute_task():
    global _conductor
    if _conductor is None:
        _conductor = conductor_rpcapi.ComputeTaskAPI()
    return _conductor


def _check_source(context, instance, action):
    """Lock, state, and a compute that is up and speaks the move's RPC
    (409 each), as Nova checks them before anything else."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, action, MOVE_VM_STATES)
    server_actions.check_host(instance)
    cctxt = instance.context
    services = [s for s in objects.ServiceList.get_by_host(cctxt,
                                                           instance.host)
                if s.binary == constants.COMPUTE_BINARY]
    if not services or not services[0].is_up():
        raise exception.ComputeServiceDown()
    server_actions.check_compute(instance, action,
                                  compute_rpcapi.RESIZE_VERSION)
    if not _compute_task().can_send(MIGRATE_SERVER_VERSION):
        raise exception.ComputeTooOldForAction(
            action=action, instance_uuid=instance.uuid,
            host='the conductor')


def _new_flavor(context, instance, flavor_id):
    """The flavor to resize to (400 for an unknown or disabled one, the
    server's own, or a smaller root disk)."""
    try:
        flavor = compute_flavors.get(context, str(flavor_id))
    except exception.FlavorNotFound:
        raise exception.ResizeFlavorNotFound(flavor_id=flavor_id)
    current = instance.flavor
    if flavor.flavorid == current.flavorid:
        raise exception.CannotResizeToSameFlavor()
    if flavor.disabled:
        raise exception.ResizeFlavorNotFound(flavor_id=flavor_id)
    if flavor.root_gb == 0 and current.root_gb != 0:
        raise exception.CannotResizeDisk(
            reason='Resize to zero disk flavor is not allowed.')
    if flavor.root_gb < current.root_gb:
        raise exception.CannotResizeDisk(
            reason='Resize to a flavor with a smaller root disk (%d GB, '
                   'the server has %d GB) is not allowed.'
                   % (flavor.root_gb, current.root_gb))
    return embedded_flavor.EmbeddedFlavor.from_flavor(flavor)


def _check_target_host(instance, host, allow_cross_cell=False):
    """An administrator's target host: a compute of the server's cell,
    or (allow_cross_cell: a cross-cell move is allowed) of any cell, as
    its host mapping in the API DB places it (400 for an unknown host or
    the server's own)."""
    if host == instance.host:
        raise exception.CannotMigrateToSameHost()
    if _has_compute(instance.context, host):
        return
    if allow_cross_cell:
        try:
            mapping = objects.HostMapping.get_by_host(instance.context,
                                                      host)
        except exception.HostMappingNotFound:
            mapping = None
        if mapping is not None:
            with nova_context.target_cell(instance.context,
                                          mapping.cell_mapping) as cctxt:
                if _has_compute(cctxt, host):
                    return
    raise exception.MigrateHostNotFound(host=host)


def _has_compute(cell_context, host):
    return any(s.binary == constants.COMPUTE_BINARY
               for s in objects.ServiceList.get_by_host(cell_context, host))


def _allow_cross_cell(context, cross_cell_allowed):
    """The gate of a cross-cell move (see the module doc)."""
    if not cross_cell_allowed:
        return False
    if not _compute_task().can_send(CROSS_CELL_VERSION):
        return False
    try:
        mins = service_version.get_minimum_version_all_cells(
            context, [constants.COMPUTE_BINARY])
    except exception.CellsNotResponding:
        return False
    return mins.get(constants.COMPUTE_BINARY, 0) >= \
        CROSS_CELL_SERVICE_VERSION


def _begin(instance, task_state, action):
    """Set task_state with a compare-and-swap on "no task": of two
    racing requests (or a request and a delete) exactly one wins, the
    other gets 409."""
    instance.task_state = task_state
    try:
        instance.save(expected_task_state=[None])
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))


def _check_quota(context, instance, to_flavor, from_flavor, revert=False):
    """TooManyInstances (403) if going from from_flavor to to_flavor
    needs more cores or ram than the owner's quota has left."""
    quota.check_resize(context, instance.project_id, instance.user_id,
                       to_flavor, from_flavor, revert=revert)


def _start_move(context, instance, action, flavor, cross_cell,
                host=None):
    """cross_cell: the gate's answer (_allow_cross_cell)."""
    instance.progress = 0
    # The task state and the action it starts commit together.
    with inst_obj.transaction(instance.context):
        _begin(instance, inst_obj.RESIZE_PREP, action)
        instance_events.record_action(instance.context, instance, action)
    if cross_cell:
        _compute_task().migrate_server(context, instance, flavor, host=host,
                                       allow_cross_cell=True)
    else:
        _compute_task().migrate_server(context, instance, flavor, host=host)


def resize(context, instance, flavor_id, auto_disk_config=None,
           cross_cell_allowed=False):
    """Resize to flavor_id: resize_prep ... VERIFY_RESIZE. The server's
    OS-DCF:diskConfig becomes auto_disk_config (MANUAL when None), as in
    Nova. cross_cell_allowed: the caller may move the server to another
    cell (the cross-cell policy, checked by the caller)."""
    _check_source(context, instance, 'resize')
    flavor = _new_flavor(context, instance, flavor_id)
    _check_quota(context, instance, flavor, instance.flavor)
    instance.auto_disk_config = bool(auto_disk_config)
    _start_move(context, instance, actions.RESIZE, flavor,
                _allow_cross_cell(context, cross_cell_allowed))


def migrate(context, instance, host=None, cross_cell_allowed=False):
    """Cold-migrate (same flavor) to another host of the server's cell
    (or of any cell when the cross-cell gate is open), host if an
    administrator named one: resize_prep ... VERIFY_RESIZE. As Nova's,
    a migration sets OS-DCF:diskConfig to MANUAL. cross_cell_allowed: as
    resize's."""
    _check_source(context, instance, 'migrate')
    cross_cell = _allow_cross_cell(context, cross_cell_allowed)
    if host is not None:
        _check_target_host(instance, host, allow_cross_cell=cross_cell)
    instance.auto_disk_config = False
    _start_move(context, instance, actions.MIGRATE, instance.flavor,
                cross_cell, host=host)


def _finished_migration(instance):
    try:
        return objects.Migration.get_in_progress_by_instance(
            instance.context, instance.uuid, [migration_obj.FINISHED])
    except exception.MigrationNotFound:
        raise exception.InvalidInput(reason='Instance has not been '
                                            'resized.')


def _claim_migration(instance, migration, status, action):
    migration.status = status
    try:
        migration.save(expected_status=[migration_obj.FINISHED])
    except exception.MigrationStatusConflict:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=status)


def _check_resized(context, instance, action):
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, action, (inst_obj.RESIZED,))
    server_actions.check_host(instance)


def _send_finish(context, instance, migration, verb, host):
    """Record a confirm or revert (verb) and send it: a cross-cell move
    to the super conductor (<verb>_snapshot_based_resize), any other to
    host's compute (<verb>_resize)."""
    action = {'confirm': actions.CONFIRM_RESIZE,
              'revert': actions.REVERT_RESIZE}[verb]
    instance_events.record_action(instance.context, instance, action)
    if migration.cross_cell_move:
        getattr(_compute_task(), '%s_snapshot_based_resize' % verb)(
            context, instance, migration)
        return
    getattr(server_actions.compute_rpc(), '%s_resize' % verb)(
        instance.context, host, instance, migration)


def confirm_resize(context, instance):
    """Keep the new flavor: the source host is cleaned up and its
    allocation (held by the migration) released; ACTIVE (SHUTOFF if it
    was stopped)."""
    _check_resized(context, instance, 'confirmResize')
    migration = _finished_migration(instance)
    _claim_migration(instance, migration, migration_obj.CONFIRMING,
                     'confirmResize')
    _send_finish(context, instance, migration, 'confirm',
                 migration.source_compute)


def revert_resize(context, instance):
    """Go back to the old flavor on the source host: resize_reverting,
    then ACTIVE (SHUTOFF if it was stopped) there, migration reverted.
    The request spec gets the old flavor back."""
    _check_resized(context, instance, 'revertResize')
    migration = _finished_migration(instance)
    if instance.old_flavor is not None:
        # Going back to a larger flavor needs room again (Nova).
        _check_quota(context, instance, instance.old_flavor,
                     instance.flavor, revert=True)
    _begin(instance, inst_obj.RESIZE_REVERTING, 'revertResize')
    try:
        _claim_migration(instance, migration, migration_obj.REVERTING,
                         'revertResize')
    except exception.InstanceInvalidState:
        instance.task_state = None
        instance.save(expected_task_state=[inst_obj.RESIZE_REVERTING])
        raise
    if instance.old_flavor is not None:
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                            instance.uuid)
            spec.flavor = instance.old_flavor
            spec.save()
        except exception.RequestSpecNotFound:
            pass
    _send_finish(context, instance, migration, 'revert',
                 migration.dest_compute)


def confirm_on_delete(context, instance):
    """A server deleted while its source keeps a set-aside guest (in
    VERIFY_RESIZE, or mid-move once the destination is its host): a
    confirm cast to the source drops that guest and the migration's
    allocation, while the delete goes to the instance's host. In
    VERIFY_RESIZE the migration is confirmed (compare-and-swap from
    finished); mid-move it is left to the steps, which end it in error.
    False when there is nothing to clean on a source."""
    ctx = instance.migration_context
    if not ctx or instance.host == ctx.get('source_compute'):
        return False
    try:
        migration = objects.Migration.get_by_uuid(instance.context,
                                                  ctx['migration_uuid'])
        if instance.vm_state == inst_obj.RESIZED:
            migration.status = migration_obj.CONFIRMING
            migration.save(expected_status=[migration_obj.FINISHED])
    except (exception.MigrationNotFound,
            exception.MigrationStatusConflict):
        return False
    if migration.cross_cell_move:
        if instance.vm_state != inst_obj.RESIZED:
            return False
        _compute_task().confirm_snapshot_based_resize(
            context, instance, migration)
        return True
    server_actions.compute_rpc().confirm_resize(
        instance.context, migration.source_compute, instance, migration)
    return True
