"""A compute service's resource providers when the service is deleted.

Each compute node of the service has a provider (uuid = the node's
uuid). ``DELETE /os-services/{id}`` removes them with the service once
no consumer but the node itself (its host usage) allocates from them, as
Nova refuses to delete a compute that still hosts instances (409) rather
than leave their allocations on a provider nothing reports for.
"""
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import hosts as placement_hosts


def release(context, service):
    """Delete the providers of service's compute nodes (context: one that
    holds the API DB; service: loaded in its cell). ComputeServiceInUse
    if another consumer allocates from one of them (nothing deleted)."""
    nodes = objects.ComputeNodeList.get_all_by_host(service._context,
                                                    service.host)
    uuids = [node.uuid for node in nodes if node.uuid]
    if not uuids:
        return []
    try:
        return placement_hosts.delete_unused_host_providers(context, uuids)
    except exception.ResourceProviderInUse as exc:
        raise exception.ComputeServiceInUse(uuid=exc.kwargs['uuid'])
