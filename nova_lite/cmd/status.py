"""nova-lite-status upgrade check: is this deployment ready to upgrade?

    nova-lite-status [--config-file FILE] upgrade check [--json]

Without --config-file it reads OS_NOVA_LITE_CONFIG_FILES, else the first
of oslo.config's usual places (/etc/nova_lite/nova_lite.conf ...), else
./nova-lite-state/nova_lite.conf (an all-in-one's, run beside it);
with none, the checks fail (2) saying where it looked.

Exit codes (oslo.upgradecheck): 0 every check passed, 1 a warning, 2 a
failure, 255 a check raised.

The checks run with the *new* code against the *old* databases, so they
read with plain SQL on the columns they need, never through objects or
models (those may already describe columns the old schema lacks).
"""
import sys

from oslo_config import cfg
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa

from nova_lite.cmd import common
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.objects import service_version
from nova_lite.online_migrations import registry
from nova_lite import version

DB_CONNECT_TIMEOUT = 10

Code = upgradecheck.Code
Result = upgradecheck.Result


# Only the columns the checks read, so older schemas still answer.
_CELL_MAPPINGS = sa.table('cell_mappings', sa.column('id'), sa.column('uuid'),
                          sa.column('name'), sa.column('database_connection'))
_HOST_MAPPINGS = sa.table('host_mappings', sa.column('host'))
_SERVICES = sa.table('services', sa.column('host'), sa.column('binary'),
                     sa.column('deleted'))
_VERSIONED_SERVICES = sa.table('services', sa.column('host'),
                               sa.column('binary'), sa.column('deleted'),
                               sa.column('version'))


def _select(url, query):
    """Rows of one SELECT against the database at url."""
    parsed = sa.engine.make_url(url)
    connect_args = {}
    if parsed.get_backend_name() in ('mysql', 'postgresql'):
        connect_args['connect_timeout'] = DB_CONNECT_TIMEOUT
    engine = sa.create_engine(parsed, poolclass=sa.pool.NullPool,
                              connect_args=connect_args)
    try:
        with engine.connect() as conn:
            return conn.execute(query).fetchall()
    finally:
        engine.dispose()


def _cell_mappings():
    c = _CELL_MAPPINGS.c
    return _select(CONF.api_database.connection,
                   sa.select(c.uuid, c.name, c.database_connection)
                   .order_by(c.id))


def _compute_hosts(cell_url):
    c = _SERVICES.c
    return {row[0] for row in _select(
        cell_url, sa.select(c.host).where(
            c.binary.in_(constants.binary_names(constants.COMPUTE_BINARY)),
            c.deleted == 0))}


def _service_versions(cell_url):
    """[(binary, host, version)] of a cell's live services; NULL (and a
    schema from before the version column) counts as version 1."""
    c = _VERSIONED_SERVICES.c
    try:
        rows = _select(cell_url, sa.select(c.binary, c.host, c.version)
                       .where(c.deleted == 0))
    except sa.exc.DBAPIError:
        c = _SERVICES.c
        rows = [(b, h, None) for b, h in _select(
            cell_url, sa.select(c.binary, c.host).where(c.deleted == 0))]
    return [(constants.current_binary(b), h, 1 if v is None else v)
            for b, h, v in rows]


_NO_API_DATABASE = Result(
    Code.FAILURE, '[api_database] connection is not set: pass the '
    'deployment\'s configuration with --config-file (the all-in-one writes '
    '<state-dir>/nova_lite.conf).')


def _label(cell):
    return '%s(%s)' % (cell.uuid, cell.name) if cell.name else cell.uuid


