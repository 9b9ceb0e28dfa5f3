"""The server action os-migrateLive (``POST /servers/{server_id}/action``),
a mixin of the server action controller (which provides ``server_id``
and ``_authorized``): it validates the body for the request's
microversion, checks policy on the server's owner (naming a host:
migrate_live:host) and calls nova_lite.compute.api.server_live_migrate.
It answers 202 with no body."""
from oslo_utils import strutils

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_live_migrate \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_live_migrate
from nova_lite import exception
from nova_lite.policies import migrate_live as policies


def _flag(value):
    return strutils.bool_from_string(value, strict=True)


def _arguments(body, version):
    """(host, block_migration (None: auto), disk_over_commit, force) of
    an os-migrateLive body at version."""
    host = body.get('host')
    block = body['block_migration']
    if version >= av.LIVE_MIGRATION_BLOCK_AUTO:
        block = None if block == 'auto' else _flag(block)
        disk_over_commit = None
    else:
        block = _flag(block)
        disk_over_commit = _flag(body['disk_over_commit'])
    force = False
    if av.LIVE_MIGRATION_FORCE <= version < av.LIVE_MIGRATION_NO_FORCE:
        force = _flag(body.get('force', False))
        if force and not host:
            raise exception.InvalidInput(
                reason="Can't force to a non-provided destination")
    return host, block, disk_over_commit, force


class LiveMigrateActions(object):
    """os-migrateLive."""

    @validation.schema(schemas.migrate_live, av.MIN,
                       av.before(av.LIVE_MIGRATION_BLOCK_AUTO))
    @validation.schema(schemas.migrate_live_v225,
                       av.LIVE_MIGRATION_BLOCK_AUTO,
                       av.before(av.LIVE_MIGRATION_FORCE))
    @validation.schema(schemas.migrate_live_v230, av.LIVE_MIGRATION_FORCE,
                       av.before(av.LIVE_MIGRATION_NO_FORCE))
    @validation.schema(schemas.migrate_live_v268,
                       av.LIVE_MIGRATION_NO_FORCE)
    def migrate_live(self, body):
        version = wsgi.api_version()
        ctxt, instance = self._authorized(
            policies.MIGRATE_LIVE_HOST if body['os-migrateLive'].get('host')
            else policies.MIGRATE_LIVE)
        host, block, disk_over_commit, force = _arguments(
            body['os-migrateLive'], version)
        server_live_migrate.live_migrate(
            ctxt, instance, host=host, block_migration=block,
            disk_over_commit=disk_over_commit, force=force,
            wait=version < av.LIVE_MIGRATION_ASYNC)
