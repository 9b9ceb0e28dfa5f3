"""The cell database: the [database] context manager, or a cell's own.

A context targeted at a cell (context.target_cell) carries that cell's
context manager in context.db_connection; otherwise [database] is used.
"""
import functools

from oslo_db.sqlalchemy import enginefacade

from nova_lite.conf import CONF

context_manager = enginefacade.transaction_context()
_configured = False


_disabled = False


def disable():
    """Refuse cell DB access in this process (computes)."""
    global _disabled
    _disabled = True


def configure(conf=CONF):
    global _configured
    if _configured:
        return
    if _disabled:
        raise RuntimeError('Database access is not allowed in this service; '
                           'use the conductor.')
    if not conf.database.connection:
        raise RuntimeError('[database] connection is not set; this service '
                           'must not touch a cell database.')
    context_manager.configure(**_options(conf.database.connection))
    _configured = True


def _options(connection):
    db = CONF.database
    return {'connection': connection,
            'sqlite_fk': True,
            'mysql_sql_mode': db.mysql_sql_mode,
            'connection_recycle_time': db.connection_recycle_time,
            'max_pool_size': db.max_pool_size,
            'max_overflow': db.max_overflow,
            'pool_timeout': db.pool_timeout,
            'max_retries': db.max_retries,
            'retry_interval': db.retry_interval}


def create_context_manager(connection):
    """A context manager for one cell's database (cached by target_cell)."""
    if _disabled:
        raise RuntimeError('Database access is not allowed in this service.')
    ctxt_mgr = enginefacade.transaction_context()
    ctxt_mgr.configure(**_options(connection))
    return ctxt_mgr


def get_context_manager(context):
    if context is not None and getattr(context, 'db_connection', None):
        return context.db_connection
    configure()
    return context_manager


def get_engine(context=None):
    return get_context_manager(context).writer.get_engine()


def reset():
    global context_manager, _configured
    context_manager = enginefacade.transaction_context()
    _configured = False


def reader(fn):
    """Run fn(context, ...) in a reader transaction on the context's cell."""
    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        with get_context_manager(context).reader.using(context):
            return fn(context, *args, **kwargs)
    return wrapper


def writer(fn):
    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        with get_context_manager(context).writer.using(context):
            return fn(context, *args, **kwargs)
    return wrapper
