"""The compute API for servers: create and delete (writes), with the
read side (get, list, update) in nova_lite.compute.api.server_listing.

Create validates everything a user can get wrong before anything is
written (flavor, image, key pair, networks, zone), then writes the
build requests, request spec and cell-less instance mappings in ONE API
DB transaction, and casts to a super conductor. Delete works wherever
the server is: a build request (not yet scheduled), cell0, a cell with
its compute up (cast; the compute frees guest, ports and allocations),
or a cell whose compute is down or never got it (deleted here).
"""
import random
import re
import string

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite.compute.api import availability_zones
from nova_lite.compute.api import flavors as compute_flavors
from nova_lite.compute.api import server_groups
from nova_lite.compute.api import server_metadata
from nova_lite.compute.api import server_resize
from nova_lite.compute.api import server_shares
from nova_lite.compute import block_devices
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conductor.tasks import base as tasks_base
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.network import api as network_api
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import build_request as br_obj
from nova_lite.objects import compute_inventory
from nova_lite.objects import embedded_flavor
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects import instance_mapping
from nova_lite.placement import providers as placement_providers
from nova_lite import quota
from nova_lite import rpc

LOG = logging.getLogger(__name__)
# The system metadata key naming the server group a server was booted in
# (what a compute's late policy check reads in its cell).
GROUP_SYSMETA = 'server_group'

_compute_task = None


def _conductor():
    global _compute_task
    if _compute_task is None:
        _compute_task = conductor_rpcapi.ComputeTaskAPI()
    return _compute_task


def _hostname(name):
    """A hostname from a display name, as Nova sanitises it."""
    host = re.sub(r'[^\w.-]+', '', (name or '').replace(' ', '-').replace(
        '_', '-')).lower().strip('.-')
    return host[:63] or 'server'


def _reservation_id():
    return 'r-' + ''.join(random.choice(string.ascii_lowercase
                                        + string.digits) for _ in range(8))


def _flavor(context, flavor_id):
    try:
        flavor = compute_flavors.get(context, flavor_id)
    except exception.FlavorNotFound:
        raise exception.InvalidInput(
            reason='Flavor %s could not be found.' % flavor_id)
    if flavor.disabled:
        raise exception.InvalidInput(reason='Flavor is disabled.')
    return flavor


# A server keeps its image's properties in its system metadata, as
# Nova's: image_<name> (a string of at most 255 characters) for each
# property but those never inherited ([DEFAULT]
# non_inheritable_image_properties' defaults and the image signature),
# image_<field> for these fields of the image itself, and
# image_base_image_ref. 2.98 shows them all (without the prefix) as the
# image's properties.
IMAGE_SYSMETA_PREFIX = 'image_'
_NOT_INHERITED = ('cache_in_nova', 'bittorrent', 'img_signature',
                  'img_signature_hash_method',
                  'img_signature_certificate_uuid',
                  'img_signature_key_type')
_INHERITED_FIELDS = ('min_ram', 'min_disk', 'disk_format',
                     'container_format')


def image_system_metadata(image, flavor=None):
    """{image_<key>: str} a server of flavor booted (or rebuilt) from
    image keeps; min_disk is at least the flavor's root disk (but for a
    vhd image, as Nova's)."""
    found = {IMAGE_SYSMETA_PREFIX + 'base_image_ref': image.get('id') or ''}
    for key, value in (image.get('properties') or {}).items():
        if key in _NOT_INHERITED or value is None:
            continue
        found[IMAGE_SYSMETA_PREFIX + key] = str(value)[:255]
    for key in _INHERITED_FIELDS:
        value = image.get(key)
        if key == 'min_disk' and flavor is not None:
            value = (flavor.root_gb if image.get('disk_format') == 'vhd'
                     else max(value or 0, flavor.root_gb or 0))
        if value is not None:
            found[IMAGE_SYSMETA_PREFIX + key] = str(value)
    return found


