"""Service versions: what each version of the code speaks, and what the
oldest recorded services allow.

Every service records the SERVICE_VERSION of the code it runs
(../shared/specs/service-version-number.rst); NULL (records written before
the column existed) counts as 1. SERVICE_VERSION_HISTORY says what each
version speaks. The minimum recorded version per binary -- in one cell or
across all cells -- gates online data migrations (unmet_needs), RPC version
caps ([upgrade_levels] ... = auto: rpc_version_cap) and start-up
(objects.service.check_can_start). Answers are cached per process until
SIGHUP (reset_min_version_cache).
"""
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception
from nova_lite.objects import cell_mapping

LOG = logging.getLogger(__name__)


def _history(first, *changes):
    """{version: entry}: version 1's entry is first; each later one is
    the entry before it with what its change says ('objects' merged
    into the previous object versions)."""
    history = {1: first}
    for version, change in enumerate(changes, start=2):
        entry = dict(history[version - 1], **change)
        entry['objects'] = dict(history[version - 1]['objects'],
                                **change.get('objects', {}))
        history[version] = entry
    return history


# One entry per service version: the RPC API versions that code speaks, the
# object versions it understands (objects sent to it are backported to
# these) and what it enables, each written as what changed since the
# version before. Version 1 is the code before the services table had a
# version column (NULL in the database).
# placement_rpc / compute_task_rpc None: that code does not serve that API.
SERVICE_VERSION_HISTORY = _history(
    # 1
    {'compute_rpc': '1.0', 'conductor_rpc': '1.0', 'scheduler_rpc': '1.0',
     'placement_rpc': None, 'compute_task_rpc': None,
     'objects': {'Service': '1.0', 'ComputeNode': '1.0',
                 'ComputeNodeList': '1.0', 'ServiceList': '1.0'},
     'enables': 'initial'},
    # 2
    {'compute_rpc': '1.1',
     'objects': {'Service': '1.1', 'ComputeNode': '1.1'},
     'enables': 'services.version recorded; compute RPC 1.1 '
                '(get_guests); ComputeNode.uuid; online migration '
                'migrate_flavors'},
    # 3
    {'placement_rpc': '1.0',
     'objects': {'ComputeNode': '1.2', 'ComputeNodeList': '1.1'},
     'enables': 'ComputeNode capacity in resource-provider inventories '
                '(usage from allocations); placement RPC 1.0 served by '
                'nova-lite-scheduler on every cell transport; online '
                'migration migrate_compute_node_inventories (needs '
                'nova-lite-api and nova-lite-conductor >= 3 in every '
                'cell)'},
    # 4
    {'placement_rpc': '1.1', 'compute_task_rpc': '1.0',
     'objects': {'EmbeddedFlavor': '1.0'},
     'enables': 'placement RPC 1.1: claim (optionally moving the '
                "consumer's allocations to another consumer), "
                'move_allocations, remove_allocations, get_consumer, '
                'with consumer generations (API DB consumers table); '
                'EmbeddedFlavor 1.0, the flavor snapshot servers carry '
                'in instance_extra; services recorded under the Compute '
                'API binary names (nova-osapi_compute, nova-conductor, '
                'nova-scheduler, nova-compute; earlier versions recorded '
                'nova-lite-*, read under either name); online migration '
                'migrate_service_binaries (needs nova-osapi_compute, '
                'nova-conductor and nova-scheduler >= 4 in every cell); '
                'compute_task RPC 1.0 served by super conductors'},
    # 5
    {'compute_rpc': '1.2',
     'enables': 'compute RPC 1.2 (get_host_uptime): the hypervisor '
                'uptime of GET /os-hypervisors/{id}/uptime and, from '
                'microversion 2.88, of show'},
    # 6
    {'compute_rpc': '1.3', 'conductor_rpc': '1.1', 'scheduler_rpc': '1.1',
     'compute_task_rpc': '1.1',
     'objects': {'Instance': '1.0', 'InstanceList': '1.0',
                 'BuildRequest': '1.0', 'BuildRequestList': '1.0',
                 'RequestSpec': '1.0'},
     'enables': 'servers: compute RPC 1.3 (build_and_run_instance, '
                'terminate_instance), conductor RPC 1.1 '
                '(build_instances: reschedule in the cell), compute_task '
                'RPC 1.1 (schedule_and_build_instances), scheduler RPC '
                '1.1 (select_destinations claiming the primary and '
                'returning alternates); Instance, BuildRequest and '
                'RequestSpec 1.0'},
    # 7
    {'compute_rpc': '1.4',
     'objects': {'InstanceAction': '1.0', 'InstanceActionList': '1.0',
                 'InstanceActionEvent': '1.0',
                 'InstanceActionEventList': '1.0'},
     'enables': 'server actions: compute RPC 1.4 (stop_instance, '
                'start_instance, reboot_instance, pause_instance, '
                'unpause_instance, suspend_instance, resume_instance, '
                'reset_network); InstanceAction(List) and '
                'InstanceActionEvent(List) 1.0, written by computes '
                'through their cell conductor (instance action '
                'events). An API sends actions only to computes at 7 '
                'or later (409 for an older one)'},
    # 8
    {'compute_rpc': '1.5',
     'enables': 'rebuild and createImage: compute RPC 1.5 '
                '(rebuild_instance, snapshot_instance), the compute '
                'writing snapshots into the image service. An API '
                'sends them only to computes at 8 or later (409 for '
                'an older one)'},
    # 9
    {'compute_rpc': '1.6', 'scheduler_rpc': '1.2', 'compute_task_rpc': '1.2',
     'objects': {'Migration': '1.0', 'MigrationList': '1.0'},
     'enables': 'resize and cold migration within a cell: compute '
                'RPC 1.6 (prep_resize, resize_instance, finish_resize, '
                'confirm_resize, revert_resize, finish_revert_resize), '
                'compute_task RPC 1.2 (migrate_server), scheduler RPC '
                '1.2 (select_destinations claiming for a move: the '
                "instance's source allocation handed to the migration "
                'consumer); Migration(List) 1.0 written by computes '
                'through their cell conductor. An API sends resize and '
                'migrate only to computes at 9 or later (409 for an '
                'older one)'},
    # 10
    {'compute_rpc': '1.7',
     'objects': {'RequestSpec': '1.1', 'BlockDeviceMapping': '1.0',
                 'BlockDeviceMappingList': '1.0'},
     'enables': 'volumes: compute RPC 1.7 (attach_volume, '
                'detach_volume) for /servers/{id}/os-volume_attachments '
                '(an API sends them only to computes at 10 or later: '
                '409 for an older one); boot from volume, computes '
                'creating and connecting volumes in the embedded '
                'volume service; BlockDeviceMapping(List) 1.0, every '
                'server with block_device_mapping rows; RequestSpec '
                '1.1 (is_bfv: no root DISK_GB claimed for a '
                'volume-backed server)'},
    # 11
    {'compute_rpc': '1.8', 'compute_task_rpc': '1.3',
     'objects': {'RequestSpec': '1.2'},
     'enables': 'cross-cell resize and cold migration: compute RPC '
                '1.8 (prep_snapshot_based_resize_at_dest, '
                'prep_snapshot_based_resize_at_source, '
                'finish_snapshot_based_resize_at_dest, '
                'confirm_snapshot_based_resize_at_source, '
                'revert_snapshot_based_resize_at_dest, '
                'finish_revert_snapshot_based_resize_at_source, '
                'synchronous calls from the super conductor), '
                'compute_task RPC 1.3 (migrate_server with '
                'allow_cross_cell, confirm_snapshot_based_resize, '
                'revert_snapshot_based_resize); RequestSpec 1.2. The '
                'API lets a resize leave its cell only while every '
                'nova-compute in every cell is at 11 or later (and '
                'policy compute:servers:resize:cross_cell allows)'},
    # 12
    {'conductor_rpc': '1.2',
     'objects': {'Instance': '1.1'},
     'enables': 'Instance 1.1 (save_and_finish_event) and conductor '
                'RPC 1.2 (a conductor runs it through object_action): '
                'a compute saves the state an action ends in and '
                'finishes the action\'s event in one call to its cell '
                'conductor, one transaction, while it may send 1.2 '
                '(two calls otherwise)'},
    # 13
    {'conductor_rpc': '1.3',
     'objects': {'Instance': '1.2', 'InstanceActionEvent': '1.1'},
     'enables': 'conductor RPC 1.3, InstanceActionEvent 1.1 and '
                'Instance 1.2 (event_start, event_finish and '
                'save_and_finish_event take start_time): a compute '
                'records the event of a quick server action (stop, '
                'start, reboot, pause, unpause, suspend, resume) with '
                'its finish, in the one call that saves the state it '
                'ends in, while it may send 1.3; an action still '
                'running after half a second (instance_events.'
                'START_DEFERRAL) has its '
                'start recorded then'},
    # 14
    {'objects': {'Instance': '1.3'},
     'enables': 'Instance 1.3 (auto_disk_config: the server\'s '
                'OS-DCF:diskConfig, kept on create, rebuild, resize and '
                'update); sent to older services without it'},
    # 15
    {'compute_rpc': '1.9',
     'enables': 'compute RPC 1.9 (cache_images: aggregate image '
                'pre-caching, POST /os-aggregates/{id}/images at 2.81, '
                'sent only to computes at 15 or later)'},
    # 16
    {'objects': {'RequestSpec': '1.3', 'InstanceGroup': '1.0'},
     'enables': 'RequestSpec 1.3 (instance_group: the server group of '
                'a boot or move, with its members\' hosts): a compute '
                'checks the group\'s policy late, under a lock per '
                'group, and reschedules a build that would break it '
                '(two schedulers racing); older computes get the spec '
                'without the group and do not check'},
    # 17
    {'compute_rpc': '1.10',
     'enables': 'compute RPC 1.10: console output, remote console '
                'connection info, diagnostics (calls), trigger_crash_dump '
                'and inject_network_info (casts)'},
    # 18
    {'compute_rpc': '1.11', 'compute_task_rpc': '1.4',
     'enables': 'shelve and rescue: compute RPC 1.11 (shelve_instance, '
                'shelve_offload_instance, unshelve_instance, '
                'rescue_instance, unrescue_instance), compute_task RPC '
                '1.4 (unshelve_instance: an offloaded server scheduled '
                'anew within its cell). An API sends shelve, '
                'shelveOffload, unshelve, rescue and unrescue only to '
                'computes at 18 or later (409 for an older one), and '
                'unshelve only while the super conductors serve 1.4'},
    # 19
    {'compute_rpc': '1.12',
     'enables': 'compute RPC 1.12 (attach_interface, detach_interface: '
                '/servers/{id}/os-interface)'},
    # 20
    {'compute_rpc': '1.13',
     'enables': 'compute RPC 1.13 (external_instance_event: '
                '/os-server-external-events)'},
    # 21
    {'objects': {'TaskLog': '1.0'},
     'enables': 'TaskLog 1.0: a compute with [DEFAULT] '
                'instance_usage_audit records its audit of each period '
                'in its cell\'s task log through its cell conductor '
                '(GET /os-instance_usage_audit_log reads it); until that '
                'conductor knows TaskLog the audit fails, is logged and '
                'is tried again at the next look'},
    # 22
    {'enables': 'a super conductor takes each build request it builds '
                '(build_requests.picked_up_by) and buries those no one '
                'took within [conductor] build_request_timeout (ERROR '
                'in cell0 with a fault); it buries only while every '
                'nova-conductor is at 22 or later (an older one builds '
                'without taking)'},
    # 23
    {'compute_rpc': '1.14', 'compute_task_rpc': '1.5',
     'enables': 'evacuate: compute RPC 1.14 (evacuate_instance, cast to '
                'the destination a super conductor claimed), '
                'compute_task RPC 1.5 (evacuate_server). An API sends '
                'evacuate only while the super conductors serve 1.5 '
                '(409 otherwise); a super conductor sends it only to a '
                'destination at 23 or later (the scheduler\'s pick is '
                'refused otherwise, the server stays where it was)'},
    # 24
    {'compute_task_rpc': '1.6',
     'enables': 'compute_task RPC 1.6 (unshelve_instance with a host: '
                'an offloaded server unshelved onto the host an '
                'administrator names, 2.91). An API sends a host only '
                'while the super conductors serve 1.6 (409 otherwise)'},
    # 25
    {'enables': 'a compute offers spice-direct consoles (2.99) and '
                'reports their tls_port, and revokes a deleted server\'s '
                'share grants (2.97); an API asks only computes at 25 or '
                'later for a spice-direct console and attaches shares '
                'only to their servers (409 for an older compute)'},
    # 26
    {'compute_rpc': '1.15', 'compute_task_rpc': '1.7',
     'objects': {'Migration': '1.1'},
     'enables': 'live migration: compute RPC 1.15 (the pre-checks, '
                'pre_live_migration, live_migration, post and rollback '
                'steps, abort and force-complete), compute_task RPC 1.7 '
                '(live_migrate_instance), Migration 1.1 (progress). An '
                'API sends os-migrateLive only while every compute of the '
                'server\'s cell runs 26 or later and the super conductors '
                'serve 1.7 (409 otherwise)'},
    # 27
    {'compute_rpc': '1.16',
     'enables': 'compute RPC 1.16 (rebuild_instance reimages a '
                'volume-backed server\'s root volume; swap_volume): an '
                'API rebuilds a volume-backed server at 2.93 and swaps '
                'volumes only on a compute at 27 or later (409 for an '
                'older one)'},
    # 28
    {'compute_rpc': '1.17',
     'objects': {'RequestSpec': '1.4'},
     'enables': 'compute RPC 1.17 (evacuate_instance and '
                'check_can_live_migrate_destination take the request '
                'spec: the destination checks the server group\'s policy '
                'late, as a build and a resize do; an older destination '
                'is sent none and does not check), RequestSpec 1.4 '
                '(force_hosts, force_nodes: a forced host of '
                'availability_zone "zone:host[:node]" skips the '
                'filters; sent to an older scheduler as a requested '
                'destination, which still runs them)'},
    # 29
    {'compute_rpc': '1.18',
     'enables': 'compute RPC 1.18 (volume_snapshot_create and '
                'volume_snapshot_delete): an API asks only a compute at '
                '29 or later for an assisted volume snapshot (400 for an '
                'older one, as Nova answers a server not ready)'},
    # 30
    {'compute_rpc': '1.19', 'conductor_rpc': '1.4',
     'compute_task_rpc': '1.8',
     'enables': 'personality files reach the guest: compute_task RPC 1.8 '
                '(schedule_and_build_instances takes injected_files), '
                'compute RPC 1.19 (build_and_run_instance takes them), '
                'conductor RPC 1.4 (build_instances, a reschedule, '
                'carries them); each is sent only to a service at 30 or '
                'later, an older one builds the server without them'},
)
SERVICE_VERSION = max(SERVICE_VERSION_HISTORY)

