"""nova-lite-manage cell_v2: cell mappings and host mappings in the API
database."""
from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import host_mapping

CELL0_TRANSPORT_URL = 'none:///'


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
        if not checks.require_api_db():
            return 1
        ctxt = checks.admin_context()
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
                url = checks.cell0_database_url(CONF.database.connection)
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
        if not checks.require_api_db():
            return 1
        transport_url = transport_url or checks.default_transport_url()
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
            checks.check_transport_url(transport_url)
            checks.check_database(database_connection)
        except (exception.InvalidInput,
                exception.DatabaseNotReachable) as exc:
            common.error(exc.format_message())
            return 3
        ctxt = checks.admin_context()
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
        if not checks.require_api_db():
            return 1
        cells = sorted(objects.CellMappingList.get_all(checks.admin_context()),
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
        if not checks.require_api_db():
            return 1
        if enable and disable:
            common.error('A cell cannot be enabled and disabled at once.')
            return 4
        cell = _get_cell(checks.admin_context(), cell_uuid)
        if cell is None:
            return 1
        if disable and cell.is_cell0():
            common.error('cell0 cannot be disabled.')
            return 3
        try:
            if transport_url:
                checks.check_transport_url(transport_url)
                cell.transport_url = transport_url
            if database_connection:
                checks.check_database(database_connection)
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
        if not checks.require_api_db():
            return 1
        ctxt = checks.admin_context()
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
        if not checks.require_api_db():
            return 1
        ctxt = checks.admin_context()
        if cell_uuid:
            cell = _get_cell(ctxt, cell_uuid)
            if cell is None:
                return 1
            cells = [cell]
        else:
            cells = [c for c in objects.CellMappingList.get_all(ctxt)
                     if not c.is_cell0()]
        found = host_mapping.discover_hosts(
            ctxt, cells, status_fn=print if verbose else None)
        problems = found.problems()
        for problem in problems:
            common.error(problem)
        if verbose:
            print('Mapped %d new hosts.' % len(found.mapped))
        return 2 if problems else 0

    @args('--cell_uuid', '--cell-uuid', metavar='UUID',
          help='Only hosts of this cell')
    @args('--json', action='store_true', default=False,
          help='Print JSON instead of a table')
    def list_hosts(self, cell_uuid=None, json=False):
        """List host mappings, sorted by cell name and host.

        Exit codes: 0 listed; 1 --cell_uuid not found or the API database is
        not configured.
        """
        if not checks.require_api_db():
            return 1
        ctxt = checks.admin_context()
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
