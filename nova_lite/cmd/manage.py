"""nova-lite-manage: database schemas, cells and host mappings.

    nova-lite-manage [--config-file FILE] <category> <command> [options]

Categories: api_db, db, cell_v2. Every command documents its exit codes in
its --help. Unexpected errors print a message and exit 255.
"""
import os
import sys
import traceback

from oslo_config import cfg
import oslo_messaging as messaging
import sqlalchemy as sa

from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db import migration
from nova_lite import exception
from nova_lite import objects
from nova_lite.online_migrations import runner

CELL0_TRANSPORT_URL = 'none:///'
UNEXPECTED_ERROR = 255
# Nova's code for bad input to online_data_migrations.
INVALID_INPUT = 127


# --- helpers ----------------------------------------------------------------

def _admin_context():
    return nova_context.get_admin_context()


def _require_api_db():
    if not CONF.api_database.connection:
        common.error('[api_database] connection is not set in the '
                     'configuration; this command needs the API database.')
        return False
    return True


def check_database(url, timeout=10):
    """Connect to url once; raise DatabaseNotReachable with the reason."""
    masked = common.mask_password(url)
    try:
        parsed = sa.engine.make_url(url)
    except Exception as exc:
        raise exception.DatabaseNotReachable(
            url=masked, reason='invalid database URL (%s)' % exc)
    connect_args = {}
    backend = parsed.get_backend_name()
    if backend in ('mysql', 'postgresql'):
        connect_args['connect_timeout'] = timeout
    elif backend == 'sqlite' and parsed.database not in (None, '',
                                                         ':memory:'):
        directory = os.path.dirname(os.path.abspath(parsed.database))
        if not os.path.isdir(directory):
            raise exception.DatabaseNotReachable(
                url=masked, reason='directory %s does not exist' % directory)
    try:
        engine = sa.create_engine(parsed, poolclass=sa.pool.NullPool,
                                  connect_args=connect_args)
        try:
            with engine.connect() as conn:
                conn.execute(sa.text('SELECT 1'))
        finally:
            engine.dispose()
    except Exception as exc:
        reason = str(getattr(exc, 'orig', None) or exc).splitlines()[0]
        raise exception.DatabaseNotReachable(url=masked, reason=reason)


def check_transport_url(url):
    """Raise InvalidInput unless oslo.messaging can parse url."""
    try:
        messaging.TransportURL.parse(CONF, url)
    except (messaging.InvalidTransportURL, ValueError) as exc:
        raise exception.InvalidInput(
            reason='invalid transport URL %s: %s'
            % (common.mask_password(url), exc))


def cell0_database_url(url):
    """Nova's convention: the cell0 database is <main database>_cell0.

    For SQLite files, _cell0 goes before a .sqlite/.sqlite3/.db suffix.
    """
    parsed = sa.engine.make_url(url)
    name = parsed.database
    if not name or name == ':memory:':
        raise exception.InvalidInput(
            reason='cannot derive a cell0 database from %s; pass '
                   '--database_connection' % common.mask_password(url))
    if parsed.get_backend_name() == 'sqlite':
        root, ext = os.path.splitext(name)
        if ext in ('.sqlite', '.sqlite3', '.db'):
            name = root + '_cell0' + ext
        else:
            name = name + '_cell0'
    else:
        name = name + '_cell0'
    return parsed.set(database=name).render_as_string(hide_password=False)


_PLACEHOLDER_TRANSPORT_URL = 'rabbit://'


def _default_transport_url():
    """[DEFAULT] transport_url if the operator set it, else None.

    oslo.messaging's default ('rabbit://', no host) is a placeholder, not
    a choice; get_location alone cannot tell (it keeps reporting an
    override after clear_override).
    """
    messaging.TransportURL.parse(CONF)  # registers transport_url
    location = CONF.get_location('transport_url')
    if location is None or location.location == cfg.Locations.opt_default:
        return None
    if CONF.transport_url in (None, '', _PLACEHOLDER_TRANSPORT_URL):
        return None
    return CONF.transport_url


