from oslo_config import cfg

group = cfg.OptGroup('scheduler', title='Scheduler options')

opts = [
    cfg.IntOpt('discover_hosts_in_cells_interval', default=-1, min=-1,
               help='Seconds between automatic host discovery; -1 disables.'),
    cfg.IntOpt('max_attempts', default=3, min=1,
               help='Hosts (primary plus alternates) tried per request.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
