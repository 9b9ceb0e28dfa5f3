"""The super conductor's confirm and revert of a cross-cell resize
(compute_task RPC 1.3), called with the target cell's copies of the
instance (VERIFY_RESIZE) and of the migration (confirming or
reverting, set by the API).

Confirm: the source host cleans up (kept guest, placeholder volume
attachments, the migration's source allocation), the ports' (INACTIVE)
bindings to the source host are deleted, the source copy and its rows
are hard-deleted, migration confirmed, vm_state from the power state.

Revert: the target's actions and events copied back, the source copy
shown again, the mapping back to the source cell, the target copy
hidden (that order: never two copies, never none), the destination
drops its guest, the target copy is hard-deleted, the migration's
source allocation goes back to the instance (replacing the
destination's), the source restarts the guest with the old flavor,
and the migration is reverted (last: a super conductor restarted
before then completes the revert).

Before each step base.step_boundary(name) runs (its observers).
"""
from oslo_log import log as logging

from nova_lite.compute import block_devices
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import base
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import cross_cell
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_mapping as mapping_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.volume import api as volume_api

LOG = logging.getLogger(__name__)


def _cells(context, instance, migration):
    """(source cell, target cell) of a cross-cell move."""
    source = objects.HostMapping.get_by_host(
        context, migration.source_compute).cell_mapping
    target = objects.HostMapping.get_by_host(
        context, migration.dest_compute).cell_mapping
    return source, target


def _targeted(context, cell):
    with nova_context.target_cell(context, cell) as cctxt:
        return cctxt


def confirm(context, instance, migration):
    """Confirm (see the module doc), as event
    conductor_confirm_snapshot_based_resize. A failure at the source
    leaves the server in VERIFY_RESIZE (migration finished again) with
    a fault."""
    source, target = _cells(context, instance, migration)
    sctxt, tctxt = _targeted(context, source), _targeted(context, target)
    with instance_events.EventReporter(
            tctxt, 'conductor_confirm_snapshot_based_resize', CONF.host,
            instance.uuid):
        _confirm(sctxt, tctxt, instance, migration)


def _confirm(sctxt, tctxt, instance, migration):
    uuid = instance.uuid
    try:
        base.step_boundary('confirm_at_source')
        if cross_cell.exists(sctxt, uuid):
            src_inst = objects.Instance.get_by_uuid(sctxt, uuid)
            src_mig = objects.Migration.get_by_uuid(sctxt, migration.uuid)
            compute_rpcapi.ComputeAPI(
            ).confirm_snapshot_based_resize_at_source(
                sctxt, migration.source_compute, src_inst, src_mig)
        # Idempotent: a rerun finds them gone.
        network_api.API().delete_instance_bindings(
            sctxt, uuid, migration.source_compute)
        base.step_boundary('confirm_delete_source')
        cross_cell.hard_delete(sctxt, uuid)
    except Exception as exc:
        LOG.warning('Confirming the cross-cell resize of %s failed: %s',
                    uuid, exc)
        _put_back(tctxt, instance, migration, exc, [
            migration_obj.CONFIRMING])
        raise
    base.step_boundary('confirm_finish')
    try:
        mig = objects.Migration.get_by_uuid(tctxt, migration.uuid)
        mig.status = migration_obj.CONFIRMED
        mig.hidden = False
        mig.save(expected_status=[migration_obj.CONFIRMING])
        inst = objects.Instance.get_by_uuid(tctxt, uuid)
        inst.old_flavor = inst.new_flavor = None
        inst.migration_context = None
        inst.vm_state = (instance_obj.STOPPED
                         if inst.power_state == instance_obj.SHUTDOWN
                         else instance_obj.ACTIVE)
        inst.save(expected_task_state=[None],
                  expected_vm_state=[instance_obj.RESIZED])
    except exception.NovaLiteException as exc:
        LOG.info('Instance %s moved on while its resize was confirmed: '
                 '%s', uuid, exc)


def _put_back(cctxt, instance, migration, exc, statuses):
    try:
        inst = objects.Instance.get_by_uuid(cctxt, instance.uuid)
        inst.add_fault(500, str(exc)[:255])
        mig = objects.Migration.get_by_uuid(cctxt, migration.uuid)
        mig.status = migration_obj.FINISHED
        mig.save(expected_status=statuses)
        inst.task_state = None
        inst.save(expected_task_state=[None,
                                       instance_obj.RESIZE_REVERTING])
    except exception.NovaLiteException:
        LOG.exception('Could not put %s back in VERIFY_RESIZE',
                      instance.uuid)


