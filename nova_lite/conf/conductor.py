from oslo_config import cfg

group = cfg.OptGroup('conductor', title='Conductor')

opts = [
    cfg.IntOpt('cross_cell_resize_timeout', default=180, min=1,
               help='Seconds the super conductor waits for each '
                    'synchronous compute call of a cross-cell resize '
                    '(prep at the destination and at the source, finish, '
                    'confirm and revert steps).'),
    cfg.IntOpt('build_request_timeout', default=600, min=0,
               help='Seconds after which a boot that no super conductor '
                    'has picked up (its build request written, its '
                    'message to the conductor lost: an API killed '
                    'before it sent it, a message dropped by a broker '
                    'restart) is buried by the super conductors\' '
                    'periodic task: the server goes to ERROR in cell0 '
                    'with a fault, its create action fails and nothing '
                    'stays reserved for it. A boot a conductor picked '
                    'up is never buried this way. Checked every '
                    '[DEFAULT] periodic_interval seconds, or every '
                    'build_request_timeout seconds when that is '
                    'shorter; 0 disables it.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
