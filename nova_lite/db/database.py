"""One database this process may use, behind an oslo.db enginefacade
context manager: the API database and the cell databases are each one
Database (db/api/api.py, db/main/api.py).

Invariants:
- A Database configures its context manager from its config group on
  first use; a process that disable()d it (computes; cell conductors for
  the API DB) gets RuntimeError on any use instead, and so does a
  context whose ``refused_databases`` names its group (the all-in-one's
  computes and cell conductors, which share a process with the API).
- A cell Database (per_cell) runs a function on the context manager the
  context was targeted at (context.target_cell sets
  context.db_connection); otherwise, and always for the API DB, on its
  own.
- Context managers on SQLite files are made safe for concurrent green
  threads (db/sqlite.py).
"""
import functools
import threading

from oslo_db.sqlalchemy import enginefacade

from nova_lite.conf import CONF
from nova_lite.db import sqlite


class Database(object):

    def __init__(self, group, name, refusal, per_cell=False):
        """group: the config group ('database', 'api_database'); name:
        how errors call it; refusal: the error after disable()."""
        self.group = group
        self.name = name
        self.refusal = refusal
        self.per_cell = per_cell
        self._disabled = False
        self._lock = threading.Lock()
        self.reset()

    def disable(self):
        """Refuse this database in this process from now on."""
        self._disabled = True

    def available(self, conf=CONF):
        """True when this process may use the database (configured, and
        not disable()d)."""
        return not self._disabled and bool(conf[self.group].connection)

    def _check_allowed(self, context=None):
        if self._disabled or self.group in getattr(
                context, 'refused_databases', ()):
            raise RuntimeError(self.refusal)

    def configure(self, conf=CONF):
        """Configure the context manager from the config group (once)."""
        if self._configured:
            return
        self._check_allowed()
        group = conf[self.group]
        if not group.connection:
            raise RuntimeError('[%s] connection is not set; this service '
                               'must not touch %s.' % (self.group, self.name))
        with self._lock:
            if not self._configured:
                _configure(self.context_manager, self._options(
                    group.connection, group.slave_connection))
                self._configured = True

    def _options(self, connection, slave_connection=None):
        group = CONF[self.group]
        return {'connection': connection,
                'slave_connection': slave_connection,
                'sqlite_fk': True,
                'mysql_sql_mode': group.mysql_sql_mode,
                'connection_recycle_time': group.connection_recycle_time,
                'max_pool_size': group.max_pool_size,
                'max_overflow': group.max_overflow,
                'pool_timeout': group.pool_timeout,
                'max_retries': group.max_retries,
                'retry_interval': group.retry_interval,
                'connection_debug': group.connection_debug}

    def create_context_manager(self, connection):
        """A context manager for another database of this kind (a cell's;
        cached by context.target_cell)."""
        self._check_allowed()
        manager = enginefacade.transaction_context()
        _configure(manager, self._options(connection))
        return manager

    def get_context_manager(self, context=None):
        """The context manager for context: its cell's if targeted (cell
        databases), else this database's own."""
        self._check_allowed(context)
        if self.per_cell:
            targeted = getattr(context, 'db_connection', None)
            if targeted is not None:
                return targeted
        self.configure()
        return self.context_manager

    def get_engine(self, context=None):
        """The writer engine (see get_context_manager)."""
        return self.get_context_manager(context).writer.get_engine()

    def get_engines(self, context=None):
        """Every engine of get_context_manager(context): the writer's and,
        where readers have their own (SQLite files), the reader's."""
        manager = self.get_context_manager(context)
        writer, reader = (manager.writer.get_engine(),
                          manager.reader.get_engine())
        return [writer] if reader is writer else [writer, reader]

    def reset(self):
        """Forget the context manager and its engines (tests, and
        processes that re-read config); disable() stays."""
        self.context_manager = enginefacade.transaction_context()
        self._configured = False

    def reader(self, fn):
        """Decorate fn(context, ...) to run in a reader transaction."""
        @functools.wraps(fn)
        def wrapper(context, *args, **kwargs):
            with self.get_context_manager(context).reader.using(context):
                return fn(context, *args, **kwargs)
        return wrapper

    def writer(self, fn):
        """Decorate fn(context, ...) to run in a writer transaction."""
        @functools.wraps(fn)
        def wrapper(context, *args, **kwargs):
            with self.get_context_manager(context).writer.using(context):
                return fn(context, *args, **kwargs)
        return wrapper

    def writing(self, context):
        """A writer transaction on context's connection for a block:
        connection_writer functions called with context inside it join
        it, so their writes commit or roll back together. (ORM session
        writers must not be called inside it.)"""
        return self.get_context_manager(context).writer.connection.using(
            context)

    def connection_reader(self, fn):
        """Like reader, but fn runs Core statements on context.connection
        (no ORM Session: less work per transaction on hot paths)."""
        @functools.wraps(fn)
        def wrapper(context, *args, **kwargs):
            manager = self.get_context_manager(context)
            with manager.reader.connection.using(context):
                return fn(context, *args, **kwargs)
        return wrapper

    def connection_writer(self, fn):
        """Like writer, on context.connection (see connection_reader)."""
        @functools.wraps(fn)
        def wrapper(context, *args, **kwargs):
            manager = self.get_context_manager(context)
            with manager.writer.connection.using(context):
                return fn(context, *args, **kwargs)
        return wrapper


def _configure(manager, options):
    sqlite.configure(manager, options)
