"""The compute API for a server's metadata (/servers/{id}/metadata),
and the shared ground of a server's sub-resources: find the server
(404; the caller then checks policy on the record) and change it in its
cell through the Instance object.

Reads come from the server's record (a build request or its cell's
instance: nova_lite.compute.api.server_records.ServerRecord). Writes go to the
instance in its cell, as Nova's compute API writes them:

- a locked server refuses them (409) unless the caller is an
  administrator;
- the server must have been launched and be active, paused, suspended
  or stopped with no task running (409 otherwise: a server still
  building, a build request, one in error or being deleted);
- the instance is read, changed and saved in one transaction holding
  its row's write lock, so two changes at once (two merges) do not
  lose each other's keys, and the states checked are those written
  over (a change racing a state change is a 409, nothing written);
- a server carries at most ``[DEFAULT] metadata_items`` items (Nova's
  metadata quota; MetadataLimitExceeded, 403); keys and values are
  validated by the API's schemas.

Unlike Nova, no compute is told of the change (its hypervisor has no
guest metadata to refresh).
"""
import contextlib

from nova_lite.compute.api import server_listing
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as instance_obj
from nova_lite import quota

# The vm_states in which a server's metadata may change (no task
# running), as in Nova's compute API.
METADATA_VM_STATES = (instance_obj.ACTIVE, 'paused', 'suspended',
                      instance_obj.STOPPED)


def record(context, server_id):
    """The server's record, which the functions below take (the caller
    checks policy on it first); InstanceNotFound (404) if the caller
    cannot see it."""
    return server_listing.get(context, server_id)


def check_state(rec_or_instance, action, vm_states, task_states=None):
    """InstanceInvalidState (409) unless the server is in one of
    vm_states (and, with task_states, one of those task states)."""
    server = rec_or_instance
    if server.vm_state not in vm_states:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=server.uuid, attr='vm_state',
            state=server.vm_state)
    if task_states is not None and server.task_state not in task_states:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=server.uuid, attr='task_state',
            state=server.task_state)


@contextlib.contextmanager
def cell_context(context, rec, action):
    """context targeted at the server's cell, to change it there; a
    build request (no cell yet) is an InstanceInvalidState (409)."""
    mapping = None
    if not rec.build_request:
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, rec.uuid)
        except exception.InstanceMappingNotFound:
            raise exception.InstanceNotFound(instance_id=rec.uuid)
    if mapping is None or mapping.cell_mapping is None:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=rec.uuid, attr='vm_state',
            state=rec.vm_state or instance_obj.BUILDING)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        yield cctxt


@contextlib.contextmanager
def instance_in_cell(context, rec, action):
    """The server's Instance in its cell, to change and save() in the
    block: read and written in one transaction that holds its row's
    write lock, so concurrent changes of one server do not lose each
    other's writes. A build request (no cell yet) is an
    InstanceInvalidState (409)."""
    with cell_context(context, rec, action) as cctxt:
        with instance_obj.locked(cctxt, rec.uuid):
            yield objects.Instance.get_by_uuid(cctxt, rec.uuid)


def save_in_states(instance, action, vm_states, task_states):
    """instance.save() only while it is still in vm_states and
    task_states (checked under its row lock); a 409 naming action
    otherwise, and nothing written."""
    try:
        instance.save(expected_vm_state=list(vm_states),
                      expected_task_state=list(task_states))
    except exception.Conflict as exc:
        if isinstance(exc, exception.InstanceInvalidState):
            raise exception.InstanceInvalidState(
                action=action, instance_uuid=instance.uuid,
                attr='vm_state', state=exc.kwargs.get('state'))
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))


def check_quota(metadata):
    """MetadataLimitExceeded (403) if metadata holds more items than a
    server may carry."""
    allowed = CONF.metadata_items
    if allowed >= 0 and len(metadata or {}) > allowed:
        raise exception.MetadataLimitExceeded(allowed=allowed)


def _check_writable(context, instance, action):
    if instance.locked and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)
    check_state(instance, action, METADATA_VM_STATES, [None])
    if not instance.launched_at:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='launched_at',
            state=None)


# --- reads -------------------------------------------------------------

def get_all(context, rec):
    """{key: value} of the server's metadata (rec: its record)."""
    return dict(rec.metadata)


def get_item(context, rec, key):
    """The value of one key; InstanceMetadataNotFound (404) if unset."""
    metadata = get_all(context, rec)
    if key not in metadata:
        raise exception.InstanceMetadataNotFound()
    return metadata[key]


# --- writes --------------------------------------------------------------

def _write(context, rec, change, action):
    """Apply change(current metadata) -> new metadata to the server of
    rec in its cell; returns the metadata saved."""
    with instance_in_cell(context, rec, action) as instance:
        new = change(dict(instance.metadata))
        _check_writable(context, instance, action)
        check_quota(new)
        quota.check_metadata(context, instance.project_id, new)
        instance.metadata = new
        save_in_states(instance, action, METADATA_VM_STATES, [None])
        return dict(instance.metadata)


def update(context, rec, metadata, replace=False):
    """Merge metadata into the server's (replace: make it the server's
    whole metadata); returns the server's metadata after."""
    def change(current):
        return dict(metadata) if replace else dict(current, **metadata)
    return _write(context, rec, change, 'update metadata')


def delete_item(context, rec, key):
    """Remove one key; InstanceMetadataNotFound (404) if unset (before
    any state check, as in Nova)."""
    def change(current):
        if key not in current:
            raise exception.InstanceMetadataNotFound()
        del current[key]
        return current
    get_item(context, rec, key)
    _write(context, rec, change, 'delete metadata')
