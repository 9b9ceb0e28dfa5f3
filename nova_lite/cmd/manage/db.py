"""nova-lite-manage api_db and db: database schemas and online data
migrations."""
import sys

from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.conf import CONF
from nova_lite.db import migration
from nova_lite import objects
from nova_lite.online_migrations import runner

# Nova's code for bad input to online_data_migrations.
INVALID_INPUT = 127


def _sync_all(database, urls, version):
    """db_sync each url; report failures and return 0 (all ok) or 1."""
    result = 0
    for label, url in urls:
        try:
            migration.db_sync(database, url, version)
        except Exception as exc:
            common.error('Failed to sync %s (%s): %s'
                         % (label, common.mask_password(url), exc))
            result = 1
    return result


# --- categories -------------------------------------------------------------

class ApiDbCommands(object):
    """Schema of the API database ([api_database] connection)."""

    @args('version', nargs='?', help='Alembic revision (default: head)')
    def sync(self, version=None):
        """Upgrade the API database schema to VERSION (default: head).

        Exit codes: 0 synced; 1 [api_database] connection unset or the
        upgrade failed.
        """
        if not checks.require_api_db():
            return 1
        return _sync_all('api', [('API database',
                                  CONF.api_database.connection)], version)

    def version(self):
        """Print the API database's current alembic revision.

        Prints 'None' for a database that was never synced.
        Exit codes: 0 printed; 1 [api_database] connection unset.
        """
        if not checks.require_api_db():
            return 1
        print(migration.db_version('api', CONF.api_database.connection))
        return 0


class DbCommands(object):
    """Schema and data of the cell databases."""

    @args('version', nargs='?', help='Alembic revision (default: head)')
    @args('--local_cell', '--local-cell', action='store_true', default=False,
          help='Only sync [database] connection, not the mapped cells')
    def sync(self, version=None, local_cell=False):
        """Upgrade cell database schemas to VERSION (default: head).

        Without --local_cell: [database] connection (if set) and every
        database in cell_mappings (cell0 included), each URL once. With
        --local_cell: only [database] connection.
        Exit codes: 0 every database synced; 1 nothing to sync, the API
        database could not be read, or a database failed to sync (the
        others are still synced).
        """
        urls = []
        if CONF.database.connection:
            urls.append(('[database] connection', CONF.database.connection))
        elif local_cell:
            common.error('[database] connection is not set in the '
                         'configuration.'
                         + common.config_hint())
            return 1
        if not local_cell:
            if CONF.api_database.connection:
                ctxt = checks.admin_context()
                try:
                    cells = objects.CellMappingList.get_all(ctxt)
                except Exception as exc:
                    common.error('Could not read cell mappings from the API '
                                 'database: %s' % exc)
                    return 1
                for cell in cells:
                    urls.append(('cell %s' % cell.identity,
                                 cell.database_connection))
            elif not urls:
                common.error('Neither [database] nor [api_database] '
                             'connection is set in the configuration.')
                return 1
        seen, unique = set(), []
        for label, url in urls:
            if url and url not in seen:
                seen.add(url)
                unique.append((label, url))
        if not unique:
            common.error('No cell database to sync.')
            return 1
        return _sync_all('main', unique, version)

    def version(self):
        """Print the [database] connection's current alembic revision.

        Prints 'None' for a database that was never synced.
        Exit codes: 0 printed; 1 [database] connection unset.
        """
        if not CONF.database.connection:
            common.error('[database] connection is not set in the '
                         'configuration.'
                         + common.config_hint())
            return 1
        print(migration.db_version('main', CONF.database.connection))
        return 0

    @args('--max-count', '--max_count', type=int, metavar='N',
          help='Migrate at most N rows per migration (default: all)')
    @args('--json', action='store_true', default=False,
          help='Print the summary as JSON')
    def online_data_migrations(self, max_count=None, json=False):
        """Run the online data migrations in batches.

        Exit codes: 0 nothing left to migrate; 1 rows remain (run again),
        or a migration waits for services to be upgraded; 2 a migration
        raised an error (the others still ran); 127 invalid --max-count.
        """
        return _run_online_migrations(max_count, None, json)

    @args('--max-count', '--max_count', type=int, metavar='N',
          help='Migrate at most N flavors (default: all)')
    @args('--json', action='store_true', default=False,
          help='Print the summary as JSON')
    def migrate_flavors(self, max_count=None, json=False):
        """Copy legacy cell-database flavors to the API database.

        The migrate_flavors online data migration alone. Without
        --max-count every flavor moves, in batches of 10,000 (each batch:
        the cell DB locks the legacy flavors by soft-deleting them, one
        API DB transaction copies flavors, extra specs and projects and
        commits, then the cell DB commits: specs and projects before their
        flavors).
        Exit codes: as online_data_migrations (0 done, 1 more to do,
        2 error, 127 invalid --max-count).
        """
        return _run_online_migrations(max_count, ['migrate_flavors'], json)


def _run_online_migrations(max_count, names, as_json):
    if max_count is not None and max_count < 1:
        common.error('--max-count must be a positive number.')
        return INVALID_INPUT
    rows, code = runner.run_migrations(
        checks.admin_context(), max_count=max_count, names=names,
        progress=sys.stdout.isatty() and not as_json)
    if as_json:
        common.print_json({'migrations': rows, 'exit_code': code})
        return code
    common.print_table(
        ['Migration', 'Total Found', 'Completed', 'Note'],
        [(r['name'], r['found'], r['done'],
          ('error: %s' % r['error']) if r.get('error') else
          ('blocked: %s' % r['blocked']) if r.get('blocked') else '')
         for r in rows])
    return code