def revert(context, instance, migration):
    """Revert (see the module doc), as event
    conductor_revert_snapshot_based_resize (recorded in the source
    cell, where the server ends).

    A failed step is tried again once from the start (every step skips
    what is done, as a restarted super conductor's recovery does): a
    passing failure (a database error, a lost reply) still ends
    reverted. When the second try fails too, the server ends in ERROR
    with a fault and the migration in error (_revert_failed): never
    left in resize_reverting for a restart to find.
    """
    source, target = _cells(context, instance, migration)
    sctxt, tctxt = _targeted(context, source), _targeted(context, target)
    try:
        _revert_once(context, sctxt, tctxt, source, instance, migration)
    except Exception as exc:
        LOG.warning('Reverting the cross-cell resize of %s failed (%s); '
                    'trying once more', instance.uuid, exc)
        try:
            _revert_once(context, sctxt, tctxt, source, instance,
                         migration)
        except Exception as exc:
            LOG.error('Reverting the cross-cell resize of %s failed '
                      'again: %s', instance.uuid, exc)
            _revert_failed(context, sctxt, tctxt, source, instance,
                           migration, exc)
            raise


def _revert_once(context, sctxt, tctxt, source, instance, migration):
    base.step_boundary('revert_sync_to_source')
    cross_cell.sync_actions(tctxt, sctxt, instance.uuid)
    with instance_events.EventReporter(
            sctxt, 'conductor_revert_snapshot_based_resize', CONF.host,
            instance.uuid):
        _revert(context, sctxt, tctxt, source, instance, migration)


def _quietly(what, uuid, fn, *args):
    try:
        return fn(*args)
    except Exception:
        LOG.exception('After the failed revert of %s: could not %s', uuid,
                      what)


def _revert_failed(context, sctxt, tctxt, source, instance, migration,
                   exc):
    """A revert that failed twice ends in a final state (no task state,
    nothing a restart would take up again), with a fault:

    - before the mapping swap (the target copy still shown): rolled
      back to VERIFY_RESIZE -- both copies without a task state, the
      migration finished again in both cells -- so that the revert (or
      a confirm) can be asked for again;
    - past it (the source copy shown): the source copy in ERROR, the
      migration in error in both cells.

    Past the mapping swap, what the revert had
    left at the destination is finished as far as it goes: the
    destination asked to drop its guest, the target copy hard-deleted
    (a guest left behind is then an orphan its compute reaps), the
    migration's source allocation given back to the instance -- so the
    server in ERROR holds its own claim alone, and a delete frees
    everything. Each part is tried on its own: one failing does not
    keep the others from being done."""
    uuid, muuid = instance.uuid, migration.uuid
    try:
        mapped = objects.InstanceMapping.get_by_instance_uuid(
            context, uuid).cell_mapping
    except Exception:
        LOG.exception('Could not read the cell of %s', uuid)
        mapped = None
    swapped = mapped is not None and mapped.uuid == source.uuid
    shown = sctxt if swapped else tctxt
    if swapped and cross_cell.exists(tctxt, uuid):
        def drop_at_dest():
            compute_rpcapi.ComputeAPI().revert_snapshot_based_resize_at_dest(
                tctxt, migration.dest_compute,
                objects.Instance.get_by_uuid(tctxt, uuid),
                objects.Migration.get_by_uuid(tctxt, muuid))

        _quietly('drop the guest at the destination', uuid, drop_at_dest)
        _quietly('delete the target copy', uuid, cross_cell.hard_delete,
                 tctxt, uuid)
    if swapped:
        _quietly('give the source allocation back', uuid,
                 compute_inventory.placement_for(context).move_allocations,
                 context, muuid, uuid)
    for cctxt in (sctxt, tctxt):
        try:
            if not cross_cell.exists(cctxt, uuid):
                continue
            inst = objects.Instance.get_by_uuid(cctxt, uuid)
            if cctxt.cell_uuid == shown.cell_uuid:
                inst.add_fault(500, ('Reverting the resize failed: %s'
                                     % exc)[:255])
                if swapped:
                    inst.vm_state = instance_obj.ERROR
            inst.task_state = None
            inst.save()
        except Exception:
            LOG.exception('Could not end the failed revert of %s', uuid)
        try:
            mig = objects.Migration.get_by_uuid(cctxt, migration.uuid)
            mig.status = (migration_obj.ERROR if swapped
                          else migration_obj.FINISHED)
            mig.save()
        except exception.MigrationNotFound:
            pass
        except Exception:
            LOG.exception('Could not mark migration %s in error',
                          migration.uuid)