def with_image_system_metadata(system_metadata, image, flavor=None):
    """system_metadata with its image_* keys replaced by image's."""
    kept = {k: v for k, v in (system_metadata or {}).items()
            if not k.startswith(IMAGE_SYSMETA_PREFIX)}
    kept.update(image_system_metadata(image, flavor))
    return kept


def image_properties(system_metadata):
    """The image properties a server shows (2.98): its image_* system
    metadata without the prefix."""
    prefix = len(IMAGE_SYSMETA_PREFIX)
    return {k[prefix:]: v for k, v in (system_metadata or {}).items()
            if k.startswith(IMAGE_SYSMETA_PREFIX)}


def check_image(context, image_id, flavor, not_found=None,
                volume_backed=False):
    """The image a server boots from: it exists (else not_found, by
    default an InvalidInput naming it), is active (ImageNotActive) and
    fits the flavor (FlavorMemoryTooSmall, FlavorDiskTooSmall -- not
    for the volume a volume-backed server boots from); all 400s."""
    try:
        image = image_api.API().get(context, image_id)
    except exception.ImageNotFound:
        raise not_found or exception.InvalidInput(
            reason='Image %s could not be found.' % image_id)
    if image['status'] != 'active':
        raise exception.ImageNotActive(image_id=image_id)
    if (image.get('min_ram') or 0) > flavor.memory_mb:
        raise exception.FlavorMemoryTooSmall()
    if (not volume_backed and flavor.root_gb
            and (image.get('min_disk') or 0) > flavor.root_gb):
        raise exception.FlavorDiskTooSmall()
    return image


def _keypair(context, key_name):
    if key_name is None:
        return None
    try:
        return objects.KeyPair.get_by_name(context, context.user_id,
                                           key_name)
    except exception.NotFound:
        raise exception.InvalidInput(reason='Invalid key_name provided.')


def _zone(context, availability_zone, requested=None):
    """(zone, requested_destination, force_hosts, force_nodes) from
    'zone', 'zone:host', 'zone::node' or 'zone:host:node' (hosts for
    admins only, checked by the caller's policy: a forced host or node
    skips the scheduler's filters, as Nova's force_hosts) and requested,
    the (host, node) of 2.74 (the filters still run)."""
    zone, _, rest = (availability_zone or '').partition(':')
    host, _, node = rest.partition(':')
    if zone:
        availability_zones.check_requested_zone(context, zone)
    elif not availability_zone:
        zone = CONF.default_schedule_zone
    dest = None
    if requested:
        dest = {'host': requested[0] or None, 'node': requested[1] or None}
    return (zone or None, dest, [host] if host else [],
            [node] if node else [])


def set_pinned_zone(context, server_id, zone, host, instance_zone):
    """Pin the server to zone in its request spec, or unpin it (zone
    None), so that its next scheduling (a move, an unshelve) stays in
    that zone or not (2.104). As Nova: a server is pinned only to the
    zone it is in now (its host's, else the zone it was booted into)
    and a pinned server must be unpinned before it is pinned elsewhere;
    either is PinnedZoneConflict (409)."""
    spec = objects.RequestSpec.get_by_instance_uuid(context, server_id)
    pinned = spec.availability_zone
    if zone is None:
        if pinned is not None:
            spec.availability_zone = None
            spec.save()
        return
    if pinned is not None:
        if zone != pinned:
            raise exception.PinnedZoneConflict(
                reason='Cannot change pinned availability zone directly. '
                       'Unpin first by setting pinned_availability_zone '
                       'to null.')
        return
    current = (availability_zones.host_zone(context, host) if host
               else instance_zone)
    if zone != current:
        raise exception.PinnedZoneConflict(
            reason="Server can only be pinned to its current availability "
                   "zone '%s', but '%s' was requested." % (current, zone))
    spec.availability_zone = zone
    spec.save()


