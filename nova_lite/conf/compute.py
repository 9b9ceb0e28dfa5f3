from oslo_config import cfg

opts = [
    cfg.StrOpt('compute_driver', default='fake',
               help='Virt driver; "fake" is the simulated hypervisor.'),
    cfg.FloatOpt('cpu_allocation_ratio', default=16.0, min=0.0,
                 help='Virtual CPUs offered per physical CPU.'),
    cfg.FloatOpt('ram_allocation_ratio', default=1.5, min=0.0,
                 help='Virtual memory offered per MiB of physical memory.'),
    cfg.FloatOpt('disk_allocation_ratio', default=1.0, min=0.0,
                 help='Virtual disk offered per GiB of local disk.'),
    cfg.IntOpt('reserved_host_memory_mb', default=512, min=0,
               help='Memory (MiB) kept back for the host itself.'),
    cfg.IntOpt('reserved_host_disk_mb', default=0, min=0,
               help='Disk (MiB) kept back for the host itself.'),
    cfg.IntOpt('reserved_host_cpus', default=0, min=0,
               help='Physical CPUs kept back for the host itself.'),
    cfg.IntOpt('update_resources_interval', default=60, min=1,
               help='Seconds between resource tracker updates.'),
    cfg.IntOpt('max_pci_devices_per_instance', default=8, min=1,
               help='max_unit of the PCI resource-class inventories '
                    '(PCI_DEVICE, SRIOV_NET_VF, CUSTOM_PCI_SRIOV_PF) made '
                    'from a compute node\'s pci_stats: the most devices '
                    'of one class a single instance may take.'),
    cfg.StrOpt('default_availability_zone', default='nova',
               help='The availability zone of compute hosts (there are '
                    'no host aggregates: every host is in this zone).'),
    cfg.StrOpt('internal_service_availability_zone', default='internal',
               help='The availability zone of the services that are not '
                    'computes (conductors, schedulers); os-availability-'
                    'zone lists it only in its detail.'),
    cfg.StrOpt('default_schedule_zone',
               help='The availability zone a server goes to when its '
                    'request names none (unset: any).'),
    cfg.IntOpt('max_servers_per_request', default=1000, min=1,
               help='The largest max_count a server create accepts.'),
    cfg.StrOpt('running_deleted_instance_action', default='reap',
               choices=[('reap', 'destroy the guest and free what it '
                                 'held (ports, placement allocations)'),
                        ('log', 'only log a warning'),
                        ('shutdown', 'power the guest off and log'),
                        ('noop', 'do not look for such guests')],
               help='What a compute does, at start-up and every '
                    'running_deleted_instance_poll_interval seconds, with '
                    'a guest its driver runs whose server is deleted (or '
                    'gone from the cell, or lives on another host).'),
    cfg.IntOpt('running_deleted_instance_poll_interval', default=1800,
               help='Seconds between two looks for guests of deleted '
                    'servers (running_deleted_instance_action); 0 or less: '
                    'only at start-up.'),
    cfg.IntOpt('running_deleted_instance_timeout', default=0, min=0,
               help='Seconds a server must have been deleted before its '
                    'guest is acted on (running_deleted_instance_action).'),
    cfg.IntOpt('delete_retry_interval', default=60, min=1,
               help='Seconds a server may stay in task_state deleting on '
                    'a compute that is up before the delete is sent again: '
                    'by a new DELETE of the server, and by the compute\'s '
                    'own periodic task (a delete lost in a message-queue '
                    'restart still completes).'),
    cfg.IntOpt('metadata_items', default=128, min=-1,
               help='The most metadata items (key/value pairs) a server '
                    'may carry, on create and through /servers/{id}/'
                    'metadata (Nova\'s [quota] metadata_items default); '
                    '-1: no limit. Beyond it a request is a 403.'),
    cfg.IntOpt('shelved_offload_time', default=0, min=-1,
               help='Seconds a shelved server keeps its guest and its '
                    'resources on its host before its compute offloads it '
                    '(SHELVED_OFFLOADED): 0 offloads at once, as part of '
                    'the shelve; -1 never (only shelveOffload does).'),
    cfg.BoolOpt('instance_usage_audit', default=False,
                help='Each compute audits the usage of its servers once '
                     'per completed audit period: instance.exists for '
                     'each server, and a task log that GET '
                     '/os-instance_usage_audit_log reports.'),
    cfg.StrOpt('instance_usage_audit_period', default='month',
               regex=r'^(hour|day|month|year)(@\d+)?$',
               help='The audit period: hour, day, month or year, '
                    'optionally @N (the minute, hour, day or month at '
                    'which a period starts), as Nova\'s.'),
    cfg.IntOpt('reclaim_instance_interval', default=0,
               help='Above 0: a DELETE of a server that has run only soft '
                    'deletes it (SOFT_DELETED: guest powered off, its '
                    'resources kept, restorable with the restore action) '
                    'and its compute deletes it for good this many seconds '
                    'later (checked every periodic run); forceDelete '
                    'deletes at once. 0 or less: DELETE deletes at once.'),
    cfg.IntOpt('shelved_poll_interval', default=3600,
               help='Seconds between two looks of a compute for shelved '
                    'servers older than shelved_offload_time; 0 or less: '
                    'never.'),
]


# Nova's [compute] section.
GROUP = 'compute'
compute_group_opts = [
    cfg.IntOpt('max_disk_devices_to_attach', default=-1, min=-1,
               help='The most disk devices (the root disk, local and '
                    'volume ones) a server on this host may have, as '
                    'Nova\'s option of that name: a volume attach past '
                    'it is refused (403) and a build with more is '
                    'aborted (ERROR, not rescheduled). Not enforced on '
                    'a shelved-offloaded server, which has no host. -1: '
                    'no limit.'),
    cfg.BoolOpt('live_migration_wait_for_vif_plug', default=True,
                help='Whether the source of a live migration waits for '
                     'network-vif-plugged of the server\'s ports, plugged '
                     'on the destination while it prepares, before the '
                     'copy starts (with [DEFAULT] vif_plugging_timeout; '
                     'a missing event fails the migration when '
                     'vif_plugging_is_fatal, which rolls it back), as '
                     'Nova\'s option of that name.'),
]


def register_opts(conf):
    conf.register_opts(opts)
    conf.register_opts(compute_group_opts, group=GROUP)


def list_opts():
    return {'DEFAULT': opts, GROUP: compute_group_opts}
