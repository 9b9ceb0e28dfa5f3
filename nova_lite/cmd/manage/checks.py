"""Checks and defaults shared by nova-lite-manage's commands: is the API
database configured, is a database reachable, does a transport URL parse,
and Nova's naming of the cell0 database.
"""
import os

from oslo_config import cfg
import oslo_messaging as messaging
import sqlalchemy as sa

from nova_lite.cmd import common
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception


def admin_context():
    return nova_context.get_admin_context()


def require_api_db():
    if not CONF.api_database.connection:
        common.error('[api_database] connection is not set in the '
                     'configuration; this command needs the API database.'
                     + common.config_hint())
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


def default_transport_url():
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
