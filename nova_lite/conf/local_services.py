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


def register_opts(conf):
    conf.register_group(local_services_group)
    conf.register_opts(local_services_opts, group=local_services_group)


def list_opts():
    return {local_services_group.name: local_services_opts}