# Services older than this cannot join the deployment at all (API and
# conductors refuse to start while such computes are recorded, unless
# [workarounds] disable_compute_service_check_for_ffu).
OLDEST_SUPPORTED_SERVICE_VERSION = 1

# The service version of the last code of each release
# (tools/upgrade/PREVIOUS_RELEASE records the previous release's commit).
RELEASES = {'0.1.0': 14}
PREVIOUS_RELEASE = '0.1.0'

# A service may be at most this many versions older than the newest of its
# own binary: a rolling upgrade runs the previous release's services beside
# this code's (N-1), however many versions this release added; further
# behind, a service refuses to start.
SERVICE_VERSION_SKEW = max(1, SERVICE_VERSION - RELEASES[PREVIOUS_RELEASE])


def binary_in(binaries):
    """Rows of these binaries under their current or legacy names."""
    names = [n for b in binaries for n in constants.binary_names(b)]
    return models.Service.binary.in_(names)


# --- minimum versions ------------------------------------------------------
#
# Answers to "has everyone upgraded far enough?" are cached per process:
# they gate code paths that run on every request, and the answer only
# changes when an operator upgrades something — they then send SIGHUP
# (oslo.service calls reset(), which calls reset_min_version_cache()).

_MIN_VERSION_CACHE = {}