def _hints(context, scheduler_hints):
    """(hints to keep in the request spec or None, the InstanceGroup the
    'group' hint names or None). The group is kept without members or
    hosts: the super conductor reads them before each scheduling."""
    hints = dict(scheduler_hints or {})
    group_hint = hints.get('group')
    if isinstance(group_hint, list):
        group_hint = group_hint[0] if group_hint else None
    group = None
    if group_hint:
        group = server_groups.group_for_boot(context, group_hint)
    return hints or None, group


def disk_config_for(image, requested):
    """A server's auto_disk_config (OS-DCF:diskConfig AUTO: true) as
    Nova decides it: the value requested, else the image's
    auto_disk_config property read as a boolean (MANUAL without one).
    AutoDiskConfigDisabledByImage (400) for AUTO with an image whose
    property says 'Disabled'."""
    prop = ((image or {}).get('properties') or {}).get('auto_disk_config')
    if requested and prop is not None and \
            str(prop).strip().lower() == 'disabled':
        raise exception.AutoDiskConfigDisabledByImage(
            image=(image or {}).get('id'))
    if requested is None:
        return strutils.bool_from_string(prop)
    return bool(requested)


def check_requested_destination(context, host=None, node=None):
    """A boot's requested host and/or hypervisor_hostname (2.74) must
    name a compute, as Nova checks them: a host by its host mapping,
    host and node by the node in the host's cell, a node alone by its
    resource provider. RequestedHostNotFound (400) names the host (the
    node when no host was given)."""
    if host:
        try:
            mapping = objects.HostMapping.get_by_host(context, host)
        except exception.HostMappingNotFound:
            raise exception.RequestedHostNotFound(host=host)
        if node:
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                try:
                    objects.ComputeNode.get_by_host_and_nodename(
                        cctxt, host, node)
                except exception.ComputeNodeNotFound:
                    raise exception.RequestedHostNotFound(host=host)
    elif node and not placement_providers.provider_named(context, node):
        raise exception.RequestedHostNotFound(host=node)


def parse_boot_devices(image_ref, block_device_mapping_v2, context=None):
    """(image id or None for a volume-backed server, [bdm dict]): a
    create request's imageRef and block_device_mapping_v2 as create()
    takes them (InvalidBDM or InvalidInput, 400, for a bad mapping).
    With context, an image made from a volume-backed server boots from
    the mappings it names (block_devices.image_mappings)."""
    if image_ref and context is not None:
        try:
            image = image_api.API().get(context, image_ref)
        except exception.ImageNotFound:
            image = None
        if image is not None:
            image_ref, block_device_mapping_v2 = (
                block_devices.image_mappings(image,
                                             block_device_mapping_v2))
    return block_devices.parse(image_ref, block_device_mapping_v2)


