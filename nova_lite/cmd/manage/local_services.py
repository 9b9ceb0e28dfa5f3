"""nova-lite-manage local_services: the schema and the shipped records of
the local-services database (the embedded image and network services)."""
from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.conf import CONF
from nova_lite.db import migration
from nova_lite.image import api as image_api
from nova_lite.network import api as network_api


def _require_connection():
    if not CONF.local_services.connection:
        common.error('[local_services] connection is not set in the '
                     'configuration; this command needs the local-services '
                     'database.'
                     + common.config_hint())
        return False
    return True


class LocalServicesCommands(object):
    """The local-services database ([local_services] connection)."""

    @args('version', nargs='?', help='Alembic revision (default: head)')
    def sync(self, version=None):
        """Upgrade the local-services database schema to VERSION (default:
        head).

        Exit codes: 0 synced; 1 [local_services] connection unset or the
        upgrade failed.
        """
        if not _require_connection():
            return 1
        url = CONF.local_services.connection
        try:
            migration.db_sync('local_services', url, version)
        except Exception as exc:
            common.error('Failed to sync the local-services database (%s): '
                         '%s' % (common.mask_password(url), exc))
            return 1
        return 0

    def version(self):
        """Print the local-services database's current alembic revision.

        Prints 'None' for a database that was never synced.
        Exit codes: 0 printed; 1 [local_services] connection unset.
        """
        if not _require_connection():
            return 1
        print(migration.db_version('local_services',
                                   CONF.local_services.connection))
        return 0

    def create_defaults(self):
        """Create the shipped public images (cirros, ubuntu, debian),
        the shared network 'private' (10.0.0.0/24) and the external
        network of [local_services] public_network_cidr ('public',
        172.24.4.0/24: the floating IP pool) unless they exist.

        Exit codes: 0 created or already there; 1 [local_services]
        connection unset.
        """
        if not _require_connection():
            return 1
        ctxt = checks.admin_context()
        image_api.API().ensure_default_images(ctxt)
        network_api.API().ensure_default_network(ctxt)
        return 0
