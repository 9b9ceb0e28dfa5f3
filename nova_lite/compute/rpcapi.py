"""Client side of the compute RPC API.

API version history:
    1.0 - Initial: ping(), describe_node(compute_node).
    1.1 - get_guests().
    1.2 - get_host_uptime().
    1.3 - build_and_run_instance(instance, request_spec,
          requested_networks, host_list, admin_password),
          terminate_instance(instance) (casts).
    1.4 - server actions (casts): stop_instance, start_instance,
          reboot_instance(instance, reboot_type), pause_instance,
          unpause_instance, suspend_instance, resume_instance,
          reset_network (instance each).
    1.5 - rebuild_instance(instance, image_ref, admin_password,
          preserve_ephemeral), snapshot_instance(instance, image_id)
          (casts).
    1.6 - resize and cold migration (casts): prep_resize(instance,
          migration, new_flavor, request_spec) to the destination,
          resize_instance(instance, migration) to the source,
          finish_resize(instance, migration) to the destination,
          confirm_resize(instance, migration) to the source,
          revert_resize(instance, migration) to the destination,
          finish_revert_resize(instance, migration) to the source.
    1.7 - attach_volume(instance, bdm), detach_volume(instance,
          volume_id, attachment_id) (casts).
    1.8 - cross-cell resize, synchronous calls from the super conductor
          (timeout [conductor] cross_cell_resize_timeout):
          prep_snapshot_based_resize_at_dest(instance, migration,
          new_flavor, request_spec), prep_snapshot_based_resize_at_source
          (instance, migration, snapshot_id),
          finish_snapshot_based_resize_at_dest(instance, migration,
          snapshot_id), confirm_snapshot_based_resize_at_source(instance,
          migration), revert_snapshot_based_resize_at_dest(instance,
          migration), finish_revert_snapshot_based_resize_at_source(
          instance, migration).
    1.9 - cache_images(image_ids) (cast): aggregate image pre-caching.
    1.10 - consoles and introspection: get_console_output(instance,
          tail_length), get_console_connect_info(instance, protocol,
          console_type), get_diagnostics(instance) (calls, timeout
          [DEFAULT] rpc_response_timeout); trigger_crash_dump(instance),
          inject_network_info(instance) (casts).
    1.11 - shelve and rescue (casts): shelve_instance(instance,
          image_id), shelve_offload_instance(instance),
          unshelve_instance(instance, request_spec) (from the super
          conductor), rescue_instance(instance, rescue_image_ref,
          rescue_password), unrescue_instance(instance),
          backup_instance(instance, image_id, backup_type, rotation),
          set_admin_password(instance, new_pass),
          soft_delete_instance(instance), restore_instance(instance).
    1.12 - attach_interface(instance, network_id, port_id, requested_ip,
          tag) (call: the new VIF), detach_interface(instance, port_id)
          (cast).
    1.13 - external_instance_event(instance, events) (cast): events
          [{'name', 'tag', 'status'}] of /os-server-external-events.
    1.14 - evacuate_instance(instance, migration, admin_password,
          stopped) (cast, from the super conductor to the destination
          it claimed): rebuild a server whose compute is down.
    1.15 - live migration: check_can_live_migrate_destination(instance,
          migration, block_migration, disk_over_commit) (call, to the
          destination), check_can_live_migrate_source(instance,
          migrate_data) (call, to the source), live_migration(instance,
          migration, migrate_data) (cast, to the source),
          pre_live_migration(instance, migration, migrate_data) (call, to
          the destination), post_live_migration_at_destination(instance,
          migration) and rollback_live_migration_at_destination(instance,
          migration) (casts, to the destination),
          live_migration_abort(instance, migration_id) and
          live_migration_force_complete(instance, migration_id) (casts, to
          the source).
    1.16 - rebuild_instance(..., reimage_boot_volume=True): a
          volume-backed server's root volume reimaged (microversion 2.93);
          swap_volume(instance, old_volume_id, new_volume_id,
          new_attachment_id) (cast).
    1.17 - evacuate_instance(..., request_spec) and
          check_can_live_migrate_destination(..., request_spec): the
          destination checks the server group's policy late (as a build
          and prep_resize do).
    1.18 - volume_snapshot_create(instance, volume_id, create_info) and
          volume_snapshot_delete(instance, volume_id, snapshot_id,
          delete_info) (casts): os-assisted-volume-snapshots.
    1.19 - build_and_run_instance(..., injected_files) (sent as 1.19
          only with personality files: the guest gets them on its root
          disk; an older compute is sent none).

With [upgrade_levels] compute = auto, each call to a host is capped at the
RPC version that host's recorded service version speaks, and objects are
backported to the versions it understands; an explicit version pins every
call; unset means no cap.
"""
import oslo_messaging as messaging

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import exception
from nova_lite.objects import base as obj_base
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite import rpc