def create(context, flavor_id, image_id, name, min_count=1, max_count=1,
           requested_networks='auto', metadata=None, availability_zone=None,
           key_name=None, user_data=None, description=None,
           admin_password=None, access_ip_v4=None, access_ip_v6=None,
           config_drive=None, tags=None, block_device_mapping=None,
           auto_disk_config=None, injected_files=None,
           scheduler_hints=None, security_groups=None, hostname=None,
           requested_destination=None):
    """Create max_count servers (all or none; fewer, at least
    min_count, when the quota lets fewer in). Returns (records,
    reservation_id): the records as the API shows a new server.
    security_groups: names or ids of the groups its ports get (None:
    the project's default group); an unknown one is a 400.
    image_id None: volume-backed (block_device_mapping, as
    parse_boot_devices gives it, has the boot volume).
    scheduler_hints: os:scheduler_hints as given; 'group' names a server
    group of the caller's project (InvalidInput, 400, otherwise) that
    every server created joins. hostname (2.90): the guest's host name
    instead of one made from the name (one server only).
    availability_zone 'zone:host:node' forces the host and node (no
    filters); requested_destination (host, node) of 2.74 only
    requests them."""
    if min_count > max_count:
        raise exception.InvalidInput(
            reason='min_count must be <= max_count')
    if max_count > CONF.max_servers_per_request:
        raise exception.InvalidInput(
            reason='max_count may be at most %d'
                   % CONF.max_servers_per_request)
    server_metadata.check_quota(metadata)
    flavor = _flavor(context, flavor_id)
    volume_backed = image_id is None
    bdms = (block_device_mapping if block_device_mapping is not None
            else block_devices.parse(image_id, None)[1])
    boot_meta = block_devices.check(
        context, bdms, max_count,
        lambda ref: check_image(context, ref, flavor, volume_backed=True))
    image = (boot_meta or {}) if volume_backed else check_image(
        context, image_id, flavor)
    auto_disk_config = disk_config_for(image, auto_disk_config)
    keypair = _keypair(context, key_name)
    network_api.API().validate_networks(context, requested_networks)
    system_metadata = ({'image_base_image_ref': ''} if volume_backed
                       else image_system_metadata(image, flavor))
    if security_groups:
        system_metadata[network_api.SECURITY_GROUPS_KEY] = jsonutils.dumps(
            network_api.API().resolve_security_groups(
                context, context.project_id, security_groups))
    zone, destination, force_hosts, force_nodes = _zone(
        context, availability_zone, requested_destination)
    hints, group = _hints(context, scheduler_hints)
    snapshot = embedded_flavor.EmbeddedFlavor.from_flavor(flavor)
    reservation_id = _reservation_id()
    spec = objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(),
        project_id=context.project_id, user_id=context.user_id,
        flavor=snapshot, image={k: image.get(k) for k in
                                ('id', 'min_disk', 'min_ram', 'name',
                                 'properties')},
        num_instances=max_count, availability_zone=zone,
        ignore_hosts=[], requested_destination=destination,
        force_hosts=force_hosts, force_nodes=force_nodes,
        scheduler_hints=hints, is_bfv=volume_backed,
        instance_group=group)
    image_ref = '' if volume_backed else image['id']
    per_instance = block_devices.for_instances(bdms, max_count)
    now = timeutils.utcnow()
    requests, instances = [], []
    for index in range(max_count):
        display = name if max_count == 1 else '%s-%d' % (name, index + 1)
        inst = objects.Instance(
            context, uuid=(spec.instance_uuid if index == 0
                           else uuidutils.generate_uuid()),
            user_id=context.user_id, project_id=context.project_id,
            display_name=display, display_description=description,
            hostname=hostname or _hostname(display), image_ref=image_ref,
            instance_type_id=flavor.id, memory_mb=flavor.memory_mb,
            vcpus=flavor.vcpus, root_gb=flavor.root_gb,
            ephemeral_gb=flavor.ephemeral_gb,
            key_name=keypair.name if keypair else None,
            key_data=keypair.public_key if keypair else None,
            user_data=user_data, reservation_id=reservation_id,
            launch_index=index, availability_zone=zone, locked=False,
            locked_by=None, access_ip_v4=access_ip_v4,
            access_ip_v6=access_ip_v6,
            config_drive='True' if config_drive else '',
            progress=0, vm_state=instance_obj.BUILDING,
            task_state=instance_obj.SCHEDULING,
            power_state=instance_obj.NOSTATE, host=None, node=None,
            launched_on=None, launched_at=None, terminated_at=None,
            root_device_name=None, hidden=False,
            auto_disk_config=auto_disk_config,
            metadata=dict(metadata or {}),
            system_metadata=dict(
                system_metadata,
                **({GROUP_SYSMETA: group.uuid} if group else {})),
            flavor=snapshot, old_flavor=None, new_flavor=None,
            network_info=[], tags=list(tags or []),
            keypairs=[keypair.name] if keypair else [],
            migration_context=None, created_at=now, updated_at=None,
            deleted_at=None, deleted=False)
        instances.append(inst)
        requests.append((objects.BuildRequest(
            context, instance_uuid=inst.uuid, project_id=inst.project_id,
            user_id=inst.user_id, instance=inst,
            block_device_mappings=per_instance[index],
            tags=list(tags or [])), spec))

    # (Unified limits count class:DISK_GB: the local disks.)
    disk_gb = (0 if volume_backed else flavor.root_gb or 0) + (
        flavor.ephemeral_gb or 0)
    # The cells are counted before the transaction that writes the
    # servers (and holds the project's quota lock), not inside it.
    counted = [quota.count_for_boot(context, context.project_id,
                                    context.user_id)]

    def quota_check(cctxt):
        return quota.check_boot(cctxt, context.project_id, context.user_id,
                                flavor.vcpus, flavor.memory_mb, min_count,
                                max_count, metadata=metadata,
                                injected_files=injected_files,
                                cell_count=counted[0], disk_gb=disk_gb)

    def write():
        try:
            return br_obj.create_servers(context, requests, quota_check)
        except quota.UsageNeeded:
            # Limited after all (nothing was written): count, again.
            counted[0] = quota.count_for_boot(
                context, context.project_id, context.user_id, force=True)
            return br_obj.create_servers(context, requests, quota_check)

    quota.prime_cells(context)
    reserved = []
    joined = []
    try:
        for (build_request, _), inst, bdm_dicts in zip(
                requests, instances, per_instance):
            block_devices.reserve(context, inst.uuid, bdm_dicts)
            reserved.extend(bdm_dicts)
            build_request.block_device_mappings = bdm_dicts
        if group is not None:
            server_groups.add_members(context, group,
                                      [i.uuid for i in instances])
            joined = instances
        count = write()
    except Exception:
        block_devices.release(context, reserved)
        for inst in joined:
            server_groups.remove_server(context, inst.uuid)
        raise
    if count < max_count:
        # Cut to what the quota lets in (at least min_count, as Nova).
        block_devices.release(context, [
            bdm for bdms_ in per_instance[count:] for bdm in bdms_])
        for inst in joined[count:]:
            server_groups.remove_server(context, inst.uuid)
        instances, requests = instances[:count], requests[:count]
        spec.num_instances = count
    # The boot is written, not yet sent: an API that ends here leaves
    # build requests no conductor picks up (the super conductors bury
    # them after [conductor] build_request_timeout).
    tasks_base.step_boundary('boot_cast')
    try:
        _conductor().schedule_and_build_instances(
            context, [i.uuid for i in instances], spec, requested_networks,
            admin_password, injected_files=[
                [path, contents] for path, contents in injected_files or ()])
    except rpc.SEND_FAILURES as exc:
        _undo_create(context, [br for br, _ in requests])
        raise exception.MessagingUnavailable(reason=type(exc).__name__)
    return instances, reservation_id


