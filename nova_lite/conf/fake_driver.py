from oslo_config import cfg

group = cfg.OptGroup('fake_driver', title='Simulated hypervisor')

opts = [
    cfg.IntOpt('vcpus', default=16, min=1,
               help='Physical CPUs each simulated host reports.'),
    cfg.IntOpt('memory_mb', default=32768, min=1,
               help='Memory (MiB) each simulated host reports.'),
    cfg.IntOpt('local_gb', default=1024, min=1,
               help='Local disk (GiB) each simulated host reports.'),
    cfg.StrOpt('hypervisor_type', default='fake',
               help='Hypervisor type reported in os-hypervisors.'),
    cfg.IntOpt('hypervisor_version', default=1000,
               help='Hypervisor version reported in os-hypervisors.'),
    cfg.BoolOpt('ephemeral_storage_shared', default=False,
                help='Report ephemeral disks as kept on storage shared '
                     'with other hosts (stats key ephemeral_storage_shared):'
                     ' the node then offers no DISK_GB inventory.'),
    cfg.FloatOpt('spawn_delay', default=0.0, min=0.0,
                 help='Seconds a simulated spawn takes.'),
    cfg.ListOpt('fail_spawn_on_hosts', default=[],
                help='Hosts whose simulated spawns fail (for tests and '
                     'demonstrations of rescheduling).'),
    cfg.ListOpt('fail_spawn_for_names', default=[],
                help='Server names whose simulated spawns fail on every '
                     'host.'),
    cfg.ListOpt('fail_methods', default=[],
                help='Driver methods that raise a simulated failure '
                     '(fake.SimulatedFailure) instead of running, for '
                     'failure-injection tests: a method name (every '
                     'host) or method@host (that host only), e.g. '
                     'finish_migration@compute2.'),
    cfg.DictOpt('delay_methods', default={},
                help='Driver methods that sleep first: method:seconds, '
                     'or method@host:seconds for one host only, e.g. '
                     'finish_migration:30,migrate_disk_and_power_off'
                     '@compute1:5. The sleep comes before any failure '
                     'fail_methods injects.'),
    cfg.FloatOpt('live_migration_seconds', default=0.0, min=0.0,
                 help='Seconds a simulated live migration takes to copy '
                      'the guest\'s memory (and, for a block migration, '
                      'its disk) to the destination; progress is '
                      'reported along the way. 0: at once.'),
    cfg.BoolOpt('guest_ssh', default=False,
                help='Running guests answer SSH on port 22 of each of '
                     'their IPv4 addresses this machine can bind (in '
                     'practice 127.0.0.0/8: give the network service\'s '
                     'private network such a range, [local_services] '
                     'private_network_cidr) and run the commands a test '
                     'harness such as Tempest sends them, as a small '
                     'Linux guest would. Logins: the key pair\'s public '
                     'key or the server\'s admin password. Needs '
                     'paramiko and a compute running as root (port 22).'),
    cfg.StrOpt('cpu_info', default='{"arch": "x86_64", "model": "fake"}',
               help='CPU description (JSON) reported by the host.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
