"""Quotas: the drivers ([quota] driver) and the checks the compute API
makes.

- DbQuotaDriver (Nova's default): limits stored in the API database --
  a user's within a project over the project's over the quota class
  ``default`` over the ``[quota]`` options; -1 is unlimited.
- NoopQuotaDriver: every limit -1, nothing stored.
- UnifiedLimitsDriver: limits registered in Keystone, enforced through
  oslo.limit (nova_lite.quota.unified), usage counted from placement.

Usage is counted, never tracked: instances, cores and ram from every
cell (one aggregated query per cell, in parallel; a cell that does not
answer is not counted, as Nova does) or, with ``[quota]
count_usage_from_placement``, from the instance mappings and placement
allocations; plus the build requests not yet in a cell. A boot's check
(check_boot) runs inside the API DB transaction that writes its build
requests, holding the project's quota lock (nova_lite.quota.db.lock),
so concurrent boots of one project cannot both pass on the same
headroom. Counting from the cells, the cells are read before that
transaction (count_for_boot; nova_lite.quota.cell_count) and only the
API DB's part is read under the lock, so the lock is not held while
every cell answers.
"""
import collections
import time
import weakref

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.conf import quota as quota_conf
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite.quota import cell_count as cell_count_mod
from nova_lite.quota import db

LOG = logging.getLogger(__name__)

# Resources this control plane stores and enforces (the [quota] options).
RESOURCES = quota_conf.RESOURCES
# Counted ones (usage reported by /limits and os-quota-sets detail).
COUNTED = ('instances', 'cores', 'ram', 'key_pairs', 'server_groups')
# Nova's network resources: shown before 2.36, stored, never enforced
# (Nova's defaults, which its API reference shows).
NETWORK_DEFAULTS = {'floating_ips': 10, 'fixed_ips': -1,
                    'security_groups': 10, 'security_group_rules': 20}
NETWORK_RESOURCES = tuple(NETWORK_DEFAULTS)
PERSONALITY_RESOURCES = ('injected_files', 'injected_file_content_bytes',
                         'injected_file_path_length')
ALL_RESOURCES = RESOURCES + NETWORK_RESOURCES

Usage = collections.namedtuple('Usage', ['project', 'user'])
INSTANCES_CORES_RAM = ('instances', 'cores', 'ram')


def config_defaults():
    values = {name: getattr(CONF.quota, name) for name in RESOURCES}
    values.update(NETWORK_DEFAULTS)
    return values


class DbQuotaDriver(object):
    """Limits in the API database."""

    settable = True

    def defaults(self, context):
        """{resource: limit}: the [quota] options under class default."""
        values = config_defaults()
        values.update(_known(db.class_limits(context, 'default')))
        return values

    def class_limits(self, context, class_name):
        """A quota class: its stored limits over the defaults (Nova
        shows any class name; only 'default' changes the defaults)."""
        values = self.defaults(context)
        if class_name != 'default':
            values.update(_known(db.class_limits(context, class_name)))
        return values

    def set_class_limits(self, context, class_name, limits):
        db.set_class_limits(context, class_name, limits)

    def project_limits(self, context, project_id, user_id=None):
        """{resource: limit} of the project (with user_id: the user's in
        it, a limit not set for the user being the project's)."""
        project, user, klass = db.project_limits(context, project_id,
                                                 user_id)
        return _merge(project, user, klass)

    def limits_from_rows(self, context, project_id, project, user, klass):
        """project_limits of the stored limits the caller already read
        (db.check_rows's first three)."""
        return _merge(project, user, klass)

    def set_project_limits(self, context, project_id, limits,
                           user_id=None):
        db.set_project_limits(context, project_id, limits, user_id)

    def delete_project_limits(self, context, project_id, user_id=None):
        db.delete_project_limits(context, project_id, user_id)

    def user_limit_sums(self, context, project_id, exclude_user=None):
        return db.user_limit_sums(context, project_id, exclude_user)


class NoopQuotaDriver(DbQuotaDriver):
    """No quotas: every limit is -1 and nothing is stored."""

    settable = True

    def defaults(self, context):
        return {name: -1 for name in ALL_RESOURCES}

    def class_limits(self, context, class_name):
        return self.defaults(context)

    def set_class_limits(self, context, class_name, limits):
        pass

    def project_limits(self, context, project_id, user_id=None):
        return self.defaults(context)

    def limits_from_rows(self, context, project_id, *rows):
        return self.defaults(context)

    def set_project_limits(self, context, project_id, limits,
                           user_id=None):
        pass

    def delete_project_limits(self, context, project_id, user_id=None):
        pass

    def user_limit_sums(self, context, project_id, exclude_user=None):
        return {}


