"""The local-services database ([local_services]): the embedded image and
network and volume backends (nova_lite/image, nova_lite/network,
nova_lite/volume).

Unlike the API database, computes may open it: it stands in for the
Glance, Neutron and Cinder REST APIs, which real computes call
directly.
"""
from nova_lite.db import database

DB = database.Database(
    'local_services', 'the local-services database',
    'Local-services database access is not allowed in this service.')

disable = DB.disable
available = DB.available
configure = DB.configure
get_context_manager = DB.get_context_manager
get_engine = DB.get_engine
get_engines = DB.get_engines
reset = DB.reset
reader = DB.reader
writer = DB.writer
