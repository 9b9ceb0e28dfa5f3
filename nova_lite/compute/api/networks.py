"""The networks the caller sees in the network service (the network
proxies of the Compute API below 2.36): Neutron's visibility, i.e. the
caller's project's and shared networks, every network for an
administrator."""
from nova_lite import exception
from nova_lite.network import api as network_api


def list_networks(context):
    return network_api.API().get_networks(context)


def get_network(context, network_id):
    """NetworkNotFound (404) for one the caller does not see."""
    found = network_api.API().get_networks(context, [network_id])
    if not found:
        raise exception.NotFound(message='Network not found')
    return found[0]
