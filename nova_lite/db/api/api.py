"""The API database ([api_database]): cell and host mappings, flavors,
resource providers. Refused in computes and cell conductors (disable())."""
from nova_lite.db import database

DB = database.Database(
    'api_database', 'the API database',
    'API database access is not allowed in this service.')

disable = DB.disable
available = DB.available
configure = DB.configure
get_context_manager = DB.get_context_manager
get_engine = DB.get_engine
get_engines = DB.get_engines
reset = DB.reset
reader = DB.reader
writer = DB.writer
connection_reader = DB.connection_reader
connection_writer = DB.connection_writer


def __getattr__(name):
    # The current context manager (reset() replaces it).
    if name == 'context_manager':
        return DB.get_context_manager()
    raise AttributeError(name)
