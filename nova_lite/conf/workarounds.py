from oslo_config import cfg

group = cfg.OptGroup('workarounds', title='Workarounds')

opts = [
    cfg.BoolOpt('disable_compute_service_check_for_ffu', default=False,
                help='Let API and conductor start while computes older than '
                     'the oldest supported version are recorded (only '
                     'during a fast-forward upgrade).'),
    cfg.ListOpt('wait_for_vif_plugged_event_during_hard_reboot',
                default=[],
                item_type=cfg.types.String(choices=[
                    'normal', 'direct', 'macvtap', 'baremetal',
                    'direct-physical', 'virtio-forwarder', 'smart-nic',
                    'vdpa', 'accelerator-direct',
                    'accelerator-direct-physical', 'remote-managed']),
                help='VNIC types whose ports a hard reboot unplugs, plugs '
                     'again and waits for network-vif-plugged of (with '
                     '[DEFAULT] vif_plugging_timeout; a fatal miss leaves '
                     'the rebooted guest running with a fault recorded), '
                     'as Nova\'s option of the same name. The embedded '
                     'network service\'s ports are all "normal". Empty '
                     '(the default): a hard reboot waits for nothing.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group.name: opts}