def _get_cell(ctxt, cell_uuid):
    try:
        return objects.CellMapping.get_by_uuid(ctxt, cell_uuid)
    except exception.CellMappingNotFound:
        common.error('Cell with uuid %s was not found.' % cell_uuid)
        return None


@api_db.reader
def _count_instance_mappings(context, cell_id):
    # No InstanceMappingList yet; one COUNT is all delete_cell needs.
    return context.session.query(api_models.InstanceMapping).filter_by(
        cell_id=cell_id).count()


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
        if not _require_api_db():
            return 1
        return _sync_all('api', [('API database',
                                  CONF.api_database.connection)], version)

    def version(self):
        """Print the API database's current alembic revision.

        Prints 'None' for a database that was never synced.
        Exit codes: 0 printed; 1 [api_database] connection unset.
        """
        if not _require_api_db():
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
                         'configuration.')
            return 1
        if not local_cell:
            if CONF.api_database.connection:
                try:
                    cells = objects.CellMappingList.get_all(_admin_context())
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
                         'configuration.')
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
        _admin_context(), max_count=max_count, names=names,
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


class CellV2Commands(object):
    """Cells v2: cell mappings and host mappings in the API database."""

    @args('--database_connection', '--database-connection',
          metavar='URL', help='cell0 database URL (default: [database] '
          'connection with _cell0 appended to the database name)')
    def map_cell0(self, database_connection=None):
        """Create the cell0 mapping (idempotent).

        cell0 holds instances that could not be scheduled; it has no
        message queue. Its database is not synced here: run db sync.
        Exit codes: 0 mapped or already mapped; 1 no database URL could be
        determined or the API database is not configured.
        """
        if not _require_api_db():
            return 1
        ctxt = _admin_context()
        try:
            objects.CellMapping.get_by_uuid(ctxt,
                                            objects.CellMapping.CELL0_UUID)
            print('Cell0 is already set up.')
            return 0
        except exception.CellMappingNotFound:
            pass
        url = database_connection
        if not url:
            if not CONF.database.connection:
                common.error('Pass --database_connection or set [database] '
                             'connection.')
                return 1
            try:
                url = cell0_database_url(CONF.database.connection)
            except exception.InvalidInput as exc:
                common.error(exc.format_message())
                return 1
        cell0 = objects.CellMapping(
            ctxt, uuid=objects.CellMapping.CELL0_UUID, name='cell0',
            transport_url=CELL0_TRANSPORT_URL, database_connection=url)
        try:
            cell0.create()
        except exception.CellMappingExists:
            # Lost a race with another map_cell0, or a cell named cell0.
            print('Cell0 is already set up.')
        return 0

    @args('--name', help='Cell name (unique)')
    @args('--transport-url', '--transport_url', metavar='URL',
          help='Cell message queue (default: [DEFAULT] transport_url)')
    @args('--database_connection', '--database-connection', metavar='URL',
          help='Cell database (default: [database] connection)')
    @args('--disabled', action='store_true', default=False,
          help='Create the cell disabled (not scheduled to)')
    def create_cell(self, name=None, transport_url=None,
                    database_connection=None, disabled=False):
        """Map a new cell; print its uuid.

        The database must be reachable (it is connected to once) and the
        transport URL must parse.
        Exit codes: 0 created; 1 transport URL or database connection
        missing (neither given nor configured), or the API database is not
        configured; 2 a cell with that name, or with the same transport URL
        and database connection, already exists; 3 the database cannot be
        reached, or a URL is invalid.
        """
        if not _require_api_db():
            return 1
        transport_url = transport_url or _default_transport_url()
        if not transport_url:
            common.error('Pass --transport-url or set [DEFAULT] '
                         'transport_url.')
            return 1
        database_connection = database_connection or CONF.database.connection
        if not database_connection:
            common.error('Pass --database_connection or set [database] '
                         'connection.')
            return 1
        try:
            check_transport_url(transport_url)
            check_database(database_connection)
        except (exception.InvalidInput,
                exception.DatabaseNotReachable) as exc:
            common.error(exc.format_message())
            return 3
        ctxt = _admin_context()
        for cell in objects.CellMappingList.get_all(ctxt):
            if (cell.transport_url == transport_url and
                    cell.database_connection == database_connection):
                common.error('Cell %s already uses this transport URL and '
                             'database connection.' % cell.identity)
                return 2
        cell = objects.CellMapping(ctxt, name=name,
                                   transport_url=transport_url,
                                   database_connection=database_connection,
                                   disabled=disabled)
        try:
            cell.create()
        except exception.CellMappingExists as exc:
            common.error(exc.format_message())
            return 2
        print(cell.uuid)
        return 0

    @args('--verbose', action='store_true', default=False,
          help='Show passwords in URLs')
    @args('--json', action='store_true', default=False,
          help='Print JSON instead of a table')
    def list_cells(self, verbose=False, json=False):
        """List cell mappings, sorted by name.

        Passwords in URLs are masked unless --verbose.
        Exit codes: 0 listed; 1 the API database is not configured.
        """
        if not _require_api_db():
            return 1
        cells = sorted(objects.CellMappingList.get_all(_admin_context()),
                       key=lambda c: c.name or '')

        def url(value):
            return value if verbose else common.mask_password(value)

        rows = [{'name': c.name, 'uuid': c.uuid,
                 'transport_url': url(c.transport_url),
                 'database_connection': url(c.database_connection),
                 'disabled': c.disabled} for c in cells]
        if json:
            common.print_json(rows)
        else:
            common.print_table(
                ['Name', 'UUID', 'Transport URL', 'Database Connection',
                 'Disabled'],
                [(r['name'], r['uuid'], r['transport_url'],
                  r['database_connection'], r['disabled']) for r in rows])
        return 0

    @args('--cell_uuid', '--cell-uuid', required=True, metavar='UUID',
          help='The cell to update')
    @args('--name', help='New name')
    @args('--transport-url', '--transport_url', metavar='URL',
          help='New transport URL')
    @args('--database_connection', '--database-connection', metavar='URL',
          help='New database connection (must be reachable)')
    @args('--disable', action='store_true', default=False,
          help='Stop scheduling to this cell')
    @args('--enable', action='store_true', default=False,
          help='Schedule to this cell again')
    def update_cell(self, cell_uuid, name=None, transport_url=None,
                    database_connection=None, disable=False, enable=False):
        """Change a cell mapping's name, URLs or disabled flag.

        Only the given fields change.
        Exit codes: 0 updated; 1 cell not found or the API database is not
        configured; 2 not updated: the name is taken, a URL is invalid or
        the database cannot be reached; 3 cell0 cannot be disabled;
        4 --enable and --disable given together.
        """
        if not _require_api_db():
            return 1
        if enable and disable:
            common.error('A cell cannot be enabled and disabled at once.')
            return 4
        cell = _get_cell(_admin_context(), cell_uuid)
        if cell is None:
            return 1
        if disable and cell.is_cell0():
            common.error('cell0 cannot be disabled.')
            return 3
        try:
            if transport_url:
                check_transport_url(transport_url)
                cell.transport_url = transport_url
            if database_connection:
                check_database(database_connection)
                cell.database_connection = database_connection
        except (exception.InvalidInput,
                exception.DatabaseNotReachable) as exc:
            common.error(exc.format_message())
            return 2
        if name:
            cell.name = name
        if disable or enable:
            cell.disabled = disable
        try:
            cell.save()
        except exception.CellMappingExists as exc:
            common.error(exc.format_message())
            return 2
        return 0

    @args('--cell_uuid', '--cell-uuid', required=True, metavar='UUID',
          help='The cell to delete')
    @args('--force', action='store_true', default=False,
          help='Also delete the host mappings of the cell and soft-delete '
               'their compute service records (and compute nodes) in the '
               'cell database')
    def delete_cell(self, cell_uuid, force=False):
        """Delete a cell mapping.

        Refused while hosts are mapped to the cell, unless --force: then
        the host mappings are deleted and the hosts' nova-compute
        service records (with their compute nodes) are soft-deleted in
        the cell database, so a later discover_hosts does not map them
        again. If the cell database cannot be reached, the service records
        are left and a warning is printed. A cell with instances mapped is
        never deleted, --force or not.
        Exit codes: 0 deleted; 1 cell not found or the API database is not
        configured; 2 hosts are mapped to the cell (without --force);
        3 instances are mapped to the cell.
        """
        if not _require_api_db():
            return 1
        ctxt = _admin_context()
        cell = _get_cell(ctxt, cell_uuid)
        if cell is None:
            return 1
        instances = _count_instance_mappings(ctxt, cell.id)
        if instances:
            common.error('Cell %s has %d instances mapped; it cannot be '
                         'deleted.' % (cell.identity, instances))
            return 3
        hosts = objects.HostMappingList.get_by_cell_id(ctxt, cell.uuid)
        if hosts and not force:
            common.error('Cell %s has %d hosts mapped (%s); pass --force to '
                         'delete them with the cell.'
                         % (cell.identity, len(hosts),
                            ', '.join(h.host for h in hosts)))
            return 2
        if hosts:
            _delete_compute_services(ctxt, cell, [h.host for h in hosts])
            for host in hosts:
                try:
                    host.destroy()
                except exception.HostMappingNotFound:
                    pass
        try:
            cell.destroy()
        except exception.CellMappingNotFound:
            pass
        except exception.CellNotEmpty as exc:
            # Something was mapped to the cell while we were deleting.
            common.error(exc.format_message())
            return 3 if 'instances' in exc.kwargs.get('what', '') else 2
        return 0

    @args('--cell_uuid', '--cell-uuid', metavar='UUID',
          help='Only this cell (default: every cell but cell0)')
    @args('--verbose', action='store_true', default=False,
          help='Say what is checked and mapped')
    def discover_hosts(self, cell_uuid=None, verbose=False):
        """Map compute hosts that have no host mapping yet.

        Reads the nova-compute service records of each cell (every
        cell but cell0, or only --cell_uuid) and creates a host mapping for
        each host without one. Idempotent; safe to run while computes start.
        Exit codes: 0 done (including nothing to map); 1 --cell_uuid not
        found or the API database is not configured; 2 a cell's database
        could not be read or a host is already mapped to another cell (the
        other hosts are still mapped).
        """
        if not _require_api_db():
            return 1
        ctxt = _admin_context()
        if cell_uuid:
            cell = _get_cell(ctxt, cell_uuid)
            if cell is None:
                return 1
            cells = [cell]
        else:
            cells = [c for c in objects.CellMappingList.get_all(ctxt)
                     if not c.is_cell0()]
        mapped, result = discover_hosts(ctxt, cells, verbose=verbose)
        if verbose:
            print('Mapped %d new hosts.' % len(mapped))
        return result

    @args('--cell_uuid', '--cell-uuid', metavar='UUID',
          help='Only hosts of this cell')
    @args('--json', action='store_true', default=False,
          help='Print JSON instead of a table')
    def list_hosts(self, cell_uuid=None, json=False):
        """List host mappings, sorted by cell name and host.

        Exit codes: 0 listed; 1 --cell_uuid not found or the API database is
        not configured.
        """
        if not _require_api_db():
            return 1
        ctxt = _admin_context()
        if cell_uuid:
            if _get_cell(ctxt, cell_uuid) is None:
                return 1
            hosts = objects.HostMappingList.get_by_cell_id(ctxt, cell_uuid)
        else:
            hosts = objects.HostMappingList.get_all(ctxt)
        rows = sorted(({'cell_name': h.cell_mapping.name,
                        'cell_uuid': h.cell_mapping.uuid,
                        'host': h.host} for h in hosts),
                      key=lambda r: (r['cell_name'] or '', r['host']))
        if json:
            common.print_json(rows)
        else:
            common.print_table(
                ['Cell Name', 'Cell UUID', 'Hostname'],
                [(r['cell_name'], r['cell_uuid'], r['host']) for r in rows])
        return 0


