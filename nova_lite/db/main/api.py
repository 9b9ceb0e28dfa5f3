"""The cell database: [database], or the cell a context is targeted at
(context.target_cell). Refused in computes (disable()): they go through
the conductor."""
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
