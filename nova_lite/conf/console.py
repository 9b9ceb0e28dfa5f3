"""Remote consoles ([vnc], [spice], [serial_console], [rdp], [mks]) and
their tokens ([consoleauth]), with Nova's defaults: the base URL a
console's access URL starts with, and whether the computes offer that
kind of console at all (only VNC by default)."""
from oslo_config import cfg

GROUPS = {
    'vnc': [
        cfg.BoolOpt('enabled', default=True,
                    help='Whether the computes offer VNC consoles.'),
        cfg.URIOpt('novncproxy_base_url',
                   default='http://127.0.0.1:6080/vnc_auto.html',
                   help='Base URL of noVNC console access URLs.'),
        cfg.HostAddressOpt('server_listen', default='127.0.0.1',
                           help='Where a compute\'s guests\' VNC servers '
                                'listen.'),
        cfg.HostAddressOpt('server_proxyclient_address',
                           default='127.0.0.1',
                           help='The address of this compute\'s VNC '
                                'servers that the console proxy connects '
                                'to.'),
        cfg.HostAddressOpt('novncproxy_host', default='0.0.0.0',
                           help='Where nova-lite-novncproxy listens.'),
        cfg.PortOpt('novncproxy_port', default=6080,
                    help='The port nova-lite-novncproxy listens on.'),
    ],
    'spice': [
        cfg.BoolOpt('enabled', default=False,
                    help='Whether the computes offer SPICE consoles.'),
        cfg.URIOpt('html5proxy_base_url',
                   default='http://127.0.0.1:6082/spice_auto.html',
                   help='Base URL of SPICE HTML5 console access URLs.'),
        cfg.URIOpt('spice_direct_proxy_base_url',
                   default='http://127.0.0.1:13002/nova',
                   help='Base URL of spice-direct console access URLs '
                        '(2.99): a SPICE protocol proxy that looks the '
                        'token up in os-console-auth-tokens.'),
        cfg.BoolOpt('require_secure', default=False,
                    help='Whether SPICE consoles listen on a TLS port too '
                         '(os-console-auth-tokens shows it as tls_port '
                         'from 2.99).'),
    ],
    'serial_console': [
        cfg.BoolOpt('enabled', default=False,
                    help='Whether the computes offer serial consoles.'),
        cfg.URIOpt('base_url', default='ws://127.0.0.1:6083/',
                   help='Base URL of serial console access URLs.'),
    ],
    'rdp': [
        cfg.BoolOpt('enabled', default=False,
                    help='Whether the computes offer RDP consoles.'),
        cfg.URIOpt('html5_proxy_base_url',
                   default='http://127.0.0.1:6083/',
                   help='Base URL of RDP HTML5 console access URLs.'),
    ],
    'mks': [
        cfg.BoolOpt('enabled', default=False,
                    help='Whether the computes offer MKS consoles (2.8).'),
        cfg.URIOpt('mksproxy_base_url',
                   default='http://127.0.0.1:6090/',
                   help='Base URL of WebMKS console access URLs.'),
    ],
    'consoleauth': [
        cfg.IntOpt('token_ttl', default=600, min=0,
                   help='Seconds a console token is valid for.'),
    ],
}


def register_opts(conf):
    for name, opts in GROUPS.items():
        conf.register_group(cfg.OptGroup(name))
        conf.register_opts(opts, group=name)


def list_opts():
    return dict(GROUPS)
