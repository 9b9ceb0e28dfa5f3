"""ServerGroupAffinityFilter and ServerGroupAntiAffinityFilter: the
policy of the server group of the request (RequestSpec.instance_group,
whose hosts -- one entry per other member -- the super conductor read
before asking; no query here).

Anti-affinity: a host with max_server_per_host members (1 unless the
2.64 rule says more) fails. Affinity: once a member is on a host, only
its hosts pass. The soft policies are weighers (scheduler/weights.py).
"""
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import filters


def group_of(spec):
    """The request's server group, or None."""
    if spec is None or not spec.obj_attr_is_set('instance_group'):
        return None
    return spec.instance_group


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        group = group_of(spec)
        if group is None or group.policy != group_obj.ANTI_AFFINITY:
            return states
        limit = group.max_server_per_host
        hosts = list(group.hosts or [])
        return [s for s in states if hosts.count(s.host) < limit]


class ServerGroupAffinityFilter(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        group = group_of(spec)
        if group is None or group.policy != group_obj.AFFINITY:
            return states
        hosts = set(group.hosts or [])
        if not hosts:
            return states
        return [s for s in states if s.host in hosts]
