"""Quotas: the drivers ([quota] driver) and the checks the compute API
makes.

- DbQuotaDriver (Nova's default): limits stored in the API database --
  a user's within a project over the project's over the quota class
  ``default`` over the ``[quota]`` options; -1 is unlimited.
- NoopQuotaDriver: every limit -1, nothing stored.
- UnifiedLimitsDriver: the seam for limits registered in Keystone
  (oslo.limit); not implemented yet (configuring it is refused when
  quotas are first used).

Usage is counted, never tracked: instances, cores and ram from every
cell (one aggregated query per cell, in parallel; a cell that does not
answer is not counted, as Nova does) or, with ``[quota]
count_usage_from_placement``, from the instance mappings and placement
allocations; plus the build requests not yet in a cell. A boot's check
(check_boot) runs inside the API DB transaction that writes its build
requests, holding the project's quota lock (nova_lite.quota.db.lock),
so concurrent boots of one project cannot both pass on the same
headroom.
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

    def set_project_limits(self, context, project_id, limits,
                           user_id=None):
        pass

    def delete_project_limits(self, context, project_id, user_id=None):
        pass

    def user_limit_sums(self, context, project_id, exclude_user=None):
        return {}


class UnifiedLimitsDriver(DbQuotaDriver):
    """Limits registered in Keystone through oslo.limit: not implemented
    yet; every use is refused (400) rather than silently unlimited."""

    settable = False

    def _refuse(self, *args, **kwargs):
        raise exception.QuotaDriverUnavailable(
            reason='nova_lite.quota.UnifiedLimitsDriver is not implemented '
                   'yet')

    defaults = class_limits = set_class_limits = _refuse
    project_limits = set_project_limits = delete_project_limits = _refuse


_DRIVERS = {'nova_lite.quota.DbQuotaDriver': DbQuotaDriver,
            'nova_lite.quota.NoopQuotaDriver': NoopQuotaDriver,
            'nova_lite.quota.UnifiedLimitsDriver': UnifiedLimitsDriver}


def driver():
    """The configured driver (read on every call: tests change it)."""
    return _DRIVERS[CONF.quota.driver]()


def is_noop():
    return CONF.quota.driver == 'nova_lite.quota.NoopQuotaDriver'


def _known(values):
    return {k: v for k, v in values.items() if k in ALL_RESOURCES}


def _merge(project, user, klass):
    values = config_defaults()
    values.update(_known(klass))
    values.update(_known(project))
    values.update(_known(user))
    return values


# --- counting ----------------------------------------------------------

@main_db.reader
def _cell_counts(context, project_id, user_id, exclude):
    """(instances, cores, ram, user's instances, cores, ram) of the
    project in this cell: one aggregated query."""
    inst = main_models.Instance.__table__

    def mine(value):
        return sa.func.coalesce(sa.func.sum(sa.case(
            (inst.c.user_id == user_id, value), else_=0)), 0)

    query = sa.select(
        sa.func.count(), sa.func.coalesce(sa.func.sum(inst.c.vcpus), 0),
        sa.func.coalesce(sa.func.sum(inst.c.memory_mb), 0),
        mine(1), mine(inst.c.vcpus), mine(inst.c.memory_mb)).where(
        inst.c.project_id == project_id, inst.c.deleted == 0,
        inst.c.hidden == sa.false())
    if exclude:
        query = query.where(inst.c.uuid.notin_(sorted(exclude)))
    return tuple(int(v or 0) for v in context.session.execute(query).one())


# The cell mappings, as Nova's API caches them (a new cell is counted
# within CELLS_TTL seconds), per API database engine; so a boot's check
# reads no cell mapping in its transaction.
CELLS_TTL = 30.0
_cells_cache = weakref.WeakKeyDictionary()


def prime_cells(context):
    """Read the cell mappings now if the cache is stale (before the
    boot's transaction: its check then reads none)."""
    if not is_noop() and not CONF.quota.count_usage_from_placement:
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
    from_placement = CONF.quota.count_usage_from_placement
    _, _, _, pending, mapped, allocated = db.pending_usage(
        context, project_id, user_id, from_placement)
    result = _usage_from_rows(context, project_id, user_id, pending, mapped,
                              allocated)
    keypairs = db.key_pair_count(context, user_id) if user_id else 0
    result['key_pairs'] = Usage(keypairs, keypairs)
    result['server_groups'] = Usage(0, 0)
    return result


# --- checks ------------------------------------------------------------

def _headroom(limit, used):
    return None if limit is None or limit < 0 else limit - used


def check_boot(context, project_id, user_id, vcpus, memory_mb, min_count,
               max_count, metadata=None, injected_files=None):
    """How many of max_count servers of (vcpus, memory_mb) fit the
    project's (and user's) instances, cores and ram quota; at least
    min_count or TooManyInstances (403, Nova's message). The servers'
    metadata and personality files are checked against the same
    limits (MetadataLimitExceeded, OnsetFile*LimitExceeded). Call
    inside the API DB writer transaction that creates the build
    requests: it takes the project's lock there first; 2 API DB
    statements in all."""
    if is_noop():
        return max_count
    if isinstance(driver(), UnifiedLimitsDriver):
        driver().defaults(context)
    db.lock(context, project_id)
    from_placement = CONF.quota.count_usage_from_placement
    project, user, klass, pending, mapped, allocated = db.check_rows(
        context, project_id, user_id, from_placement)
    project_limits = _merge(project, {}, klass)
    user_limits = _merge(project, user, klass)
    limit = project_limits['metadata_items']
    if 0 <= limit < len(metadata or {}):
        raise exception.MetadataLimitExceeded(allowed=limit)
    _check_files(project_limits, injected_files)
    per_server = {'instances': 1, 'cores': vcpus, 'ram': memory_mb}
    if all(project_limits[r] < 0 and user_limits[r] < 0
           for r in per_server):
        return max_count   # unlimited: nothing to count
    used = _usage_from_rows(context, project_id, user_id, pending, mapped,
                            allocated)
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
    overs = [r for r in per_server
             if r in tightest and tightest[r][0] < max_count]
    first = overs[0]
    _, limit, count = tightest[first]
    raise exception.TooManyInstances(
        overs=','.join(overs), req=per_server[first] * max_count,
        used=count, allowed=limit)


def check_deltas(context, project_id, user_id, deltas):
    """A resize, cold migration, revert or unshelve that needs
    {cores|ram|instances: more} room: OverQuota naming what exceeds
    (Nova's TooManyInstances message for the first)."""
    deltas = {k: v for k, v in deltas.items() if v > 0}
    if not deltas or is_noop():
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
        resource, delta, count, limit = overs[0]
        raise exception.TooManyInstances(
            overs=','.join(o[0] for o in overs), req=delta, used=count,
            allowed=limit)


def limit_of(context, resource, project_id=None, user_id=None):
    """The limit of one resource for a project (and user)."""
    if is_noop():
        return -1
    if project_id is None:
        return driver().defaults(context)[resource]
    return driver().project_limits(context, project_id, user_id)[resource]


def check_key_pairs(context, project_id, user_id):
    """KeypairLimitExceeded (403) if the user has its key_pairs quota."""
    limit = limit_of(context, 'key_pairs', project_id, user_id)
    if limit >= 0 and db.key_pair_count(context, user_id) + 1 > limit:
        raise exception.KeypairLimitExceeded()


def check_metadata(context, project_id, metadata):
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
