from oslo_config import cfg

group = cfg.OptGroup('fake_driver', title='Simulated hypervisor')

opts = [
    cfg.IntOpt('vcpus', default=16, min=1),
    cfg.IntOpt('memory_mb', default=32768, min=1),
    cfg.IntOpt('local_gb', default=1024, min=1),
    cfg.StrOpt('hypervisor_type', default='fake'),
    cfg.IntOpt('hypervisor_version', default=1000),
    cfg.StrOpt('cpu_info', default='{"arch": "x86_64", "model": "fake"}'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