def reset_min_version_cache():
    _MIN_VERSION_CACHE.clear()


def cached(key, load, use_cache=True):
    """load() once per key until reset_min_version_cache() (use_cache
    False: load again and remember the new answer)."""
    if use_cache and key in _MIN_VERSION_CACHE:
        return _MIN_VERSION_CACHE[key]
    value = _MIN_VERSION_CACHE[key] = load()
    return value


@main_db.reader
def _min_versions_in_db(context, binaries):
    rows = (context.session.query(
        models.Service.binary,
        sa.func.min(sa.func.coalesce(models.Service.version, 1)))
        .filter(models.Service.deleted == 0, binary_in(binaries))
        .group_by(models.Service.binary).all())
    mins = {}
    for binary, version in rows:
        binary = constants.current_binary(binary)
        mins[binary] = min(version, mins.get(binary, version))
    return mins


def get_minimum_versions(context, binaries, use_cache=True):
    """{binary: minimum version} in the context's cell; absent binaries
    (none recorded) are left out."""
    key = (getattr(context, 'cell_uuid', None), tuple(sorted(binaries)))
    if use_cache and key in _MIN_VERSION_CACHE:
        return dict(_MIN_VERSION_CACHE[key])
    result = _min_versions_in_db(context, list(binaries))
    _MIN_VERSION_CACHE[key] = dict(result)
    return result


