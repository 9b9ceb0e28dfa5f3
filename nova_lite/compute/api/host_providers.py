"""A compute service's resource providers when the service is deleted.

Each compute node of the service has a provider (uuid = the node's
uuid). ``DELETE /os-services/{id}`` refuses (409), as Nova does, to
delete a compute that still hosts instances or takes part in a migration
in progress, and otherwise removes the providers with the service once
no consumer but the node itself (its host usage) allocates from them
(409 while one does), rather than leave allocations on a provider
nothing reports for.
"""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import hosts as placement_hosts

INSTANCES = models.Instance.__table__
MIGRATIONS = models.Migration.__table__
# Migration statuses after which a migration no longer involves its hosts.
FINISHED = ('confirmed', 'reverted', 'error', 'failed', 'completed',
            'cancelled', 'done')


@main_db.reader
def _busy(cctxt, host):
    """(hosts instances, takes part in a migration in progress): two
    queries of the host's cell."""
    session = cctxt.session
    instance = session.execute(sa.select(INSTANCES.c.id).where(
        INSTANCES.c.deleted == 0, INSTANCES.c.host == host).limit(1)).first()
    migration = session.execute(sa.select(MIGRATIONS.c.id).where(
        MIGRATIONS.c.deleted == 0,
        sa.or_(MIGRATIONS.c.source_compute == host,
               MIGRATIONS.c.dest_compute == host),
        MIGRATIONS.c.status.notin_(FINISHED)).limit(1)).first()
    return instance is not None, migration is not None


def release(context, service):
    """Delete the providers of service's compute nodes (context: one that
    holds the API DB; service: loaded in its cell). Nothing is deleted and
    ComputeServiceHostsInstances, ComputeServiceInMigrations or
    ComputeServiceInUse (another consumer allocates from a provider) is
    raised when the compute is still in use."""
    hosting, migrating = _busy(service._context, service.host)
    if hosting:
        raise exception.ComputeServiceHostsInstances()
    if migrating:
        raise exception.ComputeServiceInMigrations()
    nodes = objects.ComputeNodeList.get_all_by_host(service._context,
                                                    service.host)
    uuids = [node.uuid for node in nodes if node.uuid]
    if not uuids:
        return []
    try:
        return placement_hosts.delete_unused_host_providers(context, uuids)
    except exception.ResourceProviderInUse as exc:
        raise exception.ComputeServiceInUse(uuid=exc.kwargs['uuid'])
