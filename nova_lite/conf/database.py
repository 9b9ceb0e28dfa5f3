"""[database] (the cell database) and [api_database]."""
import copy

from oslo_config import cfg
from oslo_db import options as oslo_db_options

api_db_group = cfg.OptGroup('api_database', title='API database options',
                            help='The API database: cell mappings, flavors, '
                                 'resource providers. Leave connection unset '
                                 'on cell conductors and computes.')

# The same knobs as [database], for the API database (own copies so the
# two groups can differ).
_API_DB_OPT_NAMES = ('connection', 'slave_connection', 'sqlite_synchronous',
                     'mysql_sql_mode', 'connection_recycle_time',
                     'max_pool_size', 'max_retries', 'retry_interval',
                     'max_overflow', 'pool_timeout', 'connection_debug')
api_db_opts = [copy.deepcopy(opt) for opt in oslo_db_options.database_opts
               if opt.name in _API_DB_OPT_NAMES]
for _opt in api_db_opts:
    _opt.deprecated_opts = []


def register_opts(conf):
    conf.register_opts(oslo_db_options.database_opts, 'database')
    conf.register_group(api_db_group)
    conf.register_opts(api_db_opts, group=api_db_group)


def list_opts():
    return {'database': oslo_db_options.database_opts,
            api_db_group.name: api_db_opts}
