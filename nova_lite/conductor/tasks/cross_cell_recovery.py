"""A super conductor's start-up recovery of cross-cell moves a stop
interrupted (killed between two steps of cross_cell_migrate or
cross_cell_finish).

Every cell is searched for cross-cell migrations not in a final status;
each move (its copies in the source and the target cell) is then either
completed or rolled back, so that one visible copy of the server, its
mapping in that copy's cell and allocations matching it remain:

- a forward move whose destination had not finished (the target copy
  of the migration not finished): rolled back -- the destination's
  guest and attachments dropped (its own only: a target copy made
  before the destination's prep still names the source's
  attachments), the target copy hard-deleted, the
  source copy visible and mapped, its guest restarted (or its task
  cleared), the migration's source allocation back to the instance,
  the snapshot image deleted, the migration in error, a fault;
- a forward move finished at the destination (crash during the
  mapping swap): the swap is completed (VERIFY_RESIZE in the target);
- a confirm (confirming): completed (cross_cell_finish.confirm, which
  skips what is done);
- a revert (reverting): completed (cross_cell_finish.revert, likewise).
"""
from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import cross_cell_finish
from nova_lite.conductor.tasks import cross_cell_migrate
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import cross_cell
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_mapping as mapping_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

FORWARD = (migration_obj.PRE_MIGRATING, migration_obj.MIGRATING,
           migration_obj.POST_MIGRATING)
UNFINISHED = FORWARD + (migration_obj.FINISHED, migration_obj.CONFIRMING,
                        migration_obj.REVERTING)


def _find(context):
    """{migration uuid: {cell uuid: (cell, Migration)}} of every
    unfinished cross-cell migration."""
    found = {}
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            for uuid in cross_cell.migrations_in(cctxt, UNFINISHED):
                found.setdefault(uuid, {})[cell.uuid] = (
                    cctxt, objects.Migration.get_by_uuid(cctxt, uuid))
    return found


def recover(context):
    """Complete or roll back each interrupted cross-cell move (see the
    module doc). Returns {migration uuid: 'rolled back' | 'completed'
    | 'confirmed' | 'reverted'} for what it acted on."""
    done = {}
    for uuid, copies in _find(context).items():
        try:
            outcome = _recover_one(context, copies)
        except Exception:
            LOG.exception('Could not recover cross-cell move %s', uuid)
            continue
        if outcome:
            LOG.warning('Interrupted cross-cell move %s %s', uuid, outcome)
            done[uuid] = outcome
    return done


def _recover_one(context, copies):
    any_mig = next(iter(copies.values()))[1]
    try:
        source = objects.HostMapping.get_by_host(
            context, any_mig.source_compute).cell_mapping
    except exception.NovaLiteException:
        return None
    target = None
    if any_mig.dest_compute:
        target = objects.HostMapping.get_by_host(
            context, any_mig.dest_compute).cell_mapping
    with nova_context.target_cell(context, source) as sctxt:
        pass
    tctxt = None
    if target is not None:
        with nova_context.target_cell(context, target) as tctxt:
            pass
    src_mig = copies.get(source.uuid, (None, None))[1]
    tgt_mig = copies.get(target.uuid, (None, None))[1] if target else None
    statuses = {m.status for m in (src_mig, tgt_mig) if m is not None}
    # The copy the API works on: the mapped cell's.
    mapped = objects.InstanceMapping.get_by_instance_uuid(
        context, any_mig.instance_uuid).cell_mapping
    if migration_obj.CONFIRMING in statuses:
        mig = tgt_mig or src_mig
        inst = objects.Instance.get_by_uuid(tctxt, mig.instance_uuid)
        cross_cell_finish.confirm(context, inst, mig)
        return 'confirmed'
    if migration_obj.REVERTING in statuses:
        mig = tgt_mig or src_mig
        ctxt = tctxt if tgt_mig is not None else sctxt
        try:
            inst = objects.Instance.get_by_uuid(ctxt, mig.instance_uuid)
        except exception.InstanceNotFound:
            inst = objects.Instance.get_by_uuid(sctxt, mig.instance_uuid)
        cross_cell_finish.revert(context, inst, mig)
        return 'reverted'
    if tgt_mig is not None and tgt_mig.status == migration_obj.FINISHED:
        if src_mig is None or src_mig.status == migration_obj.FINISHED:
            if mapped.uuid == target.uuid and not tgt_mig.hidden:
                return None      # a move in VERIFY_RESIZE: nothing to do
        uuid, muuid = tgt_mig.instance_uuid, tgt_mig.uuid
        cross_cell.set_hidden(tctxt, uuid, False, muuid)
        mapping_obj.set_cell(context, [uuid], target.uuid)
        cross_cell.set_hidden(sctxt, uuid, True, muuid)
        if src_mig is not None:
            src_mig.status = migration_obj.FINISHED
            src_mig.save()
        return 'completed'
    if src_mig is not None and src_mig.status in FORWARD:
        _roll_back(context, sctxt, tctxt, source, src_mig, tgt_mig)
        return 'rolled back'
    return None


