"""The record of a move (resize, cold migration, cross-cell resize) that
an instance carries while it moves, shared by the same-cell steps
(resize_tasks), the cross-cell steps (cross_cell_tasks) and the
recovery of interrupted moves (resize_recovery).

From the destination's prep until a confirm or revert, the instance
holds old_flavor, new_flavor and a migration context naming both ends
and the vm_state it had before the move; as_before puts it back.
"""
from nova_lite.objects import instance as instance_obj

OLD_VM_STATE = 'old_vm_state'      # key of the migration context


def migration_context(migration, old_vm_state):
    """The instance's record of the move in progress."""
    return {'migration_id': migration.id, 'migration_uuid': migration.uuid,
            'source_compute': migration.source_compute,
            'source_node': migration.source_node,
            'dest_compute': migration.dest_compute,
            'dest_node': migration.dest_node,
            'migration_type': migration.migration_type,
            OLD_VM_STATE: old_vm_state}


def set_flavor(instance, flavor):
    """instance runs with flavor (its copy and the flat columns)."""
    instance.flavor = flavor
    instance.instance_type_id = flavor.id
    instance.memory_mb = flavor.memory_mb
    instance.vcpus = flavor.vcpus
    instance.root_gb = flavor.root_gb
    instance.ephemeral_gb = flavor.ephemeral_gb


def disk_gb(flavor, volume_backed=False):
    """The local disk a guest of flavor needs (a volume-backed server's
    root disk is its volume)."""
    return (0 if volume_backed else flavor.root_gb) + flavor.ephemeral_gb


def old_vm_state(instance):
    """The vm_state the instance had before its move (active if its
    record does not say)."""
    ctx = instance.migration_context or {}
    return ctx.get(OLD_VM_STATE) or instance_obj.ACTIVE


def powers_on(instance):
    """Whether the guest runs again after the move (it was not
    stopped)."""
    return old_vm_state(instance) != instance_obj.STOPPED


def as_before(instance, migration, flavor):
    """instance as it was before the move (not saved): on the source,
    with flavor (None: its current one), its vm_state and power state,
    no record of the move."""
    before = old_vm_state(instance)
    instance.host = migration.source_compute
    instance.node = migration.source_node
    if flavor is not None:
        set_flavor(instance, flavor)
    instance.old_flavor = instance.new_flavor = None
    instance.migration_context = None
    instance.vm_state = before
    instance.power_state = (instance_obj.SHUTDOWN
                            if before == instance_obj.STOPPED
                            else instance_obj.RUNNING)