class UnifiedLimitsDriver(DbQuotaDriver):
    """Limits registered in Keystone, read through oslo.limit
    (nova_lite.quota.unified). As Nova under this driver: quota sets
    and quota classes show them (a project's own Keystone limits for
    instances, cores and ram; the registered limits for the rest and
    for every class; per-user limits do not exist), and setting or
    deleting them through the Compute API changes nothing (limits are
    set in Keystone)."""

    settable = False

    @staticmethod
    def _limits():
        from nova_lite.quota import unified
        return unified.Limits()

    def defaults(self, context):
        values = {name: -1 for name in ALL_RESOURCES}
        values.update(self._limits().defaults())
        return values

    def class_limits(self, context, class_name):
        return self.defaults(context)

    def set_class_limits(self, context, class_name, limits):
        pass

    def project_limits(self, context, project_id, user_id=None):
        values = {name: -1 for name in ALL_RESOURCES}
        values.update(self._limits().project(project_id))
        return values

    def limits_from_rows(self, context, project_id, *rows):
        return self.project_limits(context, project_id)

    def set_project_limits(self, context, project_id, limits,
                           user_id=None):
        pass

    def delete_project_limits(self, context, project_id, user_id=None):
        pass

    def user_limit_sums(self, context, project_id, exclude_user=None):
        return {}


_DRIVERS = {'nova_lite.quota.DbQuotaDriver': DbQuotaDriver,
            'nova_lite.quota.NoopQuotaDriver': NoopQuotaDriver,
            'nova_lite.quota.UnifiedLimitsDriver': UnifiedLimitsDriver}


def driver():
    """The configured driver (read on every call: tests change it)."""
    return _DRIVERS[CONF.quota.driver]()


def is_noop():
    return CONF.quota.driver == 'nova_lite.quota.NoopQuotaDriver'


def is_unified():
    return CONF.quota.driver == 'nova_lite.quota.UnifiedLimitsDriver'


def from_placement():
    """Usage counted from placement and the instance mappings: [quota]
    count_usage_from_placement, or always with unified limits."""
    return CONF.quota.count_usage_from_placement or is_unified()


def _known(values):
    return {k: v for k, v in values.items() if k in ALL_RESOURCES}


def _merge(project, user, klass):
    values = config_defaults()
    values.update(_known(klass))
    values.update(_known(project))
    values.update(_known(user))
    return values


# --- counting ----------------------------------------------------------

_CELL_COUNTS = {}


def _cell_counts_statement(exclude, with_user):
    """The aggregated count of one cell, built once (its cache key is
    memoized, so a /limits does not build and key it per cell): bound
    parameters project_id, with_user user_id and, with exclude, the
    expanding list exclude. Without a user (/limits), only the
    project's three sums: no per-row CASE for a user's."""
    key = (exclude, with_user)
    statement = _CELL_COUNTS.get(key)
    if statement is None:
        inst = main_models.Instance.__table__
        user_id = sa.bindparam('user_id', type_=sa.String)

        def mine(value):
            return sa.func.coalesce(sa.func.sum(sa.case(
                (inst.c.user_id == user_id, value), else_=0)), 0)

        sums = [sa.func.count(),
                sa.func.coalesce(sa.func.sum(inst.c.vcpus), 0),
                sa.func.coalesce(sa.func.sum(inst.c.memory_mb), 0)]
        if with_user:
            sums += [mine(1), mine(inst.c.vcpus), mine(inst.c.memory_mb)]
        statement = sa.select(*sums).where(
            *cell_count_mod.counted(inst, sa.bindparam('project_id',
                                                       type_=sa.String)))
        if exclude:
            statement = statement.where(inst.c.uuid.notin_(
                sa.bindparam('exclude', expanding=True)))
        _CELL_COUNTS[key] = statement
    return statement


@main_db.connection_reader
def _cell_counts(context, project_id, user_id, exclude):
    """(instances, cores, ram, user's instances, cores, ram) of the
    project in this cell (user_id None: the user's are 0): one
    aggregated query (a Core statement on a connection: no ORM
    session)."""
    params = {'project_id': project_id}
    if user_id is not None:
        params['user_id'] = user_id
    if exclude:
        params['exclude'] = sorted(exclude)
    counts = tuple(int(v or 0) for v in context.connection.execute(
        _cell_counts_statement(bool(exclude), user_id is not None),
        params).one())
    return counts + (0,) * (6 - len(counts))