TOPIC = 'compute'
# The version that brought the server actions.
ACTIONS_VERSION = '1.4'
# The version that has rebuild_instance and snapshot_instance.
REBUILD_SNAPSHOT_VERSION = '1.5'
# The version that has resize and cold migration.
RESIZE_VERSION = '1.6'
# The version that has attach_volume and detach_volume.
VOLUME_ATTACH_VERSION = '1.7'
# The version that has the cross-cell resize steps.
CROSS_CELL_RESIZE_VERSION = '1.8'
# The version that caches images ahead of boots (aggregate images, 2.81).
CACHE_IMAGES_VERSION = '1.9'
# The version that has the consoles and introspection calls.
CONSOLE_VERSION = '1.10'
# The version that has shelve, unshelve and rescue.
SHELVE_RESCUE_VERSION = '1.11'
# The version that has attach_interface and detach_interface.
INTERFACE_ATTACH_VERSION = '1.12'
# The version that takes server external events.
EXTERNAL_EVENTS_VERSION = '1.13'
# The version that has evacuate_instance.
EVACUATE_VERSION = '1.14'
# The version that has live migration.
LIVE_MIGRATION_VERSION = '1.15'
# The version whose rebuild_instance reimages a volume-backed server's
# root volume, and that has swap_volume.
REIMAGE_BOOT_VOLUME_VERSION = '1.16'
SWAP_VOLUME_VERSION = '1.16'
# The version whose evacuate_instance and
# check_can_live_migrate_destination take the request spec (the late
# check of the server group's policy).
GROUP_CHECK_VERSION = '1.17'
# The version that has volume_snapshot_create and volume_snapshot_delete.
VOLUME_SNAPSHOT_VERSION = '1.18'
# The version whose build_and_run_instance takes injected_files.
INJECTED_FILES_VERSION = '1.19'


