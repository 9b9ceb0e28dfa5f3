"""The API database: one enginefacade context manager from [api_database]."""
from oslo_db.sqlalchemy import enginefacade

from nova_lite.conf import CONF

context_manager = enginefacade.transaction_context()
_configured = False


_disabled = False


def disable():
    """Refuse API DB access in this process (computes, cell conductors)."""
    global _disabled
    _disabled = True


def available(conf=CONF):
    """True when this process may use the API database (configured, and
    not refused as in computes and cell conductors)."""
    return not _disabled and bool(conf.api_database.connection)


def configure(conf=CONF):
    global _configured
    if _configured:
        return
    if _disabled:
        raise RuntimeError('API database access is not allowed in this '
                           'service.')
    if not conf.api_database.connection:
        raise RuntimeError('[api_database] connection is not set; this '
                           'service must not touch the API database.')
    context_manager.configure(**_options(conf.api_database))
    _configured = True


def _options(group):
    return {'connection': group.connection,
            'slave_connection': group.slave_connection,
            'sqlite_fk': True,
            'mysql_sql_mode': group.mysql_sql_mode,
            'connection_recycle_time': group.connection_recycle_time,
            'max_pool_size': group.max_pool_size,
            'max_overflow': group.max_overflow,
            'pool_timeout': group.pool_timeout,
            'max_retries': group.max_retries,
            'retry_interval': group.retry_interval,
            'connection_debug': group.connection_debug}


def get_engine():
    configure()
    return context_manager.writer.get_engine()


def reset():
    """Forget engines (tests, and processes that re-read config)."""
    global context_manager, _configured
    context_manager = enginefacade.transaction_context()
    _configured = False


def reader(fn):
    """Decorate fn(context, ...) to run in an API DB reader transaction."""
    import functools

    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        configure()
        with context_manager.reader.using(context):
            return fn(context, *args, **kwargs)
    return wrapper


def writer(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        configure()
        with context_manager.writer.using(context):
            return fn(context, *args, **kwargs)
    return wrapper
