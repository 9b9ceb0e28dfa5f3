"""The compute's late check of a server group's policy (as Nova's
_validate_instance_group_policy), on a build and on every move that
lands here: cold migration and resize (prep_resize), evacuation,
live migration (the destination's pre-check) and unshelve of an
offloaded server.

Two schedulers (or one scheduler and a move) may each place a member
of one group on this host without seeing the other. The check runs
under a lock per group on this host and counts, besides the instance
being placed:

- the instances on this host that are members (as the super conductor
  read them) or were booted in the group since (their system metadata
  names it);
- the members moving here: migrations of this cell in progress whose
  destination is this host.

Anti-affinity fails when this host already has max_server_per_host of
them, affinity when a member is on another host. The caller's
``withdraw`` runs while the lock is held, so the instance (or its
migration) no longer counts for the next check: of two placements
racing for one host, only one fails. InstanceGroupPolicyViolated then.
"""
from oslo_log import log as logging

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# Migration statuses of a move still heading to its destination.
_MOVING = tuple(sorted(set(migration_obj.IN_PROGRESS)
                       | set(migration_obj.LIVE_IN_PROGRESS)))
GROUP_SYSMETA = 'server_group'


def group_of_spec(request_spec):
    """The InstanceGroup a request spec carries, or None."""
    if request_spec is None or not request_spec.obj_attr_is_set(
            'instance_group'):
        return None
    return request_spec.instance_group


def _booted_in(instance):
    if not instance.obj_attr_is_set('system_metadata'):
        return None
    return (instance.system_metadata or {}).get(GROUP_SYSMETA)


def _members_here(context, host, instance_uuid, group, others):
    """Members (other than instance_uuid) on host or moving to it."""
    here = {i.uuid for i in objects.InstanceList.get_by_host(context, host)
            if i.uuid != instance_uuid and (
                i.uuid in others or _booted_in(i) == group.uuid)}
    if others:
        here |= {m.instance_uuid for m in
                 objects.MigrationList.get_by_host_and_status(
                     context, host, _MOVING)
                 if m.dest_compute == host
                 and m.instance_uuid in others}
    return here


def _violated(context, host, instance_uuid, group):
    others = set(group.members or ()) - {instance_uuid}
    if group.policy == instance_group.ANTI_AFFINITY:
        here = _members_here(context, host, instance_uuid, group, others)
        return len(here) >= group.max_server_per_host
    hosts = [i.host for i in objects.InstanceList.get_by_filters(
        context, {'uuid': sorted(others)}) if i.host] if others else []
    elsewhere = set(hosts) | set(group.hosts or [])
    return bool(elsewhere) and host not in elsewhere


def check(context, host, locks, instance, group, withdraw, action):
    """Check group's policy for instance coming to host (locks: the
    host's InstanceLocks). On a violation withdraw() runs under the
    group's lock, then InstanceGroupPolicyViolated is raised. Nothing
    for no group or a soft policy."""
    if group is None or group.policy not in (
            instance_group.AFFINITY, instance_group.ANTI_AFFINITY):
        return
    with locks('server-group:%s' % group.uuid):
        if not _violated(context, host, instance.uuid, group):
            return
        LOG.info('%s of instance %s would break the %s policy of server '
                 'group %s on %s', action, instance.uuid, group.policy,
                 group.uuid, host)
        withdraw()
    raise exception.InstanceGroupPolicyViolated(
        reason='%s of server group %s on host %s' % (
            group.policy, group.uuid, host))
