"""Unified limits: the limits registered in Keystone, read and enforced
through oslo.limit's Enforcer ([quota] driver =
nova_lite.quota.UnifiedLimitsDriver, [oslo_limit] options), as Nova
does under its UnifiedLimitsDriver.

Resources (Keystone's names; the legacy quota-set names in LEGACY):

- ``servers``, ``class:VCPU``, ``class:MEMORY_MB``, ``class:DISK_GB``
  (and any ``class:<resource class>``): per project -- a project's
  limit in Keystone, else the registered limit. Usage is counted from
  placement (allocations of the project's consumers) and servers from
  the API database's instance mappings, plus the build requests no
  allocation covers yet (their VCPU and MEMORY_MB), so a boot's check,
  run under the project's quota lock in the transaction that writes
  its build requests, sees the boots before it.
- ``server_key_pairs`` (per user), ``server_groups`` (per project),
  ``server_group_members`` (per group), ``server_metadata_items`` and
  ``server_injected_*`` (per request): registered limits only (Nova's
  "local" limits: oslo.limit is asked with no project).

oslo.limit takes a resource with no registered limit as limited to 0;
``[quota] unified_limits_resource_strategy`` and
``unified_limits_resource_list`` say which of those are enforced at 0
and which are unlimited (Nova's options and defaults: require, servers).
Over a limit is Nova's 403 with oslo.limit's text (``Project P is over a
limit for [Resource servers is over limit of 2 due to current usage 2
and delta 1]``). Keystone unreachable is a 503.
"""
import contextlib

from keystoneauth1 import exceptions as ksa_exceptions
from openstack import exceptions as sdk_exceptions
from oslo_limit import exception as limit_exceptions
from oslo_limit import limit
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite.objects import instance_group as group_obj
from nova_lite.quota import db

LOG = logging.getLogger(__name__)

DRIVER = 'nova_lite.quota.UnifiedLimitsDriver'

SERVERS = 'servers'
VCPU = 'class:VCPU'
MEMORY_MB = 'class:MEMORY_MB'
DISK_GB = 'class:DISK_GB'
KEY_PAIRS = 'server_key_pairs'
SERVER_GROUPS = 'server_groups'
SERVER_GROUP_MEMBERS = 'server_group_members'
METADATA_ITEMS = 'server_metadata_items'
INJECTED_FILES = 'server_injected_files'
INJECTED_FILE_CONTENT = 'server_injected_file_content_bytes'
INJECTED_FILE_PATH = 'server_injected_file_path_bytes'

# legacy quota-set name -> Keystone resource name
LEGACY = {'instances': SERVERS, 'cores': VCPU, 'ram': MEMORY_MB,
          'metadata_items': METADATA_ITEMS,
          'injected_files': INJECTED_FILES,
          'injected_file_content_bytes': INJECTED_FILE_CONTENT,
          'injected_file_path_length': INJECTED_FILE_PATH,
          'key_pairs': KEY_PAIRS, 'server_groups': SERVER_GROUPS,
          'server_group_members': SERVER_GROUP_MEMBERS}
# The ones a project's own limit (Keystone's "limit") applies to.
PROJECT_SCOPED = ('instances', 'cores', 'ram')

_EXCEPTIONS = {METADATA_ITEMS: exception.MetadataLimitExceeded,
               INJECTED_FILES: exception.OnsetFileLimitExceeded,
               INJECTED_FILE_CONTENT: exception.OnsetFileContentLimitExceeded,
               INJECTED_FILE_PATH: exception.OnsetFilePathLimitExceeded,
               KEY_PAIRS: exception.KeypairLimitExceeded,
               SERVER_GROUPS: exception.ServerGroupQuotaExceeded,
               SERVER_GROUP_MEMBERS:
                   exception.ServerGroupMembersQuotaExceeded}


def in_use():
    return CONF.quota.driver == DRIVER


