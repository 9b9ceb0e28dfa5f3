"""The Compute API microversions nova_lite speaks: one table, named constants.

Code branches on these names (``if version >= SERVICE_HYPERVISOR_UUID_IDS``),
never on bare strings; a range that ends where a version begins ends at
``before(NAME)``. Each entry is described in doc/api_version_history.rst. MAX
only grows when every implemented resource behaves at it as the Compute API
reference says.
"""
import re

from nova_lite import exception

MIN = '2.1'
# os-keypairs: key types (ssh, x509); create answers 201, delete 204.
KEYPAIR_TYPE = '2.2'
# servers: more OS-EXT-SRV-ATTR fields (reservation_id, launch_index,
# hostname, kernel_id, ramdisk_id, root_device_name, user_data);
# delete_on_termination in os-extended-volumes:volumes_attached.
SERVER_EXTENDED_ATTRS_V23 = '2.3'
# servers: non-administrators may filter lists by ip6.
SERVER_IP6_FILTER = '2.5'
# flavors: adding access to a public flavor is a 409.
FLAVOR_ACCESS_PUBLIC_CONFLICT = '2.7'
# servers: locked in bodies.
SERVER_LOCKED = '2.9'
# os-keypairs: administrators name another user (user_id).
KEYPAIR_USER_ID = '2.10'
# os-services: forced_down in responses; PUT /os-services/force-down.
SERVICE_FORCED_DOWN = '2.11'
# servers: host_status in show and detail (when policy allows).
SERVER_HOST_STATUS = '2.16'
# servers: description (create, update, bodies).
SERVER_DESCRIPTION = '2.19'
# os-instance-actions: the actions of a deleted server are listed.
INSTANCE_ACTIONS_OF_DELETED = '2.21'
# os-migrations: migration_type in bodies, and links to the in-progress
# live migrations; /servers/{id}/migrations[/{id}] exist.
MIGRATION_TYPE = '2.23'
SERVER_MIGRATIONS = MIGRATION_TYPE
# servers: tags in bodies; tags, tags-any, not-tags, not-tags-any filters.
SERVER_TAGS = '2.26'
# os-hypervisors: cpu_info is a JSON object instead of a string.
HYPERVISOR_CPU_INFO_OBJECT = '2.28'
# servers: network and block device tags on create.
SERVER_NETWORK_TAGS = '2.32'
# os-hypervisors: limit and marker on list and detail.
HYPERVISOR_PAGING = '2.33'
# servers: as the Compute API (a bug it kept): 2.33 to 2.36 take network
# tags but no block device tag, 2.37 to 2.41 neither; 2.42 takes both.
SERVER_BDM_TAG_LOST = '2.33'
SERVER_DEVICE_TAGS_BACK = '2.42'
# os-keypairs: limit and marker on the list.
KEYPAIR_PAGING = '2.35'
# The image proxy (/images) is gone: 404.
IMAGES_PROXY_REMOVED = '2.36'
# servers: networks is required on create, and may be 'auto' or 'none'.
SERVER_NETWORKS_AUTO = '2.37'
# The image metadata proxy (/images/{id}/metadata) is gone: 404.
IMAGE_METADATA_PROXY_REMOVED = '2.39'
# servers: an unknown status filter is a 400 (an empty list before).
SERVER_STRICT_STATUS = '2.38'
# servers: the flavor of show/detail/update is the instance's own copy
# {vcpus, ram, disk, ephemeral, swap, original_name, extra_specs}.
SERVER_EMBEDDED_FLAVOR = '2.47'
# servers: createImage answers {"image_id": ...} instead of a Location.
CREATE_IMAGE_ID_IN_BODY = '2.45'
# os-instance-actions: everyone sees the events of an action (the
# traceback only with the events policy).
INSTANCE_ACTION_EVENTS_FOR_ALL = '2.51'
# os-volume_attachments: tag on attach.
VOLUME_ATTACH_TAG = '2.49'
# Attach and detach of a volume on a shelved or shelved-offloaded server.
VOLUME_ATTACH_SHELVED = '2.20'
# servers: tags on create.
SERVER_TAGS_ON_CREATE = '2.52'
# servers: rebuild takes key_name (null unsets) and answers with it.
SERVER_REBUILD_KEY_NAME = '2.54'
# os-services and os-hypervisors: ids are UUIDs; PUT /os-services/{id};
# hypervisor_hostname_pattern and with_servers; /search and /servers gone.
SERVICE_HYPERVISOR_UUID_IDS = '2.53'
# flavors carry a description (POST, and PUT /flavors/{id}).
FLAVOR_DESCRIPTION = '2.55'
# servers: evacuate takes no onSharedStorage and answers no adminPass.
EVACUATE_NO_SHARED_STORAGE = '2.14'
# servers: evacuate takes force (skip the scheduler), until 2.68.
EVACUATE_FORCE = '2.29'
EVACUATE_NO_FORCE = '2.68'
# servers: an evacuated server ends stopped (SHUTOFF) on its new host.
EVACUATE_STOPPED = '2.95'
# servers: the migrate action takes a target host (administrators).
MIGRATE_HOST = '2.56'
# servers: personality is no longer accepted on create nor rebuild;
# rebuild takes user_data (null unsets) and answers with it.
SERVER_NO_PERSONALITY = '2.57'
SERVER_REBUILD_USER_DATA = SERVER_NO_PERSONALITY
# os-instance-actions: limit, marker and changes-since; updated_at.
INSTANCE_ACTIONS_PAGING = '2.58'
# os-migrations: limit, marker and changes-since; uuid in bodies;
# migrations_links; unknown query parameters are a 400.
MIGRATIONS_PAGING = '2.59'
# flavor bodies carry extra_specs (when the extra-specs index policy allows).
FLAVOR_EXTRA_SPECS_IN_BODY = '2.61'
# os-instance-actions: events carry hostId (and host, by policy).
INSTANCE_ACTION_EVENT_HOST = '2.62'
# servers: trusted_image_certificates (create, bodies).
SERVER_TRUSTED_CERTS = '2.63'
# servers: changes-before filter.
SERVER_CHANGES_BEFORE = '2.66'
# os-instance-actions: changes-before.
INSTANCE_ACTIONS_CHANGES_BEFORE = SERVER_CHANGES_BEFORE
# os-migrations: changes-before.
MIGRATIONS_CHANGES_BEFORE = SERVER_CHANGES_BEFORE
# os-services: services of a cell that does not answer are listed with
# status UNKNOWN instead of being left out.
SERVICE_DOWN_CELLS = '2.69'
# servers: volume_type in block device mappings on create.
SERVER_BDM_VOLUME_TYPE = '2.67'
# servers of a cell that does not answer are minimal constructs (status
# UNKNOWN) in lists and show, instead of being left out (or an error).
SERVER_DOWN_CELLS = SERVICE_DOWN_CELLS
# os-volume_attachments: tag in the attachment bodies.
VOLUME_ATTACHMENT_TAG_SHOWN = '2.70'
# servers: server_groups in show and update bodies.
SERVER_GROUPS_IN_BODY = '2.71'
# servers: locked_reason in bodies; locked filter and sort key.
SERVER_LOCKED_REASON = '2.73'
# servers: host and hypervisor_hostname on create (administrators).
SERVER_REQUESTED_DESTINATION = '2.74'
# Unknown query parameters on os-services and flavor lists are rejected;
# with_servers on os-hypervisors always returns a servers list, possibly
# empty; a flavor without swap says 0 instead of ""; server lists reject
# unknown filters; PUT /servers/{id} answers with the full show body.
STRICT_QUERY_EMPTY_SERVERS = '2.75'
# servers: rebuild answers with the full show body (as PUT does).
SERVER_REBUILD_FULL_BODY = STRICT_QUERY_EMPTY_SERVERS
# migrations: user_id and project_id filters and fields.
MIGRATIONS_USER_PROJECT = '2.80'
# os-volume_attachments: delete_on_termination on attach and in bodies.
VOLUME_ATTACHMENT_DELETE_ON_TERMINATION = '2.79'
# servers: non-administrators may filter by availability_zone,
# config_drive, key_name, created_at, launched_at, terminated_at,
# power_state, task_state, vm_state, progress and user_id.
SERVER_MORE_USER_FILTERS = '2.83'
# os-instance-actions: events carry details (by policy).
INSTANCE_ACTION_EVENT_DETAILS = '2.84'
# os-volume_attachments: PUT updates delete_on_termination (the same
# volumeId); another volumeId is still a swap.
VOLUME_ATTACHMENT_UPDATE = '2.85'
# flavors: extra specs of the namespaces Nova knows (hw:, quota:, ...) are
# validated on create and update (extra_spec_validators).
FLAVOR_EXTRA_SPEC_VALIDATION = '2.86'
# os-hypervisors: capacity fields, /statistics and /{id}/uptime removed;
# uptime is part of show and detail.
HYPERVISOR_CAPACITY_REMOVED = '2.88'
HYPERVISOR_UPTIME_IN_SHOW = HYPERVISOR_CAPACITY_REMOVED
# os-aggregates: uuid in bodies.
AGGREGATE_UUID = '2.41'
# os-aggregates: POST /os-aggregates/{id}/images pre-caches images.
AGGREGATE_IMAGES = '2.81'

