"""The compute API for server groups: what the os-server-groups
controller and server create/delete call.

A group belongs to the project that created it; its members are the
servers booted with the 'group' scheduler hint, kept in the API
database and removed as the servers are deleted. Creating a group and
adding members go through check_quota first (the server_groups and
server_group_members quotas, Nova's 403s) and, as Nova's
[quota] recheck_quota does, again once written: of two requests racing
past the first check, the one that finds the limit passed undoes what
it wrote. server_group.create, .delete and .add_member are sent as Nova
sends them.
"""
from oslo_utils import uuidutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.notifications import server_group as notify
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite import quota

POLICIES = group_obj.POLICIES


def usage(context, project_id, group_uuid=None, user_id=None):
    """(server groups of project_id [of user_id], members of group_uuid)
    from two COUNT queries."""
    return group_obj.counts(context, project_id, group_uuid=group_uuid,
                            user_id=user_id)


def check_quota(context, project_id, user_id, new_groups=0, group=None,
                new_members=0):
    """The server_groups quota (of the project and of its user) for
    new_groups more groups, and with group the server_group_members
    quota for new_members more servers in it:
    ServerGroupQuotaExceeded or ServerGroupMembersQuotaExceeded (403,
    Nova's messages) when a limit would be passed. Called before
    anything is written (and with 0 once written, to recheck). Counts
    nothing for unlimited resources."""
    if quota.is_noop():
        return
    if quota.check_server_groups(context, project_id, user_id, new_groups,
                                 group, new_members):
        return
    if group is None:
        project_limit = quota.limit_of(context, 'server_groups', project_id)
        user_limit = quota.limit_of(context, 'server_groups', project_id,
                                    user_id)
        if project_limit < 0 and user_limit < 0:
            return
        groups, _ = usage(context, project_id)
        mine, _ = usage(context, project_id, user_id=user_id)
        if (0 <= project_limit < groups + new_groups
                or 0 <= user_limit < mine + new_groups):
            raise exception.ServerGroupQuotaExceeded(
                resource='server groups')
        return
    limit = quota.limit_of(context, 'server_group_members', project_id,
                           user_id)
    if limit < 0:
        return
    _, members = usage(context, project_id, group.uuid)
    if limit < members + new_members:
        raise exception.ServerGroupMembersQuotaExceeded()


def create(context, name, policy, rules=None):
    """A new group of the caller's project and user."""
    if policy not in POLICIES:
        raise exception.InvalidInput(reason='Invalid policy %s' % policy)
    check_quota(context, context.project_id, context.user_id, new_groups=1)
    group = objects.InstanceGroup(
        context, uuid=uuidutils.generate_uuid(), name=name,
        user_id=context.user_id, project_id=context.project_id,
        policy=policy, rules=dict(rules or {}), members=[])
    group.create()
    if CONF.quota.recheck_quota:
        try:
            check_quota(context, context.project_id, context.user_id)
        except exception.ServerGroupQuotaExceeded:
            group.destroy()
            raise
    notify.notify_about_server_group(context, group, 'create')
    return group


def get(context, group_uuid):
    """InstanceGroupNotFound (404); the caller checks policy on its
    project."""
    return objects.InstanceGroup.get_by_uuid(context, group_uuid)


def get_all(context, project_id=None, limit=None, offset=None):
    """Groups of project_id (every project's when None)."""
    return objects.InstanceGroupList.get_all(
        context, project_id=project_id, limit=limit, offset=offset)


def delete(context, group):
    group.destroy()
    notify.notify_about_server_group(context, group, 'delete')


def group_for_boot(context, group_uuid):
    """The group a boot's 'group' hint names: InvalidInput (400) when
    there is none, or it belongs to another project (an administrator
    may name any)."""
    try:
        group = objects.InstanceGroup.get_by_uuid(context, group_uuid)
    except exception.InstanceGroupNotFound:
        group = None
    if group is None or (group.project_id != context.project_id
                         and not context.is_admin):
        raise exception.InvalidInput(
            reason='Instance group %s could not be found.' % group_uuid)
    return group


def add_members(context, group, instance_uuids):
    """The servers join group (quota checked first); sends
    server_group.add_member."""
    check_quota(context, group.project_id, group.user_id, group=group,
                new_members=len(instance_uuids))
    try:
        objects.InstanceGroup.add_members(context, group.uuid,
                                          instance_uuids)
    except exception.InstanceGroupNotFound:
        raise exception.InvalidInput(
            reason='Instance group %s could not be found.' % group.uuid)
    if CONF.quota.recheck_quota:
        try:
            check_quota(context, group.project_id, group.user_id,
                        group=group)
        except exception.ServerGroupMembersQuotaExceeded:
            for uuid in instance_uuids:
                remove_server(context, uuid)
            raise
    group.members = list(group.members) + list(instance_uuids)
    notify.notify_about_server_group(context, group, 'add_member')


def remove_server(context, instance_uuid):
    """The server is deleted: it leaves its groups."""
    group_obj.remove_instance(context, instance_uuid)


def groups_of(context, instance_uuid):
    """uuids of the groups the server is a member of (GET /servers/{id}
    from 2.71)."""
    return group_obj.group_uuids_of(context, instance_uuid)