def get_minimum_version(context, binary, use_cache=True):
    """The minimum recorded version of binary in the context's cell, or 0
    when no such service is recorded."""
    return get_minimum_versions(context, [binary], use_cache).get(binary, 0)


def get_minimum_version_all_cells(context, binaries, use_cache=True):
    """{binary: minimum version across every cell} (cell0 excluded).

    A cell that fails or does not answer is never silently counted as
    upgraded: exception.CellsNotResponding names it.
    """
    key = ('all-cells', tuple(sorted(binaries)))
    if use_cache and key in _MIN_VERSION_CACHE:
        return dict(_MIN_VERSION_CACHE[key])
    results = cell_mapping.scatter_gather_skip_cell0(
        context, lambda cctxt: get_minimum_versions(cctxt, binaries,
                                                    use_cache=False))
    failed = [uuid for uuid, r in results.items()
              if nova_context.is_cell_failure(r)]
    if failed:
        raise exception.CellsNotResponding(cells=', '.join(sorted(failed)))
    mins = {}
    for per_cell in results.values():
        for binary, version in per_cell.items():
            mins[binary] = min(version, mins.get(binary, version))
    _MIN_VERSION_CACHE[key] = dict(mins)
    return mins


def unmet_needs(context, needs):
    """Which of {binary: version} needs are not met across all cells: the
    gate of online data migrations (online_migrations.registry's needs)
    and of compute-node inventory moves.

    Returns a human-readable string, or None when every need is met. A
    binary with no recorded service does not block; a cell that does not
    answer does (it is not provably upgraded).
    """
    try:
        mins = get_minimum_version_all_cells(context, list(needs))
    except exception.CellsNotResponding as exc:
        return exc.format_message()
    waiting = ['%s >= %d (oldest is %d)' % (binary, need, mins[binary])
               for binary, need in sorted(needs.items())
               if binary in mins and mins[binary] < need]
    return ('waiting for ' + ', '.join(waiting)) if waiting else None


