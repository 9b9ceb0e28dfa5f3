"""The compute API for host aggregates: what the os-aggregates controller
calls. Aggregates live in the API database (objects.aggregate); their
membership is mirrored into placement's aggregates on the resource
providers of each host's compute nodes, as Nova keeps them in sync.

Rules, as Nova answers them:
- names are unique (AggregateNameExists, 409);
- a zone's name is not empty, and is not the name of another aggregate
  that is not in that zone (InvalidAggregateAction, 400);
- a host is in at most one availability zone: adding a host in another
  zone, or giving an aggregate a zone that one of its hosts is in
  already under another name, fails (400; 409 for add_host);
- a host that has servers never changes zone: adding it to or removing
  it from a zone aggregate, or renaming that zone, fails when the
  host's zone would change (409 for add_host/remove_host, 400 for
  updates);
- only an empty aggregate can be deleted (400).
"""
from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.notifications import aggregate as notify
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.placement import aggregates as placement_aggregates

LOG = logging.getLogger(__name__)

AZ_KEY = aggregate_obj.AZ_KEY
START, END = notify.START, notify.END


def _notified(context, action, aggregate, work):
    notify.notify_about_aggregate_action(context, aggregate, action, START)
    result = work()
    notify.notify_about_aggregate_action(
        context, result if isinstance(result, aggregate_obj.Aggregate)
        else aggregate, action, END)
    return result


def get(context, aggregate_id):
    return objects.Aggregate.get_by_id(context, aggregate_id)


def get_all(context):
    return objects.AggregateList.get_all(context)


# --- rules -----------------------------------------------------------------

def _zone_of_host(context, host, but=None):
    """The zone aggregates give host (leaving out aggregate `but`), else
    None."""
    for agg in objects.AggregateList.get_by_hosts(context, [host]):
        if agg.id != but and agg.availability_zone:
            return agg.availability_zone
    return None


def _effective(zone):
    return zone or CONF.default_availability_zone


def _host_has_servers(context, host):
    try:
        mapping = objects.HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        return False
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        return len(objects.InstanceList.get_by_host(cctxt, host)) > 0


def _check_zone_name(context, aggregate_id, zone, error):
    """zone: not empty, and not the name of an aggregate outside it."""
    if zone is None:
        return
    if not zone:
        raise error(aggregate_id=aggregate_id,
                    reason='Aggregate %s does not support empty named '
                           'availability zone' % aggregate_id)
    for agg in get_all(context):
        if agg.id != aggregate_id and agg.name == zone and \
                agg.availability_zone != zone:
            raise error(aggregate_id=aggregate_id,
                        reason='The availability zone name %s is the name '
                               'of another aggregate (%s) that is not in '
                               'that zone' % (zone, agg.id))


def _check_zone_change(context, aggregate, zone, hosts, error):
    """Giving hosts (of aggregate) zone (None: none from it): no host in
    another zone through another aggregate, none with servers whose zone
    would change."""
    others = objects.AggregateList.get_by_hosts(context, hosts) \
        if hosts else []
    if zone is not None:
        conflicting = sorted({
            a.availability_zone for a in others
            if a.id != aggregate.id and a.availability_zone
            and a.availability_zone != zone})
        if conflicting:
            raise error(aggregate_id=aggregate.id,
                        reason='One or more hosts already in availability '
                               'zone(s) %s' % conflicting)
    for host in hosts:
        elsewhere = next((a.availability_zone for a in others
                          if a.id != aggregate.id and host in a.hosts
                          and a.availability_zone), None)
        before = _effective(elsewhere or (
            aggregate.availability_zone if host in aggregate.hosts
            else None))
        after = _effective(elsewhere or zone)
        if before != after and _host_has_servers(context, host):
            raise error(aggregate_id=aggregate.id,
                        reason='Host %s has servers: the availability zone '
                               'of the host would change from %s to %s'
                               % (host, before, after))