# quotas and limits: the network quotas (and /limits' network entries)
# are gone at 2.36, maxImageMeta at 2.39; quota classes show server group
# quotas instead of network ones at 2.50; the personality quotas (and
# maxPersonality*) are gone at 2.57.
QUOTA_NETWORK_REMOVED = '2.36'
LIMITS_IMAGE_META_REMOVED = '2.39'
QUOTA_CLASS_SERVER_GROUPS = '2.50'
QUOTA_PERSONALITY_REMOVED = '2.57'

# The server actions on floating and fixed IPs (addFloatingIp,
# removeFloatingIp, addFixedIp, removeFixedIp) are gone at 2.44.
NETWORK_ACTIONS_REMOVED = '2.44'

# os-server-groups: project_id and user_id in bodies (2.13); the soft
# policies (2.15); one policy with rules (max_server_per_host), no
# metadata (2.64).
SERVER_GROUP_PROJECT_USER = '2.13'
SERVER_GROUP_SOFT_POLICIES = '2.15'
SERVER_GROUP_POLICY_RULES = '2.64'

# os-simple-tenant-usage: limit and marker (servers), *_links.
USAGE_PAGING = '2.40'
# Consoles: POST /servers/{id}/remote-consoles replaces the
# os-get*Console actions (2.6); mks/webmks (2.8).
REMOTE_CONSOLES = '2.6'
REMOTE_CONSOLES_MKS = '2.8'
# trigger_crash_dump (2.17).
TRIGGER_CRASH_DUMP = '2.17'
# os-console-auth-tokens shows every type of console, not only RDP (2.31).
CONSOLE_AUTH_TOKENS_ANY_TYPE = '2.31'
# Server diagnostics in the standard format (2.48).
DIAGNOSTICS_STANDARD = '2.48'
# GET /servers/{id}/topology (2.78).
SERVER_TOPOLOGY = '2.78'

