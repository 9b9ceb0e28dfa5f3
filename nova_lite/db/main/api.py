"""The cell database: [database], or the cell a context is targeted at
(context.target_cell). Refused in computes (disable()): they go through
the conductor."""
from oslo_db import api as oslo_db_api

from nova_lite.db import database

DB = database.Database(
    'database', 'a cell database',
    'Database access is not allowed in this service; use the conductor.',
    per_cell=True)

disable = DB.disable
available = DB.available
configure = DB.configure
create_context_manager = DB.create_context_manager
get_context_manager = DB.get_context_manager
get_engine = DB.get_engine
get_engines = DB.get_engines
reset = DB.reset
reader = DB.reader
writer = DB.writer
connection_reader = DB.connection_reader
connection_writer = DB.connection_writer
writing = DB.writing

# For writers whose transactions can deadlock with each other on MariaDB
# (deletes of absent rows take gap locks that a concurrent insert then
# waits on): the whole transaction is run again. Put it above
# @writer, on a function that is its own transaction.
retry_on_deadlock = oslo_db_api.wrap_db_retry(
    max_retries=10, retry_interval=0.02, inc_retry_interval=True,
    max_retry_interval=0.5, retry_on_deadlock=True, jitter=True)