def _revert(context, sctxt, tctxt, source, instance, migration):
    uuid, muuid = instance.uuid, migration.uuid
    rpc = compute_rpcapi.ComputeAPI()
    src_inst = objects.Instance.get_by_uuid(sctxt, uuid)
    src_inst.task_state = instance_obj.RESIZE_REVERTING
    src_inst.save()
    src_mig = objects.Migration.get_by_uuid(sctxt, muuid)
    src_mig.status = migration_obj.REVERTING
    src_mig.save()
    if cross_cell.exists(tctxt, uuid):
        _sync_volumes_back(sctxt, tctxt, uuid)
    base.step_boundary('revert_mapping_swap')
    cross_cell.set_hidden(sctxt, uuid, False, muuid)
    mapping_obj.set_cell(context, [uuid], source.uuid)
    cross_cell.set_hidden(tctxt, uuid, True, muuid)
    base.step_boundary('revert_at_dest')
    try:
        tgt_inst = objects.Instance.get_by_uuid(tctxt, uuid)
        tgt_mig = objects.Migration.get_by_uuid(tctxt, muuid)
        rpc.revert_snapshot_based_resize_at_dest(
            tctxt, migration.dest_compute, tgt_inst, tgt_mig)
    except exception.InstanceNotFound:
        pass
    base.step_boundary('revert_delete_target')
    # The destination's events of the revert go with the server.
    cross_cell.sync_actions(tctxt, sctxt, uuid)
    cross_cell.hard_delete(tctxt, uuid)
    placement = compute_inventory.placement_for(context)
    if not placement.move_allocations(context, muuid, uuid):
        LOG.info('Migration %s held nothing to give back to %s', muuid,
                 uuid)
    base.step_boundary('revert_finish_at_source')
    src_inst = objects.Instance.get_by_uuid(sctxt, uuid)
    rpc.finish_revert_snapshot_based_resize_at_source(
        sctxt, migration.source_compute, src_inst, src_mig)
    # Last: until then a restart finds the revert to complete.
    src_mig.status = migration_obj.REVERTED
    src_mig.hidden = False
    src_mig.save()


_BDM_KEEP = ('source_type', 'destination_type', 'guest_format',
             'device_type', 'disk_bus', 'boot_index', 'device_name',
             'delete_on_termination', 'snapshot_id', 'volume_id',
             'volume_size', 'image_id', 'no_device', 'tag')


def _sync_volumes_back(sctxt, tctxt, uuid):
    """The source copy's volume mappings as the target copy's are (a
    volume attached or detached in VERIFY_RESIZE): a new one gets a
    reserved attachment (finish_revert at the source connects it), a
    gone one loses its placeholder attachment and its mapping."""
    target = {b.volume_id: b for b in objects.BlockDeviceMappingList
              .get_by_instance_uuid(tctxt, uuid) if b.volume_id}
    source = {b.volume_id: b for b in objects.BlockDeviceMappingList
              .get_by_instance_uuid(sctxt, uuid) if b.volume_id}
    api = volume_api.API()
    for volume_id, bdm in target.items():
        if volume_id in source:
            source[volume_id].delete_on_termination = \
                bdm.delete_on_termination
            source[volume_id].save()
            continue
        new = objects.BlockDeviceMapping(sctxt, instance_uuid=uuid, **{
            name: getattr(bdm, name) for name in _BDM_KEEP})
        new.attachment_id = api.attachment_create(sctxt, volume_id,
                                                  uuid)['id']
        new.create()
    for volume_id, bdm in source.items():
        if volume_id not in target:
            block_devices.release(sctxt, [bdm])
            bdm.destroy()
