"""The server actions resize, migrate, confirmResize and revertResize
(``POST /servers/{server_id}/action``), a mixin of the server action
controller (which provides ``server_id`` and ``_authorized``): each
validates the body for the request's microversion, checks policy on
the server's owner (resize and migrate: also whether the caller may
move it to another cell) and calls nova_lite.compute.api.server_resize, which
answers 409 for a lock or a state that refuses the action and 400 for
a bad flavor or host. Each answers 202 with no body (confirmResize
204, as in Nova)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_resize as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_resize
from nova_lite.policies import server_resize as policies


def _cross_cell_allowed(ctxt, instance):
    """Whether the caller may move the server to another cell (the
    compute API moves it there only if every service can, too)."""
    return ctxt.can(policies.CROSS_CELL,
                    target={'project_id': instance.project_id,
                            'user_id': instance.user_id}, fatal=False)


class ResizeActions(object):
    """resize, migrate, confirmResize, revertResize."""

    @validation.schema(schemas.resize)
    def resize(self, body):
        ctxt, instance = self._authorized(policies.RESIZE)
        server_resize.resize(
            ctxt, instance, body['resize']['flavorRef'],
            auto_disk_config=validation.auto_disk_config(body['resize']),
            cross_cell_allowed=_cross_cell_allowed(ctxt, instance))

    @validation.schema(schemas.migrate, av.MIN, av.before(av.MIGRATE_HOST))
    @validation.schema(schemas.migrate_v256, av.MIGRATE_HOST)
    def migrate(self, body):
        host = None
        if wsgi.api_version() >= av.MIGRATE_HOST:
            host = (body['migrate'] or {}).get('host')
        ctxt, instance = self._authorized(
            policies.MIGRATE_HOST if host else policies.MIGRATE)
        server_resize.migrate(
            ctxt, instance, host=host,
            cross_cell_allowed=_cross_cell_allowed(ctxt, instance))

    @validation.schema(schemas.confirm_resize)
    def confirm_resize(self, body):
        ctxt, instance = self._authorized(policies.CONFIRM_RESIZE)
        server_resize.confirm_resize(ctxt, instance)

    @validation.schema(schemas.revert_resize)
    def revert_resize(self, body):
        ctxt, instance = self._authorized(policies.REVERT_RESIZE)
        server_resize.revert_resize(ctxt, instance)