# servers: unshelve takes an availability_zone (SHELVED_OFFLOADED only).
UNSHELVE_AVAILABILITY_ZONE = '2.77'
# servers: rescue of a volume-backed server (stable device rescue).
RESCUE_VOLUME_BACKED = '2.87'

# Server external events named from these versions on.
EXTERNAL_EVENT_VOLUME_EXTENDED = '2.51'
EXTERNAL_EVENT_POWER_UPDATE = '2.76'
EXTERNAL_EVENT_ACCELERATOR_BOUND = '2.82'

# os-volume_attachments: list and show carry attachment_id and bdm_uuid,
# not id.
VOLUME_ATTACHMENT_IDS = '2.89'
# servers: hostname on create, update and rebuild;
# OS-EXT-SRV-ATTR:hostname shown to everyone who sees the server.
SERVER_HOSTNAME = '2.90'
# servers: unshelve to a host; availability_zone null unpins.
UNSHELVE_HOST = '2.91'
# os-keypairs: no generation (public_key required); '@' and '.' in names.
KEYPAIR_IMPORT_ONLY = '2.92'
# servers: rebuild of a volume-backed server.
REBUILD_VOLUME_BACKED = '2.93'
# servers: hostname may be a fully qualified domain name.
SERVER_HOSTNAME_FQDN = '2.94'
# servers: evacuate leaves the server stopped (EVACUATE_STOPPED, above).
# servers: pinned_availability_zone in show, detail, update and rebuild.
SERVER_PINNED_AZ = '2.96'
# servers: /servers/{id}/shares.
SERVER_SHARES = '2.97'
# servers: the image's properties embedded in the server's image.
SERVER_IMAGE_PROPERTIES = '2.98'
# consoles: spice-direct.
CONSOLE_SPICE_DIRECT = '2.99'
# servers: scheduler_hints in show, detail, update and rebuild.
SERVER_SCHEDULER_HINTS = '2.100'
# os-volume_attachments: attach answers 202.
VOLUME_ATTACH_ACCEPTED = '2.101'
# flavors: name filter; rxtx_factor and OS-FLV-DISABLED:disabled gone;
# every list API refuses unknown query parameters.
FLAVOR_NAME_FILTER = '2.102'
STRICT_QUERY_EVERYWHERE = FLAVOR_NAME_FILTER
# /os-volumes_boot (the alias of /servers) is gone: 404.
VOLUMES_BOOT_REMOVED = '2.103'
# servers: PUT /servers/{id} changes pinned_availability_zone.
SERVER_PINNED_AZ_UPDATE = '2.104'
# Live migration: force_complete (2.22); abort by DELETE (2.24);
# block_migration 'auto' and no disk_over_commit (2.25); force (2.30 to
# 2.67); asynchronous pre-checks (2.34); abort also while queued or
# preparing (2.65); no force (2.68).
LIVE_MIGRATION_FORCE_COMPLETE = '2.22'
LIVE_MIGRATION_ABORT = '2.24'
LIVE_MIGRATION_BLOCK_AUTO = '2.25'
LIVE_MIGRATION_FORCE = '2.30'
LIVE_MIGRATION_ASYNC = '2.34'
LIVE_MIGRATION_ABORT_QUEUED = '2.65'
LIVE_MIGRATION_NO_FORCE = '2.68'
# os-server-external-events: volume-reimaged (with 2.93's rebuild).
EXTERNAL_EVENT_VOLUME_REIMAGED = '2.93'
MAX = '2.104'