def _undo_create(context, build_requests):
    """The build could not be sent (message queue down): remove what
    create wrote (build requests, their reservations, request spec,
    mappings), so the servers never exist rather than wait in BUILD for
    ever."""
    for build_request in build_requests:
        uuid = build_request.instance_uuid
        try:
            build_request.destroy()
        except exception.BuildRequestNotFound:
            continue
        block_devices.release(context, build_request.block_device_mappings)
        _finish(context, uuid)


# --- delete ----------------------------------------------------------------

def _mapping(context, server_id):
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                               server_id)
    except exception.InstanceMappingNotFound:
        raise exception.InstanceNotFound(instance_id=server_id)
    return mapping


def _destroy_build_request(context, server_id):
    try:
        build_request = objects.BuildRequest.get_by_instance_uuid(
            context, server_id)
    except exception.BuildRequestNotFound:
        return False
    _notify_delete(context, build_request.instance, notify.START)
    try:
        build_request.destroy()
    except exception.BuildRequestNotFound:
        return False   # scheduled meanwhile: deleted in its cell
    # Not in a cell yet: nothing was attached, only reserved here.
    block_devices.release(context, build_request.block_device_mappings)
    _notify_delete(context, build_request.instance, notify.END)
    return True


def _notify_delete(context, instance, phase):
    notify.notify_about_instance_action(context, instance, CONF.host,
                                        'delete', phase,
                                        source=notify.SOURCE_API)