def _compute_service(context, host):
    """The host's compute service; ComputeHostNotFound (404)."""
    try:
        mapping = objects.HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        raise exception.ComputeHostNotFound(host=host)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        try:
            service = objects.Service.get_by_compute_host(cctxt, host)
            nodes = objects.ComputeNodeList.get_all_by_host(cctxt, host)
        except exception.NotFound:
            raise exception.ComputeHostNotFound(host=host)
    if service.host != host:
        raise exception.ComputeHostNotFound(host=host)
    return service, [n.uuid for n in nodes]


def _node_uuids(context, host):
    try:
        return _compute_service(context, host)[1]
    except exception.ComputeHostNotFound:
        return []


# --- operations --------------------------------------------------------------

def _check_name(context, aggregate_id, name, zone, error):
    """An aggregate's name may not be the name of a zone it is not in."""
    if name is None:
        return
    zones = aggregate_obj.zone_hosts(context)
    if name in zones and name != zone:
        raise error(aggregate_id=aggregate_id,
                    reason='The aggregate name %s is the name of an '
                           'availability zone the aggregate is not in'
                           % name)


def create(context, name, zone=None):
    """A new aggregate, in zone if given."""
    def error(aggregate_id, reason):
        return exception.InvalidAggregateAction(
            action='create', aggregate_id=name, reason=reason)
    _check_zone_name(context, None, zone, error)
    _check_name(context, None, name, zone, error)
    uuid = uuidutils.generate_uuid()
    metadata = {AZ_KEY: zone} if zone else {}
    probe = objects.Aggregate(id=0, uuid=uuid, name=name, hosts=[],
                              metadata=metadata)
    return _notified(context, 'create', probe, lambda: (
        objects.Aggregate.create(context, name, metadata, uuid=uuid)))


def update(context, aggregate_id, name=None, zone=None, set_zone=False):
    """Rename and/or (set_zone) move the aggregate to zone."""
    aggregate = get(context, aggregate_id)
    error = exception.InvalidAggregateActionUpdate
    if set_zone:
        _check_zone_name(context, aggregate.id, zone, error)
        _check_zone_change(context, aggregate, zone, aggregate.hosts, error)
    _check_name(context, aggregate.id, name,
                zone if set_zone else aggregate.availability_zone, error)

    def work():
        if name is not None:
            objects.Aggregate.rename(context, aggregate.id, name)
        if set_zone:
            objects.Aggregate.update_metadata(context, aggregate.id,
                                              {AZ_KEY: zone})
        return get(context, aggregate.id)
    return _notified(context, 'update_prop', aggregate, work)


def update_metadata(context, aggregate_id, metadata):
    """Set metadata keys (None deletes one); availability_zone as
    update's rules say."""
    aggregate = get(context, aggregate_id)
    error = exception.InvalidAggregateActionUpdateMeta
    if AZ_KEY in metadata:
        zone = metadata[AZ_KEY]
        _check_zone_name(context, aggregate.id, zone, error)
        _check_zone_change(context, aggregate, zone, aggregate.hosts, error)

    def work():
        objects.Aggregate.update_metadata(context, aggregate.id,
                                          dict(metadata))
        return get(context, aggregate.id)
    return _notified(context, 'update_metadata', aggregate, work)


def delete(context, aggregate_id):
    aggregate = get(context, aggregate_id)
    if aggregate.hosts:
        raise exception.InvalidAggregateAction(
            action='delete', aggregate_id=aggregate.id,
            reason='Host aggregate is not empty')
    _notified(context, 'delete', aggregate, lambda: (
        objects.Aggregate.destroy_by_id(context, aggregate.id)))


def add_host(context, aggregate_id, host):
    """Add a compute host; its nodes' providers join the placement
    aggregate."""
    _service, nodes = _compute_service(context, host)
    aggregate = get(context, aggregate_id)
    if host in aggregate.hosts:
        raise exception.AggregateHostExists(aggregate_id=aggregate.id,
                                            host=host)
    zone = aggregate.availability_zone
    _check_zone_change(context, aggregate, zone, [host],
                       exception.InvalidAggregateActionAdd)

    def work():
        objects.Aggregate.add_host(context, aggregate.id, host)
        placement_aggregates.add_to_aggregate(context, nodes,
                                              aggregate.uuid)
        return get(context, aggregate.id)
    return _notified(context, 'add_host', aggregate, work)


