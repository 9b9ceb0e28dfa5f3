"""[local_services]: the embedded image and network backends' database
(it stands in for Glance and Neutron, so computes may open it too)."""
import copy

from oslo_config import cfg

from nova_lite.conf import database

local_services_group = cfg.OptGroup(
    'local_services', title='Local services database options',
    help='The database of the embedded image and network services '
         '(images, networks, subnets, ports). The API and the computes '
         'use it; it stands in for Glance and Neutron.')

# The same knobs as [api_database], as own copies.
local_services_opts = [copy.deepcopy(opt) for opt in database.api_db_opts]

network_service_opts = [
    cfg.FloatOpt('vif_plugged_event_delay', default=0.0, min=0.0,
                 help='Seconds between a compute reporting a port plugged '
                      'and the embedded network service sending '
                      'network-vif-plugged for it to the compute API '
                      '(the simulated agent and notifier lag of Neutron).'),
    cfg.FloatOpt('volume_reimage_delay', default=0.0, min=0.0,
                 help='Seconds the embedded volume service takes to '
                      'reimage a volume (a rebuild of a volume-backed '
                      'server) before it sends volume-reimaged to the '
                      'compute API.'),
    cfg.StrOpt('private_network_cidr', default='10.0.0.0/24',
               help='The IPv4 range of the shared network the embedded '
                    'network service creates with its defaults (named '
                    '"private"; its first address is the gateway). A '
                    'range in 127.0.0.0/8 makes guests reachable from '
                    'this machine ([fake_driver] guest_ssh). Read when '
                    'the defaults are created.'),
    cfg.StrOpt('public_network_cidr', default='172.24.4.0/24',
               help='The IPv4 range of the external network the embedded '
                    'network service creates with its defaults (the '
                    'floating IP pool of os-floating-ips, Neutron\'s '
                    'router:external network); empty: no external '
                    'network, so no floating IPs.'),
    cfg.StrOpt('public_network_name', default='public',
               help='The name of that external network (the floating IP '
                    'pool\'s name).'),
]


def register_opts(conf):
    conf.register_group(local_services_group)
    conf.register_opts(local_services_opts, group=local_services_group)
    conf.register_opts(network_service_opts, group=local_services_group)


def list_opts():
    return {local_services_group.name: local_services_opts
            + network_service_opts}