def _compute_up(cctxt, host):
    services = [s for s in objects.ServiceList.get_by_host(cctxt, host)
                if s.binary == 'nova-compute']
    return bool(services) and services[0].is_up()


def _local_delete(context, instance):
    """Delete where the compute cannot: free volumes (as
    block_devices.cleanup_volumes says), ports, share grants and
    allocations and mark the instance deleted."""
    _notify_delete(context, instance, notify.START)
    placement = compute_inventory.placement_for(context)
    try:
        block_devices.cleanup_volumes(
            context, objects.BlockDeviceMappingList.get_by_instance_uuid(
                instance.context, instance.uuid))
        network_api.API().deallocate_for_instance(context, instance.uuid)
        server_shares.revoke_all(context, instance.uuid)
    finally:
        placement.remove_allocations(context, instance.uuid)
        # A move in progress: the source allocation its migration holds.
        if instance.migration_context:
            placement.remove_allocations(
                context, instance.migration_context['migration_uuid'])
    instance.destroy()
    _notify_delete(context, instance, notify.END)


def _delete_shelved_image(context, instance):
    """A shelved server's snapshot goes with it (as Nova's)."""
    if instance.vm_state not in (instance_obj.SHELVED,
                                 instance_obj.SHELVED_OFFLOADED):
        return
    image_id = (instance.system_metadata or {}).get('shelved_image_id')
    if image_id:
        try:
            image_api.API().delete(context.elevated(), image_id)
        except exception.ImageNotFound:
            pass


def _finish(context, server_id):
    instance_mapping.queue_for_delete(context, server_id)
    br_obj.delete_request_spec(context, server_id)
    server_groups.remove_server(context, server_id)


def delete(context, server_id, force=False, action=instance_action.DELETE):
    """Delete a server wherever it is (the caller has checked policy on
    its owner). With [DEFAULT] reclaim_instance_interval > 0 a server
    that has run, on a compute that is up, is only soft deleted
    (soft_delete), unless force (forceDelete, recorded as action)."""
    if _destroy_build_request(context, server_id):
        # Not created in a cell yet: the super conductor finds its build
        # request gone and removes what it made.
        _finish(context, server_id)
        return
    mapping = _mapping(context, server_id)
    if mapping.cell_mapping is None:
        if mapping.queued_for_delete:
            raise exception.InstanceNotFound(instance_id=server_id)
        # Between the build request's end and the mapping's update: the
        # server is about to exist in a cell; ask again.
        raise exception.InstanceInvalidState(
            action='delete', instance_uuid=server_id, attr='task_state',
            state='scheduling')
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        try:
            instance = objects.Instance.get_by_uuid(cctxt, server_id)
        except exception.InstanceNotFound:
            _finish(context, server_id)
            raise
        if instance.locked and not context.is_admin:
            raise exception.InstanceIsLocked(instance_uuid=server_id)
        local = (mapping.cell_mapping.is_cell0() or not instance.host
                 or not _compute_up(cctxt, instance.host))
        if not force and not local and _soft_deletes(cctxt, instance):
            soft_delete(cctxt, instance)
            return
        _delete_shelved_image(context, instance)
        if local:
            instance_events.record_action(cctxt, instance, action)
            _local_delete(context, instance)
            _finish(context, server_id)
            return
        previous_task = instance.task_state
        instance.task_state = instance_obj.DELETING
        try:
            # Any task but a delete: a delete overtakes an action in
            # flight (the compute then finds the task state changed).
            instance.save(expected_task_state=[
                None, instance_obj.SCHEDULING, instance_obj.NETWORKING,
                instance_obj.SPAWNING, *instance_obj.ACTION_TASK_STATES,
                *instance_obj.RESIZE_TASK_STATES,
                *instance_obj.SHELVE_TASK_STATES,
                instance_obj.RESCUING, instance_obj.UNRESCUING,
                instance_obj.SOFT_DELETING, instance_obj.RESTORING,
                instance_obj.IMAGE_BACKUP, instance_obj.IMAGE_SNAPSHOT,
                instance_obj.IMAGE_PENDING_UPLOAD,
                instance_obj.IMAGE_UPLOADING, instance_obj.UPDATING_PASSWORD,
                instance_obj.MIGRATING])
        except exception.UnexpectedDeletingTaskStateError:
            # Already being deleted; if for longer than
            # delete_retry_interval its message may have been lost (a
            # broker restart): send it again (terminate is idempotent).
            _resend_stuck_delete(cctxt, server_id)
            return
        instance_events.record_action(cctxt, instance, action)
        try:
            # In VERIFY_RESIZE the source holds a guest and an allocation
            # too: a confirm cleans it up while the delete goes to the
            # destination (the instance's host).
            server_resize.confirm_on_delete(cctxt, instance)
            compute_rpcapi.ComputeAPI().terminate_instance(cctxt, instance)
        except rpc.SEND_FAILURES as exc:
            _undo_deleting(instance, previous_task)
            raise exception.MessagingUnavailable(
                reason=type(exc).__name__)
        _finish(context, server_id)