@contextlib.contextmanager
def _keystone(what, lookup=False):
    """Keystone (or, lookup, the [oslo_limit] endpoint settings)
    failing: 503."""
    try:
        yield
    except (limit_exceptions.SessionInitError,
            ksa_exceptions.ClientException,
            sdk_exceptions.SDKException) as exc:
        LOG.error('Keystone failed while %s: %s', what, exc)
        raise exception.KeystoneConnectionFailed(
            reason='%s: %s' % (what, type(exc).__name__))
    except ValueError as exc:
        # oslo.limit's endpoint lookup: no endpoint_id nor service, or
        # the endpoint, service or region not found.
        if not lookup:
            raise
        LOG.error('[oslo_limit] endpoint lookup failed while %s: %s',
                  what, exc)
        raise exception.KeystoneConnectionFailed(reason=str(exc))


def _zero(project_id, resource_names):
    return {name: 0 for name in resource_names}


class Limits(object):
    """One oslo.limit Enforcer (limits cached for its life: one per
    request) with a usage callback."""

    def __init__(self, usage_callback=_zero):
        with _keystone('connecting', lookup=True):
            self.enforcer = limit.Enforcer(usage_callback)
        self._registered = None

    def registered(self):
        """{resource: default limit} of every registered limit (one
        call)."""
        if self._registered is None:
            with _keystone('reading registered limits'):
                self._registered = dict(
                    self.enforcer.get_registered_limits(None))
        return self._registered

    def enforced_at_zero(self, resource):
        """A resource with no registered limit: limited to 0 (True) or
        unlimited, as the strategy says."""
        listed = resource in CONF.quota.unified_limits_resource_list
        if CONF.quota.unified_limits_resource_strategy == 'require':
            return listed
        return not listed

    def _shown(self, resource, value):
        if (value == 0 and resource not in self.registered()
                and not self.enforced_at_zero(resource)):
            return -1
        return value

    def defaults(self):
        """{legacy name: limit} of the registered limits."""
        registered = self.registered()
        return {legacy: self._shown(name, registered.get(name, 0))
                for legacy, name in LEGACY.items()}

    def project(self, project_id):
        """{legacy name: limit} of a project: its own limits for
        servers, cores and ram, the registered ones for the rest."""
        values = self.defaults()
        names = [LEGACY[r] for r in PROJECT_SCOPED]
        with _keystone('reading project limits'):
            found = dict(self.enforcer.get_project_limits(project_id, names))
        for legacy in PROJECT_SCOPED:
            values[legacy] = self._shown(LEGACY[legacy],
                                         found.get(LEGACY[legacy], 0))
        return values

    def enforce(self, project_id, deltas):
        """None, or the oslo.limit ProjectOverLimit of the limits the
        strategy enforces."""
        try:
            with _keystone('enforcing limits'):
                self.enforcer.enforce(project_id, deltas)
        except limit_exceptions.ProjectOverLimit as exc:
            registered = self.registered()
            if any(info.resource_name in registered or info.limit != 0
                   or self.enforced_at_zero(info.resource_name)
                   for info in exc.over_limit_info_list):
                return exc
        return None


def _raise(resource, exc, default=exception.OverQuota):
    raise _EXCEPTIONS.get(resource, default)(message=str(exc))


# --- usage ---------------------------------------------------------------

def placement_usage(context, project_id, user_id=None):
    """{resource: used} of the project: servers from the instance
    mappings, class:<RC> from placement allocations, the build requests
    no allocation covers yet added (in the caller's API DB transaction
    when it has one)."""
    rows = db.check_rows(context, project_id, user_id, True,
                         all_classes=True)
    pending, mapped, allocated = rows[3], rows[4], rows[5]
    used = {SERVERS: mapped[0]}
    for rc, (project, _user) in allocated.items():
        used['class:' + rc] = project
    for vcpus, memory_mb, _owner in pending.values():
        used[VCPU] = used.get(VCPU, 0) + vcpus
        used[MEMORY_MB] = used.get(MEMORY_MB, 0) + memory_mb
    return used


