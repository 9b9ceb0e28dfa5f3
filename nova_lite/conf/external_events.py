"""[external_events]: how the embedded network and volume services reach
the compute API's POST /os-server-external-events from a process that
does not host the API (a compute of a multi-process deployment), as
Neutron's and Cinder's [nova] sections do.

Unset ``endpoint`` (the default): such a process sends no event, so
its ports are bound ACTIVE at once and no compute waits for a
network-vif-plugged that could not come. The all-in-one needs none of
this: its network service calls its own compute API directly.
"""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = 'external_events'

external_events_group = cfg.OptGroup(
    GROUP, title='Server external events sender options',
    help='Where the embedded network and volume services send server '
         'external events (network-vif-plugged, volume-reimaged) from a '
         'process that does not host the compute API, and with which '
         'credentials (a Keystone auth_type and its options, else '
         '``token``; the session options too: ``timeout``, 30 s when '
         'unset). An administrator may send them (Nova\'s default '
         'policy).')

external_events_opts = [
    cfg.URIOpt('endpoint', schemes=['http', 'https'],
               help='The compute API\'s URL (http://host:port, with or '
                    'without /v2.1). Unset: events are sent only where '
                    'the compute API runs in the same process, and a '
                    'process without it binds ports ACTIVE with no '
                    'event to wait for.'),
    cfg.StrOpt('token', default='admin', secret=True,
               help='X-Auth-Token sent when no Keystone auth_type is set '
                    '(the API\'s noauth2: "admin" is an administrator).'),
]


def register_opts(conf):
    conf.register_group(external_events_group)
    conf.register_opts(external_events_opts, group=external_events_group)
    ks_loading.register_auth_conf_options(conf, GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)


def list_opts():
    return {GROUP: (external_events_opts
                    + ks_loading.get_session_conf_options()
                    + ks_loading.get_auth_common_conf_options()
                    + ks_loading.get_auth_plugin_conf_options('password'))}
