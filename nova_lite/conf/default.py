import socket

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts
from oslo_utils import netutils

# oslo.messaging's control_exchange default for our transports.
CONTROL_EXCHANGE = 'nova_lite'

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
    cfg.IntOpt('long_rpc_timeout', default=1800, min=1,
               help='Timeout, in seconds, of RPC calls that may take long: '
                    'the super conductor asking the scheduler for hosts '
                    '(select_destinations claims one host per instance '
                    'of the request). rpc_response_timeout still bounds '
                    'every other call.'),
    cfg.IntOpt('vif_plugging_timeout', default=300, min=0,
               help='Seconds a compute waits for network-vif-plugged of '
                    'the ports it plugs when spawning a server (0: no '
                    'wait), as Nova\'s option of that name.'),
    cfg.BoolOpt('vif_plugging_is_fatal', default=True,
                help='Whether the work that waits for network-vif-plugged '
                     '(a build, an unshelve, a live migration, a resize '
                     'revert) fails when the events did not come within '
                     'vif_plugging_timeout (or came failed); else it goes '
                     'on. A build that timed out is rescheduled to an '
                     'alternate host (ERROR once none is left); one whose '
                     'event came failed goes to ERROR, not rescheduled, '
                     'as Nova.'),
    cfg.IntOpt('reimage_timeout_per_gb', default=20, min=1,
               help='Seconds per GiB of its root volume a compute waits '
                    'for volume-reimaged when it rebuilds a volume-backed '
                    'server, as Nova\'s option of that name.'),
    cfg.BoolOpt('allow_resize_to_same_host', default=False,
                help='Allow a resize to pick the host the server is on '
                     '(a cold migration never does).'),
    cfg.IntOpt('resize_confirm_window', default=0, min=0,
               help='Seconds after which a resize or cold migration '
                    'waiting in VERIFY_RESIZE is confirmed by its cell '
                    'conductor\'s periodic task; 0: never.'),
    cfg.IntOpt('max_concurrent_live_migrations', default=1, min=0,
               help='Live migrations a compute runs out of at once; more '
                    'wait in status queued. 0: no limit.'),
    cfg.IntOpt('migrate_max_retries', default=-1, min=-1,
               help='Other hosts a live migration with no host named '
                    'tries after its destination failed the pre-checks, '
                    'as Nova\'s option of that name: -1 no limit (until '
                    'the scheduler finds none), 0 no retry.'),
    cfg.IntOpt('rpc_response_timeout_seconds', min=1,
               deprecated_for_removal=True,
               deprecated_reason='Use oslo.messaging\'s [DEFAULT] '
                                 'rpc_response_timeout.',
               help='Timeout for RPC calls, in seconds: the default of '
                    'rpc_response_timeout when that is not set (see '
                    'doc/private-apis.rst for why this is not an alias of '
                    'it).'),
]


def register_opts(conf):
    conf.register_opts(opts)
    # oslo.messaging registers its [DEFAULT] options (transport_url,
    # rpc_response_timeout, ...) only when a transport or client is made.
    # Register equal copies (its public list_opts) up front, so config
    # files and overrides can set them before that. Its transport defaults
    # go first: set_transport_defaults changes the library's own option
    # objects, which must still equal our copies when it registers them.
    messaging.set_transport_defaults(control_exchange=CONTROL_EXCHANGE)
    for group, group_opts in messaging_opts.list_opts():
        if group is None:
            conf.register_opts(group_opts)


def apply_deprecated_options(conf):
    """After parsing: a set rpc_response_timeout_seconds (deprecated)
    becomes the default of oslo.messaging's rpc_response_timeout, so an
    explicitly set rpc_response_timeout still wins."""
    old = conf.rpc_response_timeout_seconds
    location = conf.get_location('rpc_response_timeout')
    if old is not None and (location is None or
                            location.location == cfg.Locations.opt_default):
        conf.set_default('rpc_response_timeout', old)


def list_opts():
    return {'DEFAULT': opts}
