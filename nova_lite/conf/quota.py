"""[quota]: Nova's quota options, with Nova's names and defaults (-1 is
unlimited)."""
from oslo_config import cfg

group = cfg.OptGroup('quota', title='Quota options')

_LIMITS = (
    ('instances', 10, 'Instances (servers) a project may have.'),
    ('cores', 20, 'Instance cores (VCPUs) a project may use.'),
    ('ram', 51200, 'Megabytes of instance RAM a project may use.'),
    ('metadata_items', 128, 'Metadata items a server may carry.'),
    ('injected_files', 5, 'Personality files a server may be given.'),
    ('injected_file_content_bytes', 10240,
     'Bytes of content a personality file may hold.'),
    ('injected_file_path_length', 255,
     'Characters a personality file\'s path may have.'),
    ('key_pairs', 100, 'Key pairs a user may have.'),
    ('server_groups', 10, 'Server groups a project may have.'),
    ('server_group_members', 10, 'Servers a server group may hold.'),
)

opts = [cfg.IntOpt(name, default=default, min=-1, help=text)
        for name, default, text in _LIMITS] + [
    cfg.StrOpt('driver', default='nova_lite.quota.DbQuotaDriver',
               choices=[('nova_lite.quota.DbQuotaDriver',
                         'limits stored in the API database'),
                        ('nova_lite.quota.NoopQuotaDriver',
                         'no limits at all (everything unlimited)'),
                        ('nova_lite.quota.UnifiedLimitsDriver',
                         'limits registered in Keystone (oslo.limit)')],
               help='The quota driver.'),
    cfg.BoolOpt('count_usage_from_placement', default=False,
                help='Count cores and ram from placement allocations and '
                     'instances from the API database\'s instance mappings '
                     '(instead of from every cell database). Ignored (always '
                     'True) with the UnifiedLimitsDriver.'),
    cfg.StrOpt('unified_limits_resource_strategy', default='require',
               choices=[('require', 'the resources in '
                         'unified_limits_resource_list must have a '
                         'registered limit (none: limited to 0); the others '
                         'without one are unlimited'),
                        ('ignore', 'the resources in '
                         'unified_limits_resource_list without a '
                         'registered limit are unlimited; the others '
                         'without one are limited to 0')],
               help='With the UnifiedLimitsDriver: what a requested '
                    'resource with no registered limit in Keystone means '
                    '(oslo.limit takes it as 0).'),
    cfg.ListOpt('unified_limits_resource_list', default=['servers'],
                help='With the UnifiedLimitsDriver: the resources '
                     'unified_limits_resource_strategy names (Keystone '
                     'names: servers, class:VCPU, class:MEMORY_MB, '
                     'class:DISK_GB, server_key_pairs, ...).'),
    cfg.BoolOpt('recheck_quota', default=True,
                help='Nova rechecks quota after creating what it counted '
                     'to catch races. Server groups and their members are '
                     'rechecked so (what a request wrote past the limit is '
                     'undone, 403); a boot\'s instances, cores and ram are '
                     'checked under a per-project lock in the transaction '
                     'that writes the build requests, so no recheck is '
                     'needed there.'),
]

RESOURCES = tuple(name for name, _, _ in _LIMITS)


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
