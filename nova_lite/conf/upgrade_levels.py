from oslo_config import cfg

group = cfg.OptGroup('upgrade_levels', title='RPC version caps',
                     help='Cap the RPC version sent to each service during '
                          'a rolling upgrade: a version like "1.0", a release '
                          'alias, or "auto" to derive the cap from the '
                          'minimum service version recorded.')

opts = [
    cfg.StrOpt('compute', help='Cap for the compute RPC API.'),
    cfg.StrOpt('conductor', help='Cap for the conductor RPC API (object '
                                 'indirection).'),
    cfg.StrOpt('compute_task',
               help='Cap for the compute_task RPC API (served by super '
                    'conductors). "auto" derives it from the oldest '
                    'nova-conductor; it is not called at all while that '
                    'one is older than service version 4.'),
    cfg.StrOpt('scheduler', help='Cap for the scheduler RPC API.'),
    cfg.StrOpt('placement',
               help='Cap for the placement RPC API (served by '
                    'nova-scheduler on every cell\'s transport). '
                    '"auto" derives it from the oldest scheduler where the '
                    'services of all cells are visible; computes and cell '
                    'conductors cannot see them and send uncapped.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