# The cell mappings, as Nova's API caches them (a new cell is counted
# within CELLS_TTL seconds), per API database engine; so a boot's check
# reads no cell mapping in its transaction.
CELLS_TTL = 30.0
_cells_cache = weakref.WeakKeyDictionary()


def prime_cells(context):
    """Read the cell mappings now if the cache is stale (before the
    boot's transaction: its check then reads none)."""
    if not is_noop() and not from_placement():
        _cells(context)


def _cells(context):
    engine = api_db.get_engine(context)
    now = time.monotonic()
    cached = _cells_cache.get(engine)
    if cached is None or now - cached[0] > CELLS_TTL:
        cached = (now, list(objects.CellMappingList.get_all(context)))
        _cells_cache[engine] = cached
    return cached[1]


def _cells_usage(context, project_id, user_id, exclude=()):
    """[6 sums] over every cell that answers (Nova: a cell that is down
    is not counted)."""
    cells = _cells(context)
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, _cell_counts,
        project_id, user_id, list(exclude))
    totals = [0] * 6
    for uuid, result in results.items():
        if nova_context.is_cell_failure(result):
            LOG.warning('Cell %s did not answer: its usage is not counted '
                        'against quota', uuid)
            continue
        totals = [a + b for a, b in zip(totals, result)]
    return totals


def _usage_from_rows(context, project_id, user_id, pending, mapped,
                     allocated):
    """{resource: Usage} of instances, cores and ram."""
    pend = [0] * 6
    for vcpus, memory_mb, owner in pending.values():
        mine = owner == user_id
        pend = [a + b for a, b in zip(pend, (
            1, vcpus, memory_mb, int(mine), vcpus * mine,
            memory_mb * mine))]
    if mapped is not None:
        cores = allocated.get('VCPU', (0, 0))
        ram = allocated.get('MEMORY_MB', (0, 0))
        return {'instances': Usage(*mapped),
                'cores': Usage(cores[0] + pend[1], cores[1] + pend[4]),
                'ram': Usage(ram[0] + pend[2], ram[1] + pend[5])}
    cells = _cells_usage(context, project_id, user_id, exclude=pending)
    total = [a + b for a, b in zip(cells, pend)]
    return {'instances': Usage(total[0], total[3]),
            'cores': Usage(total[1], total[4]),
            'ram': Usage(total[2], total[5])}


def usage(context, project_id, user_id=None):
    """{resource: Usage(project, user)} of the counted resources (user
    None: the user columns are 0)."""
    return _usage(context, project_id, user_id)[0]


def usage_and_limits(context, project_id):
    """({resource: limit}, {resource: Usage}) of a project, as /limits
    shows them: one API DB statement (the stored limits, the pending
    builds, the server groups) and, counting from the cells, one per
    cell."""
    used, rows = _usage(context, project_id, None)
    return driver().limits_from_rows(context, project_id, *rows), used


def _usage(context, project_id, user_id):
    project, user, klass, pending, mapped, allocated, groups = \
        db.pending_usage(context, project_id, user_id, from_placement())
    result = _usage_from_rows(context, project_id, user_id, pending, mapped,
                              allocated)
    keypairs = db.key_pair_count(context, user_id) if user_id else 0
    result['key_pairs'] = Usage(keypairs, keypairs)
    mine = group_obj.counts(context, project_id, user_id=user_id)[0] \
        if user_id else 0
    result['server_groups'] = Usage(groups, mine)
    return result, (project, user, klass)


# --- checks ------------------------------------------------------------

def _headroom(limit, used):
    return None if limit is None or limit < 0 else limit - used


class UsageNeeded(Exception):
    """check_boot found limits to count against but was given no
    count of the cells: count_for_boot(force=True), then check again
    (in a new transaction)."""


# {project_id: monotonic time}: projects whose boots found instances,
# cores and ram unlimited, for CELLS_TTL seconds (their boots do not
# count the cells beforehand).
_unlimited_projects = {}
UNLIMITED_PROJECTS_KEPT = 10000