class ComputeAPI(object):
    VERSION = '1.19'

    def __init__(self):
        self._clients = {}

    def _pin(self, context, host):
        """(RPC version cap, object manifest) for calls to host."""
        level = CONF.upgrade_levels.compute
        if not level:
            return None, None
        if level != 'auto':
            return level, None
        version = service_obj.get_service_version(
            context, host, constants.COMPUTE_BINARY)
        if version >= service_version.SERVICE_VERSION:
            return None, None
        return (service_version.rpc_version_for('compute', version),
                service_version.object_versions_for(version))

    def _client(self, context, host):
        transport = rpc.transport_for_context(context)
        cap, manifest = self._pin(context, host)
        key = (id(transport), cap, tuple(sorted((manifest or {}).items())))
        client = self._clients.get(key)
        if client is None:
            serializer = rpc.RequestContextSerializer(
                base=obj_base.NovaLiteObjectSerializer(
                    object_versions=manifest))
            client = rpc.get_client(
                messaging.Target(topic=TOPIC, version='1.0'),
                version_cap=cap, serializer=serializer,
                transport=transport)
            self._clients[key] = client
        return client

    def ping(self, context, host):
        """Round trip to one compute (context targeted at its cell)."""
        cctxt = self._client(context, host).prepare(server=host,
                                                    version='1.0')
        return cctxt.call(context, 'ping')

    def describe_node(self, context, host, compute_node):
        """What the compute received: the node's fields as it sees them."""
        cctxt = self._client(context, host).prepare(server=host,
                                                    version='1.0')
        return cctxt.call(context, 'describe_node',
                          compute_node=compute_node)

    def get_guests(self, context, host):
        """Guests on host; a 1.0 compute only reports their number."""
        client = self._client(context, host)
        if not client.can_send_version('1.1'):
            return {'count': self.ping(context, host)['guests'],
                    'guests': None}
        cctxt = client.prepare(server=host, version='1.1')
        return cctxt.call(context, 'get_guests')

    def get_host_uptime(self, context, host):
        """The hypervisor's uptime string; HypervisorUptimeNotImplemented
        when host's compute speaks no 1.2."""
        client = self._client(context, host)
        if not client.can_send_version('1.2'):
            raise exception.HypervisorUptimeNotImplemented()
        cctxt = client.prepare(server=host, version='1.2')
        return cctxt.call(context, 'get_host_uptime')

    def build_and_run_instance(self, context, host, instance, request_spec,
                               requested_networks, host_list,
                               admin_password=None, injected_files=None):
        """Cast: build instance on host (context targeted at its cell);
        host_list: the alternates a reschedule may use; injected_files:
        [[path, base64 contents]] (only to a compute at 1.19)."""
        kwargs = {}
        version = '1.3'
        if injected_files and self.can_send(context, host,
                                            INJECTED_FILES_VERSION):
            version = INJECTED_FILES_VERSION
            kwargs['injected_files'] = injected_files
        cctxt = self._client(context, host).prepare(server=host,
                                                    version=version)
        cctxt.cast(context, 'build_and_run_instance', instance=instance,
                   request_spec=request_spec,
                   requested_networks=requested_networks,
                   host_list=host_list, admin_password=admin_password,
                   **kwargs)

    def terminate_instance(self, context, instance):
        """Cast: destroy the guest, free its ports and allocations and
        delete the instance."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version='1.3')
        cctxt.cast(context, 'terminate_instance', instance=instance)

    def can_send(self, context, host, version):
        """Whether host's compute (at the cap in force) speaks version."""
        return self._client(context, host).can_send_version(version)

    def _cast_action(self, context, instance, method, **kwargs):
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=ACTIONS_VERSION)
        cctxt.cast(context, method, instance=instance, **kwargs)

    # Server actions (1.4): casts to the instance's host; callers check
    # can_send(..., ACTIONS_VERSION) first (an older compute has none).

    def stop_instance(self, context, instance):
        self._cast_action(context, instance, 'stop_instance')

    def start_instance(self, context, instance):
        self._cast_action(context, instance, 'start_instance')

    def reboot_instance(self, context, instance, reboot_type):
        self._cast_action(context, instance, 'reboot_instance',
                          reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        self._cast_action(context, instance, 'pause_instance')

    def unpause_instance(self, context, instance):
        self._cast_action(context, instance, 'unpause_instance')

    def suspend_instance(self, context, instance):
        self._cast_action(context, instance, 'suspend_instance')

    def resume_instance(self, context, instance):
        self._cast_action(context, instance, 'resume_instance')

    def reset_network(self, context, instance):
        self._cast_action(context, instance, 'reset_network')

    # Rebuild and snapshot (1.5).

    def _cast_1_5(self, context, instance, method, **kwargs):
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=REBUILD_SNAPSHOT_VERSION)
        cctxt.cast(context, method, instance=instance, **kwargs)

    def rebuild_instance(self, context, instance, image_ref,
                         admin_password, preserve_ephemeral=False,
                         reimage_boot_volume=False):
        """Cast: re-spawn instance's guest from image_ref on its host
        (task_state rebuilding on entry, None on exit); with
        reimage_boot_volume its root volume is reimaged first.
        Callers check can_send(..., REBUILD_SNAPSHOT_VERSION) first, and
        REIMAGE_BOOT_VOLUME_VERSION for reimage_boot_volume."""
        if not reimage_boot_volume:
            self._cast_1_5(context, instance, 'rebuild_instance',
                           image_ref=image_ref,
                           admin_password=admin_password,
                           preserve_ephemeral=preserve_ephemeral)
            return
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=REIMAGE_BOOT_VOLUME_VERSION)
        cctxt.cast(context, 'rebuild_instance', instance=instance,
                   image_ref=image_ref, admin_password=admin_password,
                   preserve_ephemeral=preserve_ephemeral,
                   reimage_boot_volume=True)

    def snapshot_instance(self, context, instance, image_id):
        """Cast: upload a snapshot of instance's guest into image_id
        (task_state image_snapshot on entry, None on exit).
        Callers check can_send(..., REBUILD_SNAPSHOT_VERSION) first."""
        self._cast_1_5(context, instance, 'snapshot_instance',
                       image_id=image_id)

    # Resize and cold migration (1.6): each a cast to the host named;
    # callers check can_send(..., RESIZE_VERSION) on the hosts first.

    def _cast_move(self, context, host, method, instance, migration,
                   **kwargs):
        cctxt = self._client(context, host).prepare(
            server=host, version=RESIZE_VERSION)
        cctxt.cast(context, method, instance=instance, migration=migration,
                   **kwargs)

    def prep_resize(self, context, host, instance, migration, new_flavor,
                    request_spec):
        """Destination: check and record the move (task resize_prep)."""
        self._cast_move(context, host, 'prep_resize', instance, migration,
                        new_flavor=new_flavor, request_spec=request_spec)

    def resize_instance(self, context, host, instance, migration):
        """Source: power off and hand the guest over."""
        self._cast_move(context, host, 'resize_instance', instance,
                        migration)

    def finish_resize(self, context, host, instance, migration):
        """Destination: start the guest with the new flavor."""
        self._cast_move(context, host, 'finish_resize', instance, migration)

    def confirm_resize(self, context, host, instance, migration):
        """Source: drop the old guest and the migration's allocation."""
        self._cast_move(context, host, 'confirm_resize', instance,
                        migration)

    def revert_resize(self, context, host, instance, migration):
        """Destination: drop the new guest and its allocation."""
        self._cast_move(context, host, 'revert_resize', instance, migration)

    def finish_revert_resize(self, context, host, instance, migration):
        """Source: the old guest back with the old flavor."""
        self._cast_move(context, host, 'finish_revert_resize', instance,
                        migration)

    # Volume attachments (1.7).

    def _cast_1_7(self, context, instance, method, **kwargs):
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=VOLUME_ATTACH_VERSION)
        cctxt.cast(context, method, instance=instance, **kwargs)

    def attach_volume(self, context, instance, bdm):
        """Cast: connect bdm's volume (attachment reserved) to the
        instance on its host. Callers check can_send(...,
        VOLUME_ATTACH_VERSION) first."""
        self._cast_1_7(context, instance, 'attach_volume', bdm=bdm)

    def detach_volume(self, context, instance, volume_id, attachment_id):
        """Cast: disconnect the volume, delete its attachment and
        mapping. Callers check can_send(..., VOLUME_ATTACH_VERSION)."""
        self._cast_1_7(context, instance, 'detach_volume',
                       volume_id=volume_id, attachment_id=attachment_id)

    def swap_volume(self, context, instance, old_volume_id, new_volume_id,
                    new_attachment_id):
        """Cast: move the mapping of old_volume_id (detaching) to
        new_volume_id (its attachment new_attachment_id reserved).
        Callers check can_send(..., SWAP_VOLUME_VERSION) first."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=SWAP_VOLUME_VERSION)
        cctxt.cast(context, 'swap_volume', instance=instance,
                   old_volume_id=old_volume_id, new_volume_id=new_volume_id,
                   new_attachment_id=new_attachment_id)

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        """Cast: snapshot volume_id's file on the instance's hypervisor.
        Callers check can_send(..., VOLUME_SNAPSHOT_VERSION) first."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=VOLUME_SNAPSHOT_VERSION)
        cctxt.cast(context, 'volume_snapshot_create', instance=instance,
                   volume_id=volume_id, create_info=create_info)

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        """Cast: delete snapshot_id of volume_id's file. Callers check
        can_send(..., VOLUME_SNAPSHOT_VERSION) first."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=VOLUME_SNAPSHOT_VERSION)
        cctxt.cast(context, 'volume_snapshot_delete', instance=instance,
                   volume_id=volume_id, snapshot_id=snapshot_id,
                   delete_info=delete_info)

    # Interface attachments (1.12); callers check can_send(...,
    # INTERFACE_ATTACH_VERSION) first.

    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None):
        """Call: attach a port to the instance on its host; the new
        VIF (timeout [DEFAULT] rpc_response_timeout)."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=INTERFACE_ATTACH_VERSION)
        return cctxt.call(context, 'attach_interface', instance=instance,
                          network_id=network_id, port_id=port_id,
                          requested_ip=requested_ip, tag=tag)

    def detach_interface(self, context, instance, port_id):
        """Cast: detach the port from the instance on its host."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=INTERFACE_ATTACH_VERSION)
        cctxt.cast(context, 'detach_interface', instance=instance,
                   port_id=port_id)

    def external_instance_event(self, context, instance, events,
                                host=None):
        """Cast: events about instance to its host (or to host, another
        host of its move; callers check can_send(...,
        EXTERNAL_EVENTS_VERSION))."""
        host = host or instance.host
        cctxt = self._client(context, host).prepare(
            server=host, version=EXTERNAL_EVENTS_VERSION)
        cctxt.cast(context, 'external_instance_event', instance=instance,
                   events=events)

    # Cross-cell resize (1.8): synchronous calls from the super conductor
    # (its context targeted at the host's cell); callers check
    # can_send(..., CROSS_CELL_RESIZE_VERSION) first.

    def _call_1_8(self, context, host, method, **kwargs):
        cctxt = self._client(context, host).prepare(
            server=host, version=CROSS_CELL_RESIZE_VERSION,
            timeout=CONF.conductor.cross_cell_resize_timeout)
        return cctxt.call(context, method, **kwargs)

    def prep_snapshot_based_resize_at_dest(self, context, host, instance,
                                           migration, new_flavor,
                                           request_spec):
        """Destination: claim, migration context, new volume
        attachments; returns the migration context."""
        return self._call_1_8(context, host,
                              'prep_snapshot_based_resize_at_dest',
                              instance=instance, migration=migration,
                              new_flavor=new_flavor,
                              request_spec=request_spec)

    def prep_snapshot_based_resize_at_source(self, context, host, instance,
                                             migration, snapshot_id):
        """Source: power off, snapshot (image-backed) into snapshot_id,
        guest destroyed with its disks kept, placeholder attachments.
        Returns whether a snapshot was uploaded."""
        return self._call_1_8(context, host,
                              'prep_snapshot_based_resize_at_source',
                              instance=instance, migration=migration,
                              snapshot_id=snapshot_id)

    def finish_snapshot_based_resize_at_dest(self, context, host, instance,
                                             migration, snapshot_id):
        """Destination: spawn with the new flavor; VERIFY_RESIZE."""
        return self._call_1_8(context, host,
                              'finish_snapshot_based_resize_at_dest',
                              instance=instance, migration=migration,
                              snapshot_id=snapshot_id)

    def confirm_snapshot_based_resize_at_source(self, context, host,
                                                instance, migration):
        """Source: drop the kept guest, its attachments and the
        migration's allocation."""
        return self._call_1_8(context, host,
                              'confirm_snapshot_based_resize_at_source',
                              instance=instance, migration=migration)

    def revert_snapshot_based_resize_at_dest(self, context, host, instance,
                                             migration):
        """Destination: drop the new guest and its attachments."""
        return self._call_1_8(context, host,
                              'revert_snapshot_based_resize_at_dest',
                              instance=instance, migration=migration)

    def finish_revert_snapshot_based_resize_at_source(self, context, host,
                                                      instance, migration):
        """Source: the kept guest back with the old flavor."""
        return self._call_1_8(
            context, host, 'finish_revert_snapshot_based_resize_at_source',
            instance=instance, migration=migration)

    # Image pre-caching (1.9): a cast to a host; callers check
    # can_send(..., CACHE_IMAGES_VERSION) first.

    def cache_images(self, context, host, image_ids):
        cctxt = self._client(context, host).prepare(
            server=host, version=CACHE_IMAGES_VERSION)
        cctxt.cast(context, 'cache_images', image_ids=image_ids)

    # Consoles and introspection (1.10); callers check can_send(...,
    # CONSOLE_VERSION) first.

    def _call_1_10(self, context, instance, method, **kwargs):
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=CONSOLE_VERSION)
        return cctxt.call(context, method, instance=instance, **kwargs)

    def get_console_output(self, context, instance, tail_length=None):
        """The guest's console log (its last tail_length lines)."""
        return self._call_1_10(context, instance, 'get_console_output',
                              tail_length=tail_length)

    def get_console_connect_info(self, context, instance, protocol,
                                 console_type):
        """Where the guest's console listens: {'host', 'port',
        'internal_access_path'}."""
        return self._call_1_10(context, instance, 'get_console_connect_info',
                              protocol=protocol, console_type=console_type)

    def get_diagnostics(self, context, instance):
        return self._call_1_10(context, instance, 'get_diagnostics')

    def trigger_crash_dump(self, context, instance):
        """Cast: an NMI to the guest."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=CONSOLE_VERSION)
        cctxt.cast(context, 'trigger_crash_dump', instance=instance)

    def inject_network_info(self, context, instance):
        """Cast: the guest's network info injected again."""
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=CONSOLE_VERSION)
        cctxt.cast(context, 'inject_network_info', instance=instance)

    # Shelve, unshelve and rescue (1.11): casts to the instance's host
    # (unshelve: the host the super conductor picked, instance.host);
    # callers check can_send(..., SHELVE_RESCUE_VERSION) first.

    def _cast_1_11(self, context, instance, method, **kwargs):
        cctxt = self._client(context, instance.host).prepare(
            server=instance.host, version=SHELVE_RESCUE_VERSION)
        cctxt.cast(context, method, instance=instance, **kwargs)

    def shelve_instance(self, context, instance, image_id):
        """Power off, snapshot into image_id (queued), SHELVED (and
        offloaded at once when [DEFAULT] shelved_offload_time is 0)."""
        self._cast_1_11(context, instance, 'shelve_instance',
                       image_id=image_id)

    def shelve_offload_instance(self, context, instance):
        """Destroy the guest, free its host and allocations:
        SHELVED_OFFLOADED."""
        self._cast_1_11(context, instance, 'shelve_offload_instance')

    def unshelve_instance(self, context, instance, request_spec=None):
        """The guest back on instance.host (claimed there by the
        scheduler when it was offloaded): ACTIVE."""
        self._cast_1_11(context, instance, 'unshelve_instance',
                       request_spec=request_spec)

    def rescue_instance(self, context, instance, rescue_image_ref,
                        rescue_password):
        """Boot the guest from a rescue image: RESCUED."""
        self._cast_1_11(context, instance, 'rescue_instance',
                       rescue_image_ref=rescue_image_ref,
                       rescue_password=rescue_password)

    def unrescue_instance(self, context, instance):
        """Boot the guest from its own disk again: ACTIVE."""
        self._cast_1_11(context, instance, 'unrescue_instance')

    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        """Snapshot into image_id (queued), then keep only the newest
        rotation backups of backup_type of the instance."""
        self._cast_1_11(context, instance, 'backup_instance',
                       image_id=image_id, backup_type=backup_type,
                       rotation=rotation)

    def set_admin_password(self, context, instance, new_pass):
        """Set the guest's administrator password."""
        self._cast_1_11(context, instance, 'set_admin_password',
                       new_pass=new_pass)

    def soft_delete_instance(self, context, instance):
        """Power the guest off: SOFT_DELETED (resources kept)."""
        self._cast_1_11(context, instance, 'soft_delete_instance')

    def restore_instance(self, context, instance):
        """Power a soft-deleted guest on again: ACTIVE."""
        self._cast_1_11(context, instance, 'restore_instance')

    def evacuate_instance(self, context, host, instance, migration,
                          admin_password=None, stopped=False,
                          request_spec=None):
        """Cast (1.14): rebuild instance, evacuated from its down
        compute, on host (claimed there; migration pre-migrating).
        Callers check can_send(..., EVACUATE_VERSION) first; request_spec
        goes only to a host at GROUP_CHECK_VERSION (1.17)."""
        kwargs = {}
        version = EVACUATE_VERSION
        if request_spec is not None and self.can_send(
                context, host, GROUP_CHECK_VERSION):
            kwargs['request_spec'] = request_spec
            version = GROUP_CHECK_VERSION
        cctxt = self._client(context, host).prepare(server=host,
                                                    version=version)
        cctxt.cast(context, 'evacuate_instance', instance=instance,
                   migration=migration, admin_password=admin_password,
                   stopped=stopped, **kwargs)

    # Live migration (1.15); callers check can_send(...,
    # LIVE_MIGRATION_VERSION) on both hosts first.

    def _live(self, context, host, timeout=None):
        # A long call is heartbeated by the compute working on it: one
        # that dies fails it after rpc_response_timeout.
        monitor = CONF.rpc_response_timeout if timeout else None
        return self._client(context, host).prepare(
            server=host, version=LIVE_MIGRATION_VERSION, timeout=timeout,
            call_monitor_timeout=monitor)

    def check_can_live_migrate_destination(self, context, host, instance,
                                           migration, block_migration,
                                           disk_over_commit,
                                           request_spec=None):
        """Destination pre-check (call); returns the migrate data.
        request_spec goes only to a host at GROUP_CHECK_VERSION."""
        kwargs = {}
        cctxt = self._live(context, host)
        if request_spec is not None and self.can_send(
                context, host, GROUP_CHECK_VERSION):
            kwargs['request_spec'] = request_spec
            cctxt = self._client(context, host).prepare(
                server=host, version=GROUP_CHECK_VERSION)
        return cctxt.call(
            context, 'check_can_live_migrate_destination',
            instance=instance, migration=migration,
            block_migration=block_migration,
            disk_over_commit=disk_over_commit, **kwargs)

    def check_can_live_migrate_source(self, context, host, instance,
                                      migrate_data):
        """Source pre-check (call); returns the migrate data."""
        return self._live(context, host).call(
            context, 'check_can_live_migrate_source', instance=instance,
            migrate_data=migrate_data)

    def live_migration(self, context, host, instance, migration,
                       migrate_data):
        """Start the live migration on its source (cast)."""
        self._live(context, host).cast(
            context, 'live_migration', instance=instance,
            migration=migration, migrate_data=migrate_data)

    def pre_live_migration(self, context, host, instance, migration,
                           migrate_data):
        """Prepare the destination (call, [DEFAULT]
        long_rpc_timeout, heartbeated); returns the migrate data."""
        return self._live(context, host, CONF.long_rpc_timeout).call(
            context, 'pre_live_migration', instance=instance,
            migration=migration, migrate_data=migrate_data)

    def post_live_migration_at_destination(self, context, host, instance,
                                           migration):
        self._live(context, host).cast(
            context, 'post_live_migration_at_destination',
            instance=instance, migration=migration)

    def rollback_live_migration_at_destination(self, context, host,
                                               instance, migration):
        self._live(context, host).cast(
            context, 'rollback_live_migration_at_destination',
            instance=instance, migration=migration)

    def live_migration_abort(self, context, instance, migration_id):
        self._live(context, instance.host).cast(
            context, 'live_migration_abort', instance=instance,
            migration_id=migration_id)

    def live_migration_force_complete(self, context, instance,
                                      migration_id):
        self._live(context, instance.host).cast(
            context, 'live_migration_force_complete', instance=instance,
            migration_id=migration_id)