def _compute_hosts(cctxt):
    return [s.host for s in
            objects.ServiceList.get_by_binary(cctxt, constants.COMPUTE_BINARY)]


def discover_hosts(ctxt, cells, verbose=False):
    """Create host mappings for unmapped compute hosts in cells.

    Returns (list of newly mapped host names, exit code 0 or 2). Cells are
    read in parallel with [DEFAULT] cell_timeout.
    """
    def say(message):
        if verbose:
            print(message)

    results = nova_context.scatter_gather_cells(
        ctxt, cells, CONF.cell_timeout, _compute_hosts)
    mapped, result = [], 0
    for cell in cells:
        hosts = results[cell.uuid]
        if nova_context.is_cell_failure(hosts):
            reason = ('did not respond' if
                      hosts is nova_context.did_not_respond_sentinel
                      else str(hosts).splitlines()[0])
            common.error('Could not read compute services of cell %s: %s'
                         % (cell.identity, reason))
            result = 2
            continue
        say('Found %d compute hosts in cell %s.' % (len(hosts),
                                                    cell.identity))
        for host in hosts:
            try:
                existing = objects.HostMapping.get_by_host(ctxt, host)
            except exception.HostMappingNotFound:
                existing = None
            if existing is None:
                say('Creating host mapping for %s in cell %s.'
                    % (host, cell.identity))
                mapping = objects.HostMapping(ctxt, host=host,
                                              cell_mapping=cell)
                try:
                    mapping.create()
                    mapped.append(host)
                    continue
                except exception.HostMappingExists:
                    # Another discover_hosts mapped it meanwhile.
                    existing = objects.HostMapping.get_by_host(ctxt, host)
            if existing.cell_mapping.uuid != cell.uuid:
                common.error('Host %s in cell %s is already mapped to cell '
                             '%s; not remapped.'
                             % (host, cell.identity,
                                existing.cell_mapping.identity))
                result = 2
    return mapped, result


