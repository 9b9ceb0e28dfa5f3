"""The compute API for /servers/{id}/shares (2.97): list, show, attach
and detach a server's shares of the shares service.

A share is attached only to a STOPPED server and detached only from a
STOPPED or ERROR one (InstanceInvalidState, 409, as Nova). Attach
checks the share (ShareNotFound 404; not available, or of another
protocol than NFS and CephFS, 409), writes the mapping in the
server's cell as ``attaching`` (a unique key per server and share and
per server and tag: 409 for a second one), records the
``share_attach`` instance action, grants the server access to the share
(an access rule of type ``user`` to the server's uuid) and leaves the
mapping ``inactive``; if the grant fails the mapping is removed again.
Detach moves the mapping to ``detaching``, records ``share_detach``,
revokes the rule and forgets the mapping. The embedded hypervisor
mounts nothing: an ``inactive`` mapping of a server that runs
(vm_state active) is shown ``active``, as Nova's mapping is once the
guest has booted with it. A deleted server's mappings go with its
rows, its access rules with its deletion (compute terminate or local
delete); a cross-cell move copies the mappings. Both send
instance.share_attach / share_detach start and end notifications from
the API, where Nova's compute sends them.
"""
from oslo_utils import uuidutils

from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions
from nova_lite.objects import share_mapping as sm_obj
from nova_lite.share import api as share_api

# The grant that lets a server mount a share.
ACCESS_TYPE = 'user'
# The service version from which a compute revokes a deleted server's
# share grants: shares are attached only to servers of such computes.
SHARES_SERVICE_VERSION = 25
# The protocols a server mounts (Nova's: virtiofs over NFS or CephFS).
PROTOCOLS = ('NFS', 'CEPHFS')

get_server = server_actions.get


def _shown(mapping, instance):
    """The mapping as the API shows it: inactive is active while the
    server runs."""
    if mapping.status == sm_obj.INACTIVE and \
            instance.vm_state == inst_obj.ACTIVE:
        mapping.status = sm_obj.ACTIVE
        mapping.obj_reset_changes()
    return mapping


def list_shares(instance):
    """The server's ShareMappings, oldest first."""
    if not instance.obj_attr_is_set('id'):
        return []   # a build request: nothing attached yet
    return [_shown(m, instance) for m in
            objects.ShareMapping.get_by_instance_uuid(instance.context,
                                                      instance.uuid)]


def get_share(instance, share_id):
    """The ShareMapping of share_id on the server; ShareNotFound (404)
    when it has none."""
    if not instance.obj_attr_is_set('id'):
        raise exception.ShareNotFound(share_id=share_id)
    return _shown(objects.ShareMapping.get_by_instance_uuid_and_share_id(
        instance.context, instance.uuid, share_id), instance)


def attach(context, instance, share_id, tag=None):
    """Attach share_id to the stopped server (module doc); returns the
    mapping."""
    server_actions.check_state(instance, 'create share', (inst_obj.STOPPED,),
                               task_states=None)
    server_actions.check_compute_service_version(
        instance, 'create share', SHARES_SERVICE_VERSION)
    api = share_api.API()
    share = api.get(context, share_id)               # 404 when missing
    if share['status'] != share_api.AVAILABLE:
        raise exception.ShareStatusIncorrect(share_id=share_id,
                                             status=share['status'])
    if share['share_proto'] not in PROTOCOLS:
        raise exception.ShareProtocolNotSupported(
            share_proto=share['share_proto'])
    cctxt = instance.context
    mapping = objects.ShareMapping(
        cctxt, uuid=uuidutils.generate_uuid(), instance_uuid=instance.uuid,
        share_id=share['id'], status=sm_obj.ATTACHING,
        tag=tag or share['id'], export_location=share['export_location'],
        share_proto=share['share_proto'])
    mapping.create()
    instance_events.record_action(cctxt, instance, actions.SHARE_ATTACH)
    with notify.action(context, instance, instance.host, 'share_attach',
                       source=notify.SOURCE_API):
        try:
            api.allow(context, share['id'], ACCESS_TYPE, instance.uuid)
        except Exception:
            mapping.destroy()
            raise
        mapping.set_status(sm_obj.INACTIVE)
    return _shown(mapping, instance)


def detach(context, instance, share_id):
    """Detach share_id from the stopped (or ERROR) server."""
    server_actions.check_state(instance, 'delete share',
                               (inst_obj.STOPPED, inst_obj.ERROR),
                               task_states=None)
    cctxt = instance.context
    mapping = objects.ShareMapping.get_by_instance_uuid_and_share_id(
        cctxt, instance.uuid, share_id)                      # 404
    mapping.set_status(sm_obj.DETACHING)
    instance_events.record_action(cctxt, instance, actions.SHARE_DETACH)
    with notify.action(context, instance, instance.host, 'share_detach',
                       source=notify.SOURCE_API):
        try:
            share_api.API().deny(context, mapping.share_id, ACCESS_TYPE,
                                 instance.uuid)
        except Exception:
            mapping.set_status(sm_obj.ERROR)
            raise
        mapping.destroy()


def revoke_all(context, instance_uuid):
    """Revoke every share grant of a server being deleted."""
    share_api.API().deny_all(context, ACCESS_TYPE, instance_uuid)