def rpc_version_for(service, service_version):
    """The RPC API version ('compute', ...) a service version speaks."""
    entry = SERVICE_VERSION_HISTORY.get(service_version)
    if entry is None:
        # Older than anything we know: the oldest we know is the best bet.
        entry = SERVICE_VERSION_HISTORY[min(SERVICE_VERSION_HISTORY)]
        if service_version > SERVICE_VERSION:
            entry = SERVICE_VERSION_HISTORY[SERVICE_VERSION]
    return entry['%s_rpc' % service]


def object_versions_for(service_version):
    entry = SERVICE_VERSION_HISTORY.get(
        min(max(service_version, min(SERVICE_VERSION_HISTORY)),
            SERVICE_VERSION))
    return dict(entry['objects'])


def get_auto_version_cap(service, binary=None):
    """RPC cap for [upgrade_levels] <service> = auto: what the oldest
    recorded server binary (default: the one serving <service>) speaks,
    across all cells when this process can see them, else in its own
    cell; None when that binary does not serve <service> at all. Cached
    until reset_min_version_cache() (SIGHUP)."""
    binary = binary or constants.SERVER_BINARIES[service]
    key = ('cap', service, binary)
    if key in _MIN_VERSION_CACHE:
        return _MIN_VERSION_CACHE[key]
    ctxt = nova_context.get_admin_context()
    try:
        if CONF.api_database.connection:
            minimum = get_minimum_version_all_cells(ctxt, [binary]).get(
                binary, SERVICE_VERSION)
        else:
            minimum = get_minimum_version(ctxt, binary) or SERVICE_VERSION
    except Exception:
        LOG.exception('Cannot read minimum %s version; capping at the '
                      'oldest supported', binary)
        minimum = OLDEST_SUPPORTED_SERVICE_VERSION
    cap = _MIN_VERSION_CACHE[key] = rpc_version_for(service, minimum)
    return cap


# The cap that lets nothing be sent: no server of the API serves it yet.
NOT_SERVED_CAP = '0.0'


def rpc_version_cap(service):
    """The RPC version cap for calls to service ('conductor', ...) from
    [upgrade_levels] <service>: an explicit version pins; 'auto' derives
    it (get_auto_version_cap; NOT_SERVED_CAP when the oldest server does
    not serve the API at all); unset means no cap."""
    value = getattr(CONF.upgrade_levels, service)
    if not value:
        return None
    if value != 'auto':
        return value
    cap = get_auto_version_cap(service)
    return NOT_SERVED_CAP if cap is None else cap
