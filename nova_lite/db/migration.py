"""Run the alembic trees shipped as nova_lite.migrations (api, main,
local_services)."""
import importlib.util
import logging
import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
import sqlalchemy as sa

DATABASES = ('api', 'main', 'local_services')
LOG = logging.getLogger(__name__)
# Where alembic reports each step ("Running upgrade ...", "Context impl
# ..."): some 35 lines at INFO for a fresh all-in-one.
ALEMBIC_LOGGERS = ('alembic.runtime.migration', 'alembic.runtime.plugins',
                   'alembic.env')


class _AlembicStepsAtDebug(logging.Filter):
    """Alembic's INFO records go to our log at DEBUG instead: schema steps
    are detail for an operator (warnings and errors pass unchanged)."""

    def filter(self, record):
        if record.levelno != logging.INFO:
            return True
        LOG.debug('alembic: %s', record.getMessage())
        return False


_ALEMBIC_FILTER = _AlembicStepsAtDebug()
for _name in ALEMBIC_LOGGERS:
    logging.getLogger(_name).addFilter(_ALEMBIC_FILTER)


def migrations_dir(database):
    """The alembic tree of a database in DATABASES: the checkout's when
    nova_lite is imported from a checkout (it matches that code, even
    with another checkout installed editable), else the installed one."""
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    base = os.path.join(checkout, 'migrations')
    if not os.path.isfile(os.path.join(checkout, 'setup.py')):
        # Installed: a package of data (setup.py maps migrations/ to it).
        spec = importlib.util.find_spec('nova_lite.migrations')
        if spec is not None and spec.submodule_search_locations:
            base = list(spec.submodule_search_locations)[0]
    path = os.path.join(base, database)
    if not os.path.isdir(path):
        raise RuntimeError('alembic tree for %s not found at %s'
                           % (database, path))
    return path


def _config(database, connection):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', migrations_dir(database))
    cfg.attributes['connection'] = connection
    return cfg


def _engine(url):
    return sa.create_engine(url, poolclass=sa.pool.NullPool)


def db_sync(database, url, version=None):
    """Upgrade the database at url to version (default: head)."""
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            alembic_command.upgrade(_config(database, conn),
                                    version or 'heads')
    finally:
        engine.dispose()


def db_version(database, url):
    """The current revision of the database at url, or None if empty."""
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return alembic_migration.MigrationContext.configure(
                conn).get_current_revision()
    finally:
        engine.dispose()


def head(database):
    from alembic import script
    return script.ScriptDirectory.from_config(
        _config(database, None)).get_current_head()


def run_env(context):
    """The body of both alembic trees' env.py (online mode only).

    db_sync passes the connection in config.attributes; the alembic CLI
    (sqlalchemy.url in an ini) gets an engine of its own. render_as_batch
    lets SQLite alter tables by copy.
    """
    connection = context.config.attributes.get('connection')
    if connection is not None:
        _run(context, connection)
        return
    engine = sa.create_engine(
        context.config.get_main_option('sqlalchemy.url'))
    try:
        with engine.connect() as conn:
            _run(context, conn)
    finally:
        engine.dispose()


def _run(context, connection):
    context.configure(connection=connection, target_metadata=None,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
