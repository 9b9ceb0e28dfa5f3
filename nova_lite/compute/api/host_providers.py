"""A compute service's resource providers when the service is deleted.

Each compute node of the service has a provider (uuid = the node's
uuid). ``DELETE /os-services/{id}`` refuses (409), as Nova does, to
delete a compute that still hosts instances or takes part in a migration
in progress, and otherwise removes the providers with the service once
no consumer but the node itself (its host usage) allocates from them
(409 while one does), rather than leave allocations on a provider
nothing reports for.
"""
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite.placement import hosts as placement_hosts


def release(context, service):
    """Delete the providers of service's compute nodes (context: one that
    holds the API DB; service: loaded in its cell). Nothing is deleted and
    ComputeServiceHostsInstances, ComputeServiceInMigrations or
    ComputeServiceInUse (another consumer allocates from a provider) is
    raised when the compute is still in use."""
    hosting, migrating = service_obj.host_in_use(service.context,
                                                 service.host)
    if hosting:
        raise exception.ComputeServiceHostsInstances()
    if migrating:
        raise exception.ComputeServiceInMigrations()
    nodes = objects.ComputeNodeList.get_all_by_host(service.context,
                                                    service.host)
    uuids = [node.uuid for node in nodes if node.uuid]
    if not uuids:
        return []
    try:
        return placement_hosts.delete_unused_host_providers(context, uuids)
    except exception.ResourceProviderInUse as exc:
        raise exception.ComputeServiceInUse(uuid=exc.kwargs['uuid'])
