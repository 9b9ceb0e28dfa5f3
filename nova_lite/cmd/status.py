"""nova-lite-status upgrade check: is this deployment ready to upgrade?

    nova-lite-status [--config-file FILE] upgrade check [--json]

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

COMPUTE_BINARY = 'nova-lite-compute'
CELL0_UUID = '00000000-0000-0000-0000-000000000000'
DB_CONNECT_TIMEOUT = 10

Code = upgradecheck.Code
Result = upgradecheck.Result


# Only the columns the checks read, so older schemas still answer.
_CELL_MAPPINGS = sa.table('cell_mappings', sa.column('id'), sa.column('uuid'),
                          sa.column('name'), sa.column('database_connection'))
_HOST_MAPPINGS = sa.table('host_mappings', sa.column('host'))
_SERVICES = sa.table('services', sa.column('host'), sa.column('binary'),
                     sa.column('deleted'))


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
        cell_url, sa.select(c.host).where(c.binary == COMPUTE_BINARY,
                                          c.deleted == 0))}


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
            return Result(Code.FAILURE, '[api_database] connection is not '
                          'set in the configuration.')
        cells = _cell_mappings()
        if not any(c.uuid == CELL0_UUID for c in cells):
            return Result(Code.FAILURE, 'No cell0 mapping found. Run '
                          'nova-lite-manage cell_v2 map_cell0.')
        cells = [c for c in cells if c.uuid != CELL0_UUID]
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

    _upgrade_checks = (
        ('Cells v2', _check_cellsv2),
    )


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    common.prepare_cli(CONF)
    try:
        return upgradecheck.main(CONF, project='nova_lite',
                                 upgrade_command=Checks(), argv=argv)
    except SystemExit as exc:  # --help, or argparse rejected the input
        return exc.code if isinstance(exc.code, int) else 1
    except cfg.Error as exc:
        common.error(str(exc))
        return 255
    finally:
        common.release_cli(CONF)


if __name__ == '__main__':
    sys.exit(main())