def _soft_deletes(cctxt, instance):
    """Whether a DELETE of instance only soft deletes it: soft delete is
    on, the server has run (as Nova: one that never launched is deleted
    at once) and its compute speaks compute RPC 1.9."""
    return (CONF.reclaim_instance_interval > 0
            and instance.launched_at is not None
            and compute_rpcapi.ComputeAPI().can_send(
                cctxt, instance.host, compute_rpcapi.SHELVE_RESCUE_VERSION))


def soft_delete(cctxt, instance):
    """Soft delete instance (context targeted at its cell): task
    soft-deleting, action delete, cast to its compute (which powers the
    guest off: SOFT_DELETED). 409 while it is being deleted."""
    instance.task_state = instance_obj.SOFT_DELETING
    try:
        with instance_obj.transaction(cctxt):
            instance.save(expected_task_state=[
                None, *instance_obj.ACTION_TASK_STATES,
                *instance_obj.SHELVE_TASK_STATES,
                instance_obj.RESCUING, instance_obj.UNRESCUING,
                instance_obj.SOFT_DELETING, instance_obj.RESTORING])
            instance_events.record_action(cctxt, instance,
                                          instance_action.DELETE)
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceInvalidState(
            action='delete', instance_uuid=instance.uuid,
            attr='task_state', state=exc.kwargs.get('actual'))
    compute_rpcapi.ComputeAPI().soft_delete_instance(cctxt, instance)


def _resend_stuck_delete(cctxt, server_id):
    instance = objects.Instance.get_by_uuid(cctxt, server_id)
    if instance.task_state != instance_obj.DELETING:
        return
    since = instance.updated_at
    if since is not None and not timeutils.is_older_than(
            timeutils.normalize_time(since), CONF.delete_retry_interval):
        return
    LOG.warning('Server %s has been deleting since %s: sending its delete '
                'to %s again', server_id, since, instance.host)
    # Stamp it, so that the next retry waits another interval.
    instance.task_state = instance_obj.DELETING
    instance.save(expected_task_state=[instance_obj.DELETING])
    compute_rpcapi.ComputeAPI().terminate_instance(cctxt, instance)


def _undo_deleting(instance, previous_task):
    """The delete could not be sent (message queue down): the server
    goes back to the task it had, so nothing is left half-done and a
    later DELETE starts again."""
    instance.task_state = previous_task
    try:
        instance.save(expected_task_state=[instance_obj.DELETING])
    except exception.UnexpectedTaskStateError:
        pass   # something else moved it on meanwhile
