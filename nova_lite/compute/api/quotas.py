"""The compute API for limits, quota sets and quota classes: what the
/limits, os-quota-sets and os-quota-class-sets controllers call (policy
is theirs). Limits come from the configured quota driver
(nova_lite.quota), usage is counted as nova_lite.quota counts it."""
from nova_lite import exception
from nova_lite import quota
from nova_lite.quota import db as quota_db

RESOURCES = quota.ALL_RESOURCES


def defaults(context):
    """{resource: limit} every project has unless set otherwise."""
    return quota.driver().defaults(context)


def limits(context, project_id, user_id=None):
    """{resource: limit} of a project (with user_id: of that user in
    it)."""
    return quota.driver().project_limits(context, project_id, user_id)


def usage(context, project_id, user_id=None):
    """{resource: in use} of the counted resources (the project's; with
    user_id, the user's in it); 0 for the others."""
    used = quota.usage(context, project_id, user_id)
    return {name: ((used[name].user if user_id else used[name].project)
                   if name in used else 0) for name in RESOURCES}


def project_usage_and_limits(context, project_id):
    """({resource: limit}, {resource: in use}) of a project, as /limits
    shows them."""
    limits, used = quota.usage_and_limits(context, project_id)
    return limits, {name: used[name].project if name in used else 0
                    for name in RESOURCES}


def _check_not_below_usage(context, project_id, user_id, values):
    current = usage(context, project_id, user_id)
    for resource, limit in values.items():
        if 0 <= limit < current.get(resource, 0):
            raise exception.QuotaBelowUsage(
                limit=limit, resource=resource, used=current[resource])


def update(context, project_id, values, user_id=None, force=False):
    """Set {resource: limit} for a project (or a user in it); unless
    force, a limit below what is in use is a QuotaBelowUsage (400).
    Returns the limits after (with unified limits, nothing is set)."""
    drv = quota.driver()
    if not drv.settable:
        # Unified limits (as Nova): limits are set in Keystone; the body
        # was validated and is ignored, the limits are shown as they are.
        return limits(context, project_id, user_id)
    if not force:
        _check_not_below_usage(context, project_id, user_id, values)
    drv.set_project_limits(context, project_id, values, user_id)
    return limits(context, project_id, user_id)


def delete(context, project_id, user_id=None):
    """Back to the defaults (the project's and its users' limits, or
    one user's)."""
    quota.driver().delete_project_limits(context, project_id, user_id)


def class_limits(context, class_name):
    return quota.driver().class_limits(context, class_name)


def update_class(context, class_name, values):
    quota.driver().set_class_limits(context, class_name, values)
    return class_limits(context, class_name)


def known_projects(context):
    """Project ids with limits or servers (what the noauth2 identity
    stand-in lists as projects)."""
    return quota_db.known_projects(context)
