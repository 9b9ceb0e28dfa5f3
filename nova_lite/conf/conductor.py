from oslo_config import cfg

group = cfg.OptGroup('conductor', title='Conductor')

opts = [
    cfg.IntOpt('cross_cell_resize_timeout', default=180, min=1,
               help='Seconds the super conductor waits for each '
                    'synchronous compute call of a cross-cell resize '
                    '(prep at the destination and at the source, finish, '
                    'confirm and revert steps).'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