class Checks(upgradecheck.UpgradeCommands):
    """The upgrade checks; each is a method returning a Result.

    To add one, write a method and append ('Name', method) to
    _upgrade_checks; a check that raises counts as an error (255).
    """

    def _check_cellsv2(self):
        """cell0 and at least one cell mapped; every compute host mapped."""
        if not CONF.api_database.connection:
            return _NO_API_DATABASE
        cells = _cell_mappings()
        if not any(c.uuid == constants.CELL0_UUID for c in cells):
            return Result(Code.FAILURE, 'No cell0 mapping found. Run '
                          'nova-lite-manage cell_v2 map_cell0.')
        cells = [c for c in cells if c.uuid != constants.CELL0_UUID]
        if not cells:
            return Result(Code.FAILURE, 'No cell is mapped besides cell0. '
                          'Run nova-lite-manage cell_v2 create_cell.')
        mapped = {row[0] for row in _select(
            CONF.api_database.connection, sa.select(_HOST_MAPPINGS.c.host))}
        unreachable, unmapped, computes = [], set(), 0
        for cell in cells:
            try:
                hosts = _compute_hosts(cell.database_connection)
            except Exception as exc:
                reason = str(getattr(exc, 'orig', None) or exc)
                unreachable.append('%s (%s)' % (_label(cell),
                                                reason.splitlines()[0]))
                continue
            computes += len(hosts)
            unmapped |= hosts - mapped
        problems = []
        if unmapped:
            problems.append(
                'Compute hosts without a host mapping: %s. Run '
                'nova-lite-manage cell_v2 discover_hosts.'
                % ', '.join(sorted(unmapped)))
        if unreachable:
            problems.append('Could not read the database of cells: %s.'
                            % '; '.join(unreachable))
        if problems:
            return Result(Code.FAILURE, ' '.join(problems))
        if not computes:
            return Result(Code.SUCCESS, 'No compute hosts found yet. Run '
                          'nova-lite-manage cell_v2 discover_hosts after '
                          'deploying computes.')
        return Result(Code.SUCCESS)

    def _check_service_versions(self):
        """Failure: a service older than this code supports (it would
        refuse to run beside it) or further behind the newest of its binary
        than the allowed skew. Warning: a mixed deployment (an upgrade in
        progress), or services newer than this code."""
        if not CONF.api_database.connection:
            return _NO_API_DATABASE
        services, unreachable = [], []
        for cell in _cell_mappings():
            if cell.uuid == constants.CELL0_UUID:
                continue
            try:
                services += _service_versions(cell.database_connection)
            except Exception as exc:
                reason = str(getattr(exc, 'orig', None) or exc)
                unreachable.append('%s (%s)' % (_label(cell),
                                                reason.splitlines()[0]))
        newest = {}
        for binary, host, number in services:
            newest[binary] = max(newest.get(binary, number), number)
        too_old = sorted(
            '%s on %s (version %d)' % (binary, host, number)
            for binary, host, number in services
            if number < service_version.OLDEST_SUPPORTED_SERVICE_VERSION
            or newest[binary] - number > service_version.SERVICE_VERSION_SKEW)
        if too_old:
            return Result(Code.FAILURE, (
                'Services too old for this release: %s. This code supports '
                'service versions >= %d and at most %d behind the newest of '
                'a binary; upgrade them before the others.') % (
                    '; '.join(too_old),
                    service_version.OLDEST_SUPPORTED_SERVICE_VERSION,
                    service_version.SERVICE_VERSION_SKEW))
        notes = []
        versions = sorted({v for b, h, v in services})
        if len(versions) > 1:
            older = sorted('%s on %s (version %d)' % (b, h, v)
                           for b, h, v in services if v < versions[-1])
            notes.append('Mixed service versions %s: %s run older code. '
                         'Online data migrations that need newer services '
                         'wait until they are upgraded.'
                         % (', '.join(map(str, versions)), '; '.join(older)))
        newer = sorted('%s on %s (version %d)' % (b, h, v)
                       for b, h, v in services
                       if v > service_version.SERVICE_VERSION)
        if newer:
            notes.append('Services newer than this code (version %d): %s.'
                         % (service_version.SERVICE_VERSION, '; '.join(newer)))
        if unreachable:
            notes.append('Could not read the database of cells: %s.'
                         % '; '.join(unreachable))
        if notes:
            return Result(Code.WARNING, ' '.join(notes))
        return Result(Code.SUCCESS)

    def _check_online_migrations(self):
        """Warning while an online data migration has rows left."""
        if not CONF.api_database.connection:
            return _NO_API_DATABASE
        ctxt = nova_context.get_admin_context()
        left = []
        for migration in registry.migrations():
            if migration.pending is None:
                continue
            count = migration.pending(ctxt)
            if count:
                left.append('%s: %d' % (migration.name, count))
        if left:
            return Result(Code.WARNING, (
                'Online data migrations have rows left (%s). Run '
                '`nova-lite-manage db online_data_migrations` until it exits '
                '0; it says which migrations wait for services to be '
                'upgraded.') % ', '.join(left))
        return Result(Code.SUCCESS)

    _upgrade_checks = (
        ('Cells v2', _check_cellsv2),
        ('Service Versions', _check_service_versions),
        ('Online Data Migrations', _check_online_migrations),
    )


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ['--version']:
        print(version.release_string())
        return 0
    common.prepare_cli(CONF)
    try:
        config_files = common.find_config_files(argv, 'nova-lite-status')
        if common.config_hint() and not {'-h', '--help'} & set(argv):
            common.error('nova-lite-status:' + common.config_hint())
        return upgradecheck.main(
            CONF, project='nova_lite', upgrade_command=Checks(), argv=argv,
            default_config_files=config_files)
    except SystemExit as exc:  # --help, or argparse rejected the input
        return exc.code if isinstance(exc.code, int) else 1
    except cfg.Error as exc:
        common.error(str(exc))
        return 255
    finally:
        common.release_cli(CONF)


if __name__ == '__main__':
    sys.exit(main())