def _counter(context, project_id, in_transaction=False):
    """A usage callback for oslo.limit reading placement once (in the
    caller's API DB transaction, or in one of its own)."""
    cache = {}

    @api_db.reader
    def _read(ctx):
        return placement_usage(ctx, project_id)

    def callback(_project_id, resource_names):
        if 'used' not in cache:
            if in_transaction:
                cache['used'] = placement_usage(context, project_id)
            else:
                cache['used'] = _read(context)
        return {name: cache['used'].get(name, 0) for name in resource_names}
    return callback


# --- the checks -------------------------------------------------------------

def flavor_deltas(vcpus, memory_mb, disk_gb, count):
    deltas = {SERVERS: count}
    for name, amount in ((VCPU, vcpus), (MEMORY_MB, memory_mb),
                         (DISK_GB, disk_gb)):
        if amount:
            deltas[name] = amount * count
    return deltas


def check_request(metadata=None, injected_files=None):
    """The per-request limits (metadata items, personality files):
    registered limits, nothing counted."""
    checks = []
    if metadata:
        checks.append((METADATA_ITEMS, len(metadata)))
    if injected_files:
        checks.append((INJECTED_FILES, len(injected_files)))
        checks.append((INJECTED_FILE_PATH,
                       max(len(p or '') for p, _ in injected_files)))
        checks.append((INJECTED_FILE_CONTENT,
                       max(len(c or '') for _, c in injected_files)))
    if not checks:
        return
    limits = Limits()
    for resource, count in checks:
        over = limits.enforce(None, {resource: count})
        if over is not None:
            _raise(resource, over)


def check_boot(context, project_id, vcpus, memory_mb, disk_gb, min_count,
               max_count, metadata=None, injected_files=None):
    """How many of max_count servers fit the project's limits (at least
    min_count, else TooManyInstances with oslo.limit's text). Called in
    the API DB transaction that writes the build requests, after the
    project's quota lock is taken."""
    check_request(metadata, injected_files)
    limits = Limits(_counter(context, project_id, in_transaction=True))
    first = None
    for count in range(max_count, min_count - 1, -1):
        over = limits.enforce(project_id, flavor_deltas(
            vcpus, memory_mb, disk_gb, count))
        if over is None:
            return count
        first = first or over
    raise exception.TooManyInstances(message=str(first))


def check_deltas(context, project_id, deltas):
    """{legacy or Keystone name: more}: TooManyInstances (oslo.limit's
    text) when over."""
    deltas = {LEGACY.get(k, k): v for k, v in deltas.items() if v > 0}
    if not deltas:
        return
    deltas.setdefault(SERVERS, 0)
    over = Limits(_counter(context, project_id)).enforce(project_id, deltas)
    if over is not None:
        raise exception.TooManyInstances(message=str(over))


def check_key_pairs(context, user_id):
    def count(_project_id, names):
        return {KEY_PAIRS: db.key_pair_count(context, user_id)}
    over = Limits(count).enforce(None, {KEY_PAIRS: 1})
    if over is not None:
        _raise(KEY_PAIRS, over)


def check_server_groups(context, project_id, new_groups):
    def count(_project_id, names):
        return {SERVER_GROUPS: group_obj.counts(context, project_id)[0]}
    over = Limits(count).enforce(None, {SERVER_GROUPS: new_groups})
    if over is not None:
        _raise(SERVER_GROUPS, over)


def check_group_members(context, project_id, group_uuid, new_members):
    def count(_project_id, names):
        return {SERVER_GROUP_MEMBERS: group_obj.counts(
            context, project_id, group_uuid)[1]}
    over = Limits(count).enforce(None, {SERVER_GROUP_MEMBERS: new_members})
    if over is not None:
        _raise(SERVER_GROUP_MEMBERS, over)