def _delete_compute_services(ctxt, cell, hosts):
    try:
        with nova_context.target_cell(ctxt, cell) as cctxt:
            for host in hosts:
                try:
                    objects.Service.get_by_compute_host(cctxt, host).destroy()
                except exception.HostBinaryNotFound:
                    pass
    except Exception as exc:
        common.error('Warning: could not delete the compute service records '
                     'of cell %s: %s' % (cell.identity, exc))


CATEGORIES = {
    'api_db': ApiDbCommands,
    'db': DbCommands,
    'cell_v2': CellV2Commands,
}

_category_opt = cfg.SubCommandOpt(
    'category', title='Command categories',
    help='Available categories',
    handler=common.make_parser_handler(CATEGORIES))


def _reset_process_state():
    # In-process callers (tests) may run several commands with different
    # configuration files; engines are cached per process.
    api_db.reset()
    main_db.reset()
    nova_context._CELL_CACHE.clear()
    # Minimum service versions are cached per process, per deployment.
    reset_versions = getattr(sys.modules.get('nova_lite.objects.service'),
                             'reset_min_version_cache', None)
    if reset_versions is not None:
        reset_versions()


def main(argv=None):
    """Parse argv (default: sys.argv[1:]), run the command, return its code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    common.prepare_cli(CONF, _category_opt)
    try:
        try:
            CONF(argv, project='nova_lite', prog='nova-lite-manage')
        except SystemExit as exc:  # --help, or argparse rejected the input
            return exc.code if isinstance(exc.code, int) else 1
        except cfg.Error as exc:
            common.error(str(exc))
            return 1
        objects.register_all()
        _reset_process_state()
        try:
            return common.call_parsed_command(CONF, CATEGORIES) or 0
        except Exception as exc:
            common.error('An error has occurred: %s' % exc)
            traceback.print_exc()
            return UNEXPECTED_ERROR
    finally:
        _reset_process_state()
        common.release_cli(CONF)


if __name__ == '__main__':
    sys.exit(main())