def remove_host(context, aggregate_id, host):
    aggregate = get(context, aggregate_id)
    if host not in aggregate.hosts:
        # Nova answers for an unknown host first.
        _compute_service(context, host)
        raise exception.AggregateHostNotFound(aggregate_id=aggregate.id,
                                              host=host)
    _check_zone_change(context, aggregate, None, [host],
                       exception.InvalidAggregateActionDelete)

    def work():
        objects.Aggregate.delete_host(context, aggregate.id, host)
        placement_aggregates.remove_from_aggregate(
            context, _node_uuids(context, host), aggregate.uuid)
        return get(context, aggregate.id)
    return _notified(context, 'remove_host', aggregate, work)


class SyncReport(object):
    """What sync_placement found: (aggregate uuid, host, provider
    uuid) made members, and the hosts it could not sync by why."""

    def __init__(self):
        self.added = []
        self.no_mapping = []      # hosts without a host mapping
        self.no_nodes = []        # hosts without compute nodes
        self.no_provider = []     # (host, node uuid) without a provider


def sync_placement(context):
    """Make placement's aggregates hold every provider of every host of
    every host aggregate (``nova-lite-manage placement sync_aggregates``,
    as Nova's): what aggregate changes mirror as they happen, done again
    for nodes that got their provider later or drifted. Only adds, as
    Nova's does. One read of the aggregates, per member host its
    mapping and nodes, per aggregate one write."""
    report = SyncReport()
    nodes_of = {}
    for aggregate in objects.AggregateList.get_all(context):
        providers = []
        for host in aggregate.hosts:
            if host not in nodes_of:
                nodes_of[host] = _sync_nodes(context, host, report)
            providers.extend((host, uuid) for uuid in nodes_of[host])
        if not providers:
            continue
        result = placement_aggregates.add_to_aggregate(
            context, [uuid for _, uuid in providers], aggregate.uuid)
        host_of = {uuid: host for host, uuid in providers}
        report.added.extend((aggregate.uuid, host_of[uuid], uuid)
                            for uuid in result['added'])
        report.no_provider.extend(sorted(set(
            (host_of[uuid], uuid) for uuid in result['missing']) - set(
                report.no_provider)))
    return report


def _sync_nodes(context, host, report):
    try:
        mapping = objects.HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        report.no_mapping.append(host)
        return []
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        nodes = objects.ComputeNodeList.get_all_by_host(cctxt, host)
    if not nodes:
        report.no_nodes.append(host)
    return [n.uuid for n in nodes]


def cache_images(context, aggregate_id, image_ids):
    """Pre-cache images on the aggregate's hosts (2.81): every image must
    exist (ImageNotFound, 400 from the controller); each compute host
    is asked over RPC to cache them (a cast; a compute too old for
    compute RPC 1.9 is skipped, reported as failed in its
    aggregate.cache_images.progress)."""
    aggregate = get(context, aggregate_id)
    images = image_api.API()
    for image_id in image_ids:
        images.get(context, image_id)
    notify.notify_about_aggregate_action(context, aggregate, 'cache_images',
                                         START)
    rpc = compute_rpcapi.ComputeAPI()
    total = len(aggregate.hosts)
    for index, host in enumerate(aggregate.hosts, 1):
        cached, failed = [], list(image_ids)
        try:
            mapping = objects.HostMapping.get_by_host(context, host)
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                if rpc.can_send(cctxt, host,
                                compute_rpcapi.CACHE_IMAGES_VERSION):
                    rpc.cache_images(cctxt, host, list(image_ids))
                    cached, failed = list(image_ids), []
                else:
                    LOG.warning('%s is too old to cache images', host)
        except Exception:
            LOG.exception('Could not ask %s to cache images', host)
        notify.notify_about_aggregate_cache(context, aggregate, host, index,
                                            total, cached, failed)
    notify.notify_about_aggregate_action(context, aggregate, 'cache_images',
                                         END)
