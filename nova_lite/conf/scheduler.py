from oslo_config import cfg

group = cfg.OptGroup('scheduler', title='Scheduler options')

opts = [
    cfg.IntOpt('discover_hosts_in_cells_interval', default=-1, min=-1,
               help='Seconds between two automatic host discoveries by '
                    'the scheduler: the compute hosts of every cell '
                    'that have no host mapping yet are mapped, as '
                    '`nova-lite-manage cell_v2 discover_hosts` does (a '
                    'host mapped to another cell is logged, not '
                    'remapped). 0 discovers at every run of the '
                    'periodic tasks ([DEFAULT] periodic_interval); -1 '
                    '(the default) never: map new hosts with '
                    'nova-lite-manage.'),
    cfg.IntOpt('max_attempts', default=3, min=1,
               help='Hosts (primary plus alternates) tried per request.'),
    cfg.IntOpt('max_candidates', default=1000, min=1,
               help='Allocation candidates read per request (the most '
                    'hosts the filters and weighers look at), like '
                    "Nova's max_placement_results."),
    cfg.ListOpt('weight_classes', default=['ram'],
                help='Weighers applied to candidate hosts, in order: '
                     'ram (free memory), cpu (free vCPUs), disk (free '
                     'disk).'),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help='Multiplier of the ram weigher; negative stacks '
                      'instead of spreading.'),
    cfg.FloatOpt('cpu_weight_multiplier', default=1.0,
                 help='Multiplier of the cpu weigher.'),
    cfg.FloatOpt('disk_weight_multiplier', default=1.0,
                 help='Multiplier of the disk weigher.'),
    cfg.BoolOpt('query_placement_for_availability_zone', default=True,
                help='Restrict the allocation candidates of a request '
                     'for an availability zone to the resource providers '
                     'in the placement aggregates of that zone\'s host '
                     'aggregates, inside the one candidate query (as '
                     'Nova). A zone no aggregate defines is left to the '
                     'AvailabilityZoneFilter.'),
    cfg.BoolOpt('limit_tenants_to_placement_aggregate', default=False,
                help='A project named in the filter_tenant_id (or '
                     'filter_tenant_id<suffix>) metadata of host '
                     'aggregates is placed only on the hosts of those '
                     'aggregates (a placement pre-filter, as Nova).'),
    cfg.BoolOpt('placement_aggregate_required_for_tenants', default=False,
                help='With limit_tenants_to_placement_aggregate: a '
                     'project named in no aggregate\'s filter_tenant_id '
                     'finds no host (otherwise it may use any host).'),
    cfg.BoolOpt('enable_isolated_aggregate_filtering', default=False,
                help='Keep a request off the hosts of aggregates whose '
                     'trait:<TRAIT>=required metadata names a trait the '
                     'request (flavor extra specs, image properties) '
                     'does not require (a placement pre-filter, as '
                     'Nova).'),
]

filter_group = cfg.OptGroup('filter_scheduler',
                            title='Filter scheduler options')

filter_opts = [
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'AvailabilityZoneFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help='Host filters applied, in order, to the allocation '
                     'candidates, by Nova\'s names (see '
                     'nova_lite/scheduler/filters/). Names of filters '
                     'nova_lite does not have are logged and ignored.'),
    cfg.FloatOpt('cross_cell_move_weight_multiplier', default=1000000.0,
                 help='Multiplier of the cross-cell weigher, which only '
                      'weighs hosts during a move that may cross cells '
                      '(a cross-cell resize): hosts in the cell the server '
                      'lives in get this weight. A positive value prefers '
                      'the source cell (the default, big enough to win '
                      'over the other weighers); a negative value prefers '
                      'the other cells, e.g. to drain servers off old '
                      'hardware in an old cell; 0 has no preference.'),
    cfg.FloatOpt('soft_affinity_weight_multiplier', default=1.0, min=0.0,
                 help='Multiplier of the soft-affinity weigher: for a '
                      'server of a soft-affinity group, hosts with more '
                      'members of the group weigh more.'),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', default=1.0,
                 min=0.0,
                 help='Multiplier of the soft-anti-affinity weigher: for '
                      'a server of a soft-anti-affinity group, hosts with '
                      'more members of the group weigh less.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)
    conf.register_group(filter_group)
    conf.register_opts(filter_opts, group=filter_group)


def list_opts():
    return {group.name: opts, filter_group.name: filter_opts}