def count_for_boot(context, project_id, user_id, force=False):
    """The cells' part of a boot's usage (cell_count.CellCount), read
    before the boot's transaction; None when the check will not need
    it: no quota, counting from placement, or a project last seen
    unlimited (or, not seen yet, unlimited by the [quota] options) --
    unless force."""
    if is_noop() or from_placement():
        return None
    if not force:
        seen = _unlimited_projects.get(project_id)
        if seen is not None and time.monotonic() - seen < CELLS_TTL:
            return None
        if seen is None and all(getattr(CONF.quota, r) < 0
                                for r in INSTANCES_CORES_RAM):
            return None
    return cell_count_mod.count(context, _cells(context), project_id,
                                user_id)


def check_boot(context, project_id, user_id, vcpus, memory_mb, min_count,
               max_count, metadata=None, injected_files=None,
               cell_count=None, disk_gb=0):
    """How many of max_count servers of (vcpus, memory_mb) fit the
    project's (and user's) instances, cores and ram quota; at least
    min_count or TooManyInstances (403, Nova's message). The servers'
    metadata and personality files are checked against the same
    limits (MetadataLimitExceeded, OnsetFile*LimitExceeded). Call
    inside the API DB writer transaction that creates the build
    requests: it takes the project's lock there first; 2 API DB
    statements in all. Counting from the cells, cell_count is
    count_for_boot's (UsageNeeded when it is None and a limit needs
    it); the cells are counted again here only when a server went into
    a cell since it was read. With unified limits (disk_gb: a server's
    local disk) oslo.limit enforces, under the same lock."""
    if is_noop():
        return max_count
    db.lock(context, project_id)
    if is_unified():
        from nova_lite.quota import unified
        return unified.check_boot(context, project_id, vcpus, memory_mb,
                                  disk_gb, min_count, max_count,
                                  metadata=metadata,
                                  injected_files=injected_files)
    from_placement = CONF.quota.count_usage_from_placement
    since = None if cell_count is None else cell_count.since
    project, user, klass, pending, mapped, allocated, moved = db.check_rows(
        context, project_id, user_id, from_placement, mapped_since=since,
        known=cell_count.young if cell_count else (),
        created_since=cell_count_mod.surely_young(cell_count))
    project_limits = _merge(project, {}, klass)
    user_limits = _merge(project, user, klass)
    limit = project_limits['metadata_items']
    if 0 <= limit < len(metadata or {}):
        raise exception.MetadataLimitExceeded(allowed=limit)
    _check_files(project_limits, injected_files)
    per_server = {'instances': 1, 'cores': vcpus, 'ram': memory_mb}
    if all(project_limits[r] < 0 and user_limits[r] < 0
           for r in per_server):
        if len(_unlimited_projects) >= UNLIMITED_PROJECTS_KEPT:
            _unlimited_projects.clear()   # a hint only: start again
        _unlimited_projects[project_id] = time.monotonic()
        return max_count   # unlimited: nothing to count
    _unlimited_projects.pop(project_id, None)
    gone_in = None if from_placement or cell_count is None else \
        cell_count_mod.moved_usage(context, moved)
    if from_placement or (cell_count is not None and gone_in is None):
        # Placement's count; or a server that may have gone into a cell
        # before the cells were read, or not: everything counted here.
        used = _usage_from_rows(context, project_id, user_id, pending,
                                mapped, allocated)
    elif cell_count is None:
        raise UsageNeeded()
    else:
        total = cell_count_mod.usage(cell_count, dict(pending, **gone_in),
                                     user_id)
        used = {'instances': Usage(total[0], total[3]),
                'cores': Usage(total[1], total[4]),
                'ram': Usage(total[2], total[5])}
    allowed = max_count
    # (resource, limit, used) of the tightest level for each resource
    tightest = {}
    for resource, each in per_server.items():
        for limit, count in ((project_limits[resource],
                              used[resource].project),
                             (user_limits[resource], used[resource].user)):
            room = _headroom(limit, count)
            if room is None:
                continue
            fits = max_count if not each else max(room, 0) // each
            if resource not in tightest or fits < tightest[resource][0]:
                tightest[resource] = (fits, limit, count)
            allowed = min(allowed, fits)
    if allowed >= min_count:
        return allowed
    raise _too_many([(r, per_server[r] * max_count, tightest[r][2],
                      tightest[r][1]) for r in per_server
                     if r in tightest and tightest[r][0] < max_count])


