"""POST /servers/{server_id}/action: one small handler per action,
routed by the body's one key (the route table, routes.py, lists them).

Each handler reads the same way: find the server (404 for another
project's), check policy against its owner, call the compute API
(nova_lite.compute.api.server_actions), which answers 409 for a state or a
lock that refuses the action. Every action answers 202 with no body
(but resetNetwork, gone with nova-network: 410).

Adding an action (e.g. rebuild): a schema in schemas/server_actions.py,
a policy in nova_lite/policies/server_actions.py, a function in
nova_lite.compute.api.server_actions, an ``action('rebuild', ...)`` entry
in routes.py, and here:

    @validation.schema(schemas.rebuild)
    def rebuild(self, body):
        ctxt, instance = self._authorized(policies.REBUILD)
        server_actions.rebuild(ctxt, instance, ...)
"""
import webob.exc

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute import floating_ips
from nova_lite.api.openstack.compute.schemas import server_actions as schemas
from nova_lite.api.openstack.compute import security_groups
from nova_lite.api.openstack.compute import server_backup_actions
from nova_lite.api.openstack.compute import server_console_actions
from nova_lite.api.openstack.compute import server_evacuate_actions
from nova_lite.api.openstack.compute import server_image_actions
from nova_lite.api.openstack.compute import server_live_migrate_actions
from nova_lite.api.openstack.compute import server_resize_actions
from nova_lite.api.openstack.compute import server_shelve_actions
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_actions
from nova_lite.policies import server_actions as policies


def _owner(server):
    """The policy target of an action on server (an Instance or its
    InstanceMapping): its owner's project and user."""
    return {'project_id': server.project_id, 'user_id': server.user_id}


class ServerActionController(server_image_actions.ImageActions,
                             server_resize_actions.ResizeActions,
                             server_live_migrate_actions.LiveMigrateActions,
                             server_console_actions.ConsoleActions,
                             server_evacuate_actions.EvacuateActions,
                             server_shelve_actions.ShelveActions,
                             server_backup_actions.BackupActions,
                             security_groups.SecurityGroupActions,
                             floating_ips.FloatingIPActions,
                             wsgi.ActionController):
    """/servers/{server_id}/action (rebuild and createImage are in
    server_image_actions; resize, migrate, confirmResize and
    revertResize in server_resize_actions; addSecurityGroup and
    removeSecurityGroup in security_groups; addFloatingIp,
    removeFloatingIp, addFixedIp and removeFixedIp in floating_ips)"""

    def __init__(self, server_id):
        self.server_id = server_id

    def _authorized(self, rule):
        """(context, instance) once rule allows the caller on the
        server; InstanceNotFound (404) first for another project's."""
        ctxt = wsgi.request_context()
        instance = server_actions.get(ctxt, self.server_id)
        ctxt.can(rule, target=_owner(instance))
        return ctxt, instance

    def _act(self, rule, action, *args):
        """action(context, instance, *args) once rule allows the caller
        on the server's owner, as its instance mapping names them (404
        first for another project's), the instance read in the action's
        own write transaction (server_actions.acting_on): policy is
        checked before that transaction opens, on a row the action
        reads anyway."""
        ctxt = wsgi.request_context()
        mapping = server_actions.get_mapping(ctxt, self.server_id)
        ctxt.can(rule, target=_owner(mapping))
        with server_actions.acting_on(ctxt, mapping) as instance:
            action(ctxt, instance, *args)

    @validation.schema(schemas.stop)
    def stop(self, body):
        self._act(policies.STOP, server_actions.stop)

    @validation.schema(schemas.start)
    def start(self, body):
        self._act(policies.START, server_actions.start)

    @validation.schema(schemas.reboot)
    def reboot(self, body):
        self._act(policies.REBOOT, server_actions.reboot,
                  body['reboot']['type'].upper())

    @validation.schema(schemas.pause)
    def pause(self, body):
        self._act(policies.PAUSE, server_actions.pause)

    @validation.schema(schemas.unpause)
    def unpause(self, body):
        self._act(policies.UNPAUSE, server_actions.unpause)

    @validation.schema(schemas.suspend)
    def suspend(self, body):
        self._act(policies.SUSPEND, server_actions.suspend)

    @validation.schema(schemas.resume)
    def resume(self, body):
        self._act(policies.RESUME, server_actions.resume)

    @validation.schema(schemas.lock, av.MIN, av.before(
        av.SERVER_LOCKED_REASON))
    @validation.schema(schemas.lock_v273, av.SERVER_LOCKED_REASON)
    def lock(self, body):
        ctxt, instance = self._authorized(policies.LOCK)
        reason = None
        if wsgi.api_version() >= av.SERVER_LOCKED_REASON:
            reason = (body['lock'] or {}).get('locked_reason')
        server_actions.lock(ctxt, instance, reason=reason)

    @validation.schema(schemas.unlock)
    def unlock(self, body):
        ctxt, instance = self._authorized(policies.UNLOCK)
        if not server_actions.locked_by_expected(ctxt, instance):
            ctxt.can(policies.UNLOCK_OVERRIDE, target=_owner(instance))
        server_actions.unlock(ctxt, instance)

    @validation.schema(schemas.reset_state)
    def reset_state(self, body):
        ctxt, instance = self._authorized(policies.RESET_STATE)
        server_actions.reset_state(ctxt, instance,
                                   body['os-resetState']['state'])

    def reset_network(self, body):
        """Removed in Nova 23.0.0 with nova-network: 410 at every
        microversion, whatever the server or the body, before any
        policy is checked (as Nova 34)."""
        raise webob.exc.HTTPGone()


class VolumesBootActionController(ServerActionController):
    """/os-volumes_boot/{server_id}/action (until 2.102): the actions of
    /servers/{server_id}/action under the v2 alias."""
