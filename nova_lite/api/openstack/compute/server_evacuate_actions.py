"""The server action evacuate (``POST /servers/{server_id}/action``), a
mixin of the server action controller (which provides ``_authorized``):
it validates the body for the request's microversion, checks policy on
the server's owner (administrators only, as Nova), and calls
nova_lite.compute.api.server_evacuate, which refuses a server whose
compute is still up (400), an unknown host (404) or the server's own
(400), and a state that refuses it (409).

It answers 200: before 2.14 with the new adminPass (when [api]
enable_instance_password), from 2.14 on with no body, as Nova.
"""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_evacuate as schemas
from nova_lite.api.openstack.compute import server_common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_evacuate
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.policies import server_evacuate as policies

_SCHEMAS = server_common.from_versions(
    (schemas.evacuate, av.MIN),
    (schemas.evacuate_v214, av.EVACUATE_NO_SHARED_STORAGE),
    (schemas.evacuate_v229, av.EVACUATE_FORCE),
    (schemas.evacuate_v268, av.EVACUATE_NO_FORCE))


def _password(evacuate, version):
    """The new server's admin password: before 2.14 the one asked for, a
    new one when the disk is not on shared storage, none on shared
    storage (where asking for one is a 400); from 2.14 the one asked
    for, if any."""
    if version >= av.EVACUATE_NO_SHARED_STORAGE:
        return evacuate.get('adminPass')
    shared = validation.to_bool(evacuate['onSharedStorage'])
    if 'adminPass' in evacuate:
        if shared:
            raise exception.EvacuatePasswordOnSharedStorage()
        return evacuate['adminPass']
    if shared:
        return None
    return server_common.admin_password({})


class EvacuateActions(object):
    """evacuate, mixed into the server action controller."""

    @server_common.validated(validation.schema, _SCHEMAS)
    def evacuate(self, body):
        version = wsgi.api_version()
        evacuate = body['evacuate'] or {}
        ctxt, instance = self._authorized(policies.EVACUATE)
        host = evacuate.get('host')
        force = False
        if (version >= av.EVACUATE_FORCE
                and version < av.EVACUATE_NO_FORCE):
            force = validation.to_bool(evacuate.get('force', False))
        password = _password(evacuate, version)
        if force and not host:
            raise exception.EvacuateForceWithoutHost()
        server_evacuate.evacuate(
            ctxt, instance, host=host, force=force, admin_password=password,
            stopped=version >= av.EVACUATE_STOPPED)
        if (version < av.EVACUATE_NO_SHARED_STORAGE
                and CONF.api.enable_instance_password):
            return {'adminPass': password}
        return None