SERVICE_TYPE = 'compute'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
STANDARD_HEADER = 'OpenStack-API-Version'
ENVIRON_KEY = 'nova_lite.api_version'

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


class APIVersion(object):
    """A parsed microversion, comparable with another one or a 'X.Y' string."""

    __slots__ = ('major', 'minor')

    def __init__(self, version):
        if isinstance(version, APIVersion):
            self.major, self.minor = version.major, version.minor
            return
        match = _VERSION_RE.match(str(version).strip())
        if not match:
            raise exception.InvalidAPIVersionString(version=version)
        self.major, self.minor = int(match.group(1)), int(match.group(2))

    def _key(self):
        return (self.major, self.minor)

    @staticmethod
    def _coerce(other):
        return other if isinstance(other, APIVersion) else APIVersion(other)

    def __eq__(self, other):
        return self._key() == self._coerce(other)._key()

    def __ne__(self, other):
        return not self == other

    def __lt__(self, other):
        return self._key() < self._coerce(other)._key()

    def __le__(self, other):
        return self._key() <= self._coerce(other)._key()

    def __gt__(self, other):
        return self._key() > self._coerce(other)._key()

    def __ge__(self, other):
        return self._key() >= self._coerce(other)._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return '%d.%d' % self._key()

    __repr__ = __str__

    def matches(self, min_version=None, max_version=None):
        """True if min_version <= self <= max_version (None = unbounded)."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True


def before(version):
    """The version just before ``version`` ('2.53' -> '2.52'): the upper
    bound of a range that ends where a named version begins."""
    version = APIVersion(version)
    if version.minor == 0:
        raise ValueError('no version before %s' % version)
    return '%d.%d' % (version.major, version.minor - 1)


def min_version():
    return APIVersion(MIN)


def max_version():
    return APIVersion(MAX)


def from_header_value(value):
    """Turn a requested version (None, 'latest' or 'X.Y') into an APIVersion.

    Raises InvalidAPIVersionString (400) for a malformed value and
    InvalidGlobalAPIVersion (406) for one outside MIN..MAX.
    """
    if value is None:
        return min_version()
    if value.strip().lower() == 'latest':
        return max_version()
    version = APIVersion(value)
    if not version.matches(MIN, MAX):
        raise exception.InvalidGlobalAPIVersion(
            req_ver=str(version), min_ver=MIN, max_ver=MAX)
    return version
