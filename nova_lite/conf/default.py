import socket

from oslo_config import cfg
from oslo_messaging import opts as messaging_opts
from oslo_utils import netutils

opts = [
    cfg.StrOpt('host', default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this node, used for the service record and RPC '
                    'server name. Must be unique within a cell.'),
    cfg.IPOpt('my_ip', default=netutils.get_my_ipv4(),
              sample_default='<host_ipv4>',
              help='IP address of this host; computes report it as their '
                   'hypervisors\' host_ip.'),
    cfg.StrOpt('state_path', default='./nova-lite-state',
               help='Directory for state kept on disk (simulated guests).'),
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between service heartbeats.'),
    cfg.IntOpt('service_down_time', default=60, min=1,
               help='Seconds after the last heartbeat before a service '
                    'is reported down. Must exceed report_interval.'),
    cfg.IntOpt('periodic_interval', default=60, min=1,
               help='Seconds between runs of periodic tasks.'),
    cfg.IntOpt('cell_timeout', default=60, min=1,
               help='Seconds to wait for one cell in a scatter-gather '
                    'before reporting it as not responding.'),
]


def register_opts(conf):
    conf.register_opts(opts)
    # oslo.messaging registers transport_url & co. only when a transport
    # is first made; register the very same option objects up front so
    # config files and overrides can set them before that.
    from oslo_messaging import transport as messaging_transport
    conf.register_opts(messaging_transport._transport_opts)
    # Likewise oslo.messaging's other [DEFAULT] options (rpc_response_timeout:
    # the timeout of every RPC call we make); its list_opts names that
    # group None.
    registered = {opt.name for opt in messaging_transport._transport_opts}
    for group, group_opts in messaging_opts.list_opts():
        if group is None:
            conf.register_opts([opt for opt in group_opts
                                if opt.name not in registered])


def list_opts():
    return {'DEFAULT': opts}
