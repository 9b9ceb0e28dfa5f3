from oslo_config import cfg

api_group = cfg.OptGroup('api', title='REST API options')

opts = [
    cfg.StrOpt('auth_strategy', default='keystone',
               choices=[('keystone', 'keystonemiddleware auth_token'),
                        ('noauth2', 'testing only: token "user:project", '
                                    'user "admin" gets the admin role')],
               help='How API requests are authenticated.'),
    cfg.HostAddressOpt('listen', default='0.0.0.0',
                       help='Address the API listens on.'),
    cfg.PortOpt('port', default=8774, help='Port the API listens on.'),
    cfg.IntOpt('workers', default=1, min=1,
               help='Number of API worker processes.'),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help='Largest number of items one list response returns.'),
    cfg.IntOpt('list_cell_timeout', default=30, min=1,
               help='Seconds a server list waits for each cell. A cell '
                    'that has not answered by then is left out of the '
                    'list with a warning (before microversion 2.69) or '
                    'shown as minimal records with status UNKNOWN (2.69 '
                    'and later).'),
    cfg.StrOpt('api_paste_config', default='api-paste.ini',
               help='Paste deploy file; looked up next to the config files, '
                    'then in the packaged etc/nova_lite.'),
    cfg.IntOpt('max_request_body_size', default=114688, min=1,
               help='Largest request body accepted, in bytes.'),
    cfg.IntOpt('rpc_send_retries', default=2, min=-1,
               help='How many times the API retries connecting to the '
                    'message queue to send one message before it gives '
                    'up, undoes the request and answers 503 (-1: retry '
                    'for ever). The wait between tries is oslo.messaging\'s '
                    '[oslo_messaging_rabbit] rabbit_retry_interval, growing '
                    'by rabbit_retry_backoff up to rabbit_interval_max '
                    '(defaults: 2 retries, about 4 s).'),
    cfg.BoolOpt('enable_instance_password', default=True,
                help='Whether server create and rebuild answer with the '
                     'administrative password (adminPass), as Nova\'s '
                     'option of the same name.'),
    cfg.StrOpt('project_id_regex',
               help='Regular expression a project id in the URL '
                    '(/v2.1/{project_id}/...) must match; unset: hex '
                    'digits and dashes, as the project ids Keystone '
                    'makes. A first segment that matches it and is no '
                    'resource of the API is taken as the project id.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(opts, group=api_group)


def list_opts():
    return {api_group.name: opts}
