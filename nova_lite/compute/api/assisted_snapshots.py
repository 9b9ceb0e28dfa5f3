"""The compute API for /os-assisted-volume-snapshots: the volume service
asks the compute of the server a volume is attached to for a snapshot
of the volume's file on the hypervisor (a qcow2 overlay), or to delete
one, as Cinder's file-based drivers ask Nova.

The server is the one the volume is attached to (the volume service's
attachments, then the server's block device mapping of it). Refusals are
400 as Nova answers them: no server has the volume (or the volume does
not exist), several do (multi-attach), the server has no host, is busy
with a task, or its compute is older than compute RPC 1.18. Then a cast
to the compute, whose driver does the work; create answers
``{"snapshot": {"id", "volumeId"}}`` (``id`` is create_info's ``id``, as
in Nova).
"""
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import volume_attachments
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.volume import api as volume_api


def _not_attached(volume_id):
    return exception.Invalid(
        reason='No volume Block Device Mapping with id %s.' % volume_id)


def _server_of(context, volume_id, action):
    """The Instance volume_id is attached to, ready for action."""
    try:
        volume = volume_api.API().get(context, volume_id)
    except exception.VolumeNotFound:
        raise _not_attached(volume_id)
    servers = sorted({a['server_id'] for a in volume['attachments']})
    if not servers:
        raise _not_attached(volume_id)
    if len(servers) > 1:
        raise exception.Invalid(
            reason='Volume %s is attached to more than one server: %s is '
                   'not supported for multi-attach volumes.'
                   % (volume_id, action))
    try:
        instance = server_actions.get(context, servers[0])
        volume_attachments.get_attachment(instance, volume_id)
        server_actions.check_compute(
            instance, action, compute_rpcapi.VOLUME_SNAPSHOT_VERSION)
    except (exception.InstanceNotFound, exception.VolumeNotAttached):
        raise _not_attached(volume_id)
    except (exception.InstanceNotReady,
            exception.ComputeTooOldForAction) as exc:
        raise exception.Invalid(reason=exc.format_message())
    if instance.task_state is not None:
        raise exception.Invalid(
            reason="Cannot '%s' instance %s while it is in task_state %s"
                   % (action, instance.uuid, instance.task_state))
    return instance


def create(context, volume_id, create_info):
    """Snapshot volume_id's file (create_info validated by the API)."""
    instance = _server_of(context, volume_id, 'volume_snapshot_create')
    server_actions.compute_rpc().volume_snapshot_create(
        instance.context, instance, volume_id, create_info)
    return {'id': create_info.get('id'), 'volumeId': volume_id}


def delete(context, volume_id, snapshot_id, delete_info):
    """Delete snapshot_id of volume_id's file."""
    instance = _server_of(context, volume_id, 'volume_snapshot_delete')
    server_actions.compute_rpc().volume_snapshot_delete(
        instance.context, instance, volume_id, snapshot_id, delete_info)