def _too_many(overs):
    """TooManyInstances for [(resource, requested, used, limit)] as Nova
    words it: the resources sorted, each figure listed in their order
    ("Quota exceeded for cores, ram: Requested 2, 1024, but already used
    2, 512 of 3, 1024 cores, ram")."""
    overs = sorted(overs)

    def joined(i):
        return ', '.join(str(o[i]) for o in overs)
    return exception.TooManyInstances(overs=joined(0), req=joined(1),
                                      used=joined(2), allowed=joined(3))


def check_deltas(context, project_id, user_id, deltas):
    """A resize, cold migration, revert or unshelve that needs
    {cores|ram|instances: more} room: TooManyInstances naming what
    exceeds (Nova's message)."""
    deltas = {k: v for k, v in deltas.items() if v > 0}
    if not deltas or is_noop():
        return
    if is_unified():
        from nova_lite.quota import unified
        unified.check_deltas(context, project_id, deltas)
        return
    limits_p = driver().project_limits(context, project_id)
    limits_u = driver().project_limits(context, project_id, user_id)
    if all(limits_p[r] < 0 and limits_u[r] < 0 for r in deltas):
        return   # unlimited: nothing to count
    used = usage(context, project_id, user_id)
    overs = []
    for resource, delta in deltas.items():
        for limit, count in ((limits_p[resource], used[resource].project),
                             (limits_u[resource], used[resource].user)):
            if limit is not None and 0 <= limit < count + delta:
                overs.append((resource, delta, count, limit))
                break
    if overs:
        raise _too_many(overs)


def check_resize(context, project_id, user_id, to_flavor, from_flavor,
                 revert=False):
    """A resize (revert: going back) from from_flavor to to_flavor:
    the cores and ram it needs more (TooManyInstances, 403). With
    unified limits placement holds both flavors' allocations while a
    resize is unconfirmed, so a resize to another flavor needs room for
    the whole new flavor and a revert needs none (as Nova)."""
    if is_unified():
        if revert or to_flavor.flavorid == from_flavor.flavorid:
            return
        check_deltas(context, project_id, user_id, {
            'cores': to_flavor.vcpus, 'ram': to_flavor.memory_mb,
            'class:DISK_GB': (to_flavor.root_gb or 0) +
            (to_flavor.ephemeral_gb or 0)})
        return
    check_deltas(context, project_id, user_id, {
        'cores': to_flavor.vcpus - from_flavor.vcpus,
        'ram': to_flavor.memory_mb - from_flavor.memory_mb})


def check_server_groups(context, project_id, user_id, new_groups=0,
                        group=None, new_members=0):
    """With unified limits: server_groups (new_groups more) or, with
    group, server_group_members (new_members more) against the
    registered limits; True when it checked (False: not unified)."""
    if not is_unified():
        return False
    from nova_lite.quota import unified
    if group is None:
        unified.check_server_groups(context, project_id, new_groups)
    else:
        unified.check_group_members(context, project_id, group.uuid,
                                    new_members)
    return True


def limit_of(context, resource, project_id=None, user_id=None):
    """The limit of one resource for a project (and user)."""
    if is_noop():
        return -1
    if project_id is None:
        return driver().defaults(context)[resource]
    return driver().project_limits(context, project_id, user_id)[resource]


def check_key_pairs(context, project_id, user_id):
    """KeypairLimitExceeded (403) if the user has its key_pairs quota."""
    if is_unified():
        from nova_lite.quota import unified
        unified.check_key_pairs(context, user_id)
        return
    limit = limit_of(context, 'key_pairs', project_id, user_id)
    if limit >= 0 and db.key_pair_count(context, user_id) + 1 > limit:
        raise exception.KeypairLimitExceeded()


def check_metadata(context, project_id, metadata):
    if is_unified():
        from nova_lite.quota import unified
        unified.check_request(metadata=metadata)
        return
    limit = limit_of(context, 'metadata_items', project_id)
    if 0 <= limit < len(metadata or {}):
        raise exception.MetadataLimitExceeded(allowed=limit)


def _check_files(limits, files):
    """files: [(path, contents)] of a create's personality."""
    if not files:
        return
    if 0 <= limits['injected_files'] < len(files):
        raise exception.OnsetFileLimitExceeded()
    path_max = limits['injected_file_path_length']
    content_max = limits['injected_file_content_bytes']
    for path, contents in files:
        if 0 <= path_max < len(path or ''):
            raise exception.OnsetFilePathLimitExceeded(allowed=path_max)
        if 0 <= content_max < len(contents or ''):
            raise exception.OnsetFileContentLimitExceeded(
                allowed=content_max)
