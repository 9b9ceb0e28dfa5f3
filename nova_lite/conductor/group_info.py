"""The server group of a request spec, as the scheduler needs it.

Before the super conductor asks the scheduler (a boot, a cold migration
or resize), the group the spec names is read again: its policy, rules
and members now, and the hosts of its members other than the instances
being placed (objects.instance_group.for_scheduling: one query per
cell), as Nova fills instance_group.hosts. The scheduler's filters and
weighers then read no database for it, and the compute that builds
checks the policy again with the members it is given.
"""
from nova_lite.objects import instance_group


def refresh(context, spec, placing):
    """Fill spec.instance_group for placing the instances of placing
    (the group is left out when it was deleted meanwhile)."""
    if not spec.obj_attr_is_set('instance_group') or \
            spec.instance_group is None:
        return
    spec.instance_group = instance_group.for_scheduling(
        context, spec.instance_group.uuid, exclude=placing)
