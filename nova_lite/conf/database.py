"""[database] (the cell database) and [api_database]."""
from oslo_config import cfg
from oslo_db import options as oslo_db_options

api_db_group = cfg.OptGroup('api_database', title='API database options',
                            help='The API database: cell mappings, flavors, '
                                 'resource providers. Leave connection unset '
                                 'on cell conductors and computes.')

api_db_opts = [
    cfg.StrOpt('connection', secret=True,
               help='SQLAlchemy URL of the API database.'),
    cfg.StrOpt('slave_connection', secret=True),
    cfg.BoolOpt('sqlite_synchronous', default=True),
    cfg.StrOpt('mysql_sql_mode', default='TRADITIONAL'),
    cfg.IntOpt('connection_recycle_time', default=3600),
    cfg.IntOpt('max_pool_size'),
    cfg.IntOpt('max_retries', default=10),
    cfg.IntOpt('retry_interval', default=10),
    cfg.IntOpt('max_overflow'),
    cfg.IntOpt('pool_timeout'),
    cfg.IntOpt('connection_debug', default=0),
]


def register_opts(conf):
    conf.register_opts(oslo_db_options.database_opts, 'database')
    conf.register_group(api_db_group)
    conf.register_opts(api_db_opts, group=api_db_group)


def list_opts():
    return {'database': oslo_db_options.database_opts,
            api_db_group.name: api_db_opts}