def _forget_source_attachments(sctxt, tctxt, uuid):
    """The target copy's volume mappings that still name the source's
    attachments (copied by the target DB setup; the destination's prep
    had not replaced them by its own yet) forget them, so that the
    destination's cleanup deletes only attachments of its own, never
    the ones the source keeps using."""
    kept = {b.attachment_id for b in objects.BlockDeviceMappingList
            .get_by_instance_uuid(sctxt, uuid) if b.attachment_id}
    for bdm in objects.BlockDeviceMappingList.get_by_instance_uuid(
            tctxt, uuid):
        if bdm.attachment_id in kept:
            bdm.attachment_id = None
            bdm.save()


def _roll_back(context, sctxt, tctxt, source, src_mig, tgt_mig):
    uuid, muuid = src_mig.instance_uuid, src_mig.uuid
    guest_set_aside = src_mig.status == migration_obj.POST_MIGRATING
    rpc = compute_rpcapi.ComputeAPI()
    # One visible copy, in the source cell, mapped there.
    cross_cell.set_hidden(sctxt, uuid, False, muuid)
    mapping_obj.set_cell(context, [uuid], source.uuid)
    if tctxt is not None and cross_cell.exists(tctxt, uuid):
        cross_cell.set_hidden(tctxt, uuid, True, muuid)
        _forget_source_attachments(sctxt, tctxt, uuid)
        try:
            rpc.revert_snapshot_based_resize_at_dest(
                tctxt, src_mig.dest_compute,
                objects.Instance.get_by_uuid(tctxt, uuid),
                objects.Migration.get_by_uuid(tctxt, muuid))
        except Exception:
            LOG.exception('Could not clean %s up at %s', uuid,
                          src_mig.dest_compute)
        cross_cell.sync_actions(tctxt, sctxt, uuid)
        cross_cell.hard_delete(tctxt, uuid)
    placement = compute_inventory.placement_for(context)
    placement.move_allocations(context, muuid, uuid)
    images = image_api.API()
    for image in images.get_all(context, {
            'name': cross_cell_migrate.snapshot_name(muuid)}):
        try:
            images.delete(context, image['id'])
        except exception.ImageNotFound:
            pass
    src_mig.status = migration_obj.ERROR
    src_mig.save()
    inst = objects.Instance.get_by_uuid(sctxt, uuid)
    inst.add_fault(500, 'Cross-cell resize interrupted by a restart of '
                        'the super conductor; rolled back.')
    if (inst.task_state in (instance_obj.RESIZE_MIGRATING,
                            instance_obj.RESIZE_MIGRATED)
            or guest_set_aside):
        rpc.finish_revert_snapshot_based_resize_at_source(
            sctxt, src_mig.source_compute, inst, src_mig)
        return
    old_vm_state = (inst.migration_context or {}).get(
        'old_vm_state') or inst.vm_state
    inst.migration_context = None
    inst.old_flavor = inst.new_flavor = None
    inst.vm_state = old_vm_state
    inst.task_state = None
    inst.save()
