from oslo_config import cfg

group = cfg.OptGroup('workarounds', title='Workarounds')

opts = [
    cfg.BoolOpt('disable_compute_service_check_for_ffu', default=False,
                help='Let API and conductor start while computes older than '
                     'the oldest supported version are recorded (only '
                     'during a fast-forward upgrade).'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
