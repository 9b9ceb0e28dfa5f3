"""A server's security groups (the compute API): the groups the
network service applies to the server's ports, listed, added and
removed as Nova does with Neutron.

Groups are named as the caller's project knows them (by name, or by id;
an administrator may name any project's group by id). Adding a group
applies it to every port of the server; removing takes it off every
port that has it. Neither changes the server's state or needs its
compute: the network service enforces the groups on the ports.
"""
from nova_lite import exception
from nova_lite.network import api as network_api


def _network():
    return network_api.API()


def _find(context, name):
    """The group the caller knows as name; SecurityGroupNotFound (404),
    SecurityGroupNotUnique (409)."""
    try:
        return _network().find_security_group(context, context.project_id,
                                              name)
    except exception.SecurityGroupNotFound:
        raise exception.SecurityGroupNotFound(
            message='Security group %s not found for project %s.'
                    % (name, context.project_id))


def list_for_server(context, instance):
    """The groups of the server's ports, each with its rules, by name
    ([] for a server without ports)."""
    network = _network()
    groups = network.get_instances_security_groups(
        context, [instance.uuid]).get(instance.uuid, [])
    if not groups:
        return []
    found = {g['id']: g for g in network.list_security_groups(
        context.elevated(), ids=[g['id'] for g in groups])}
    return [found[g['id']] for g in groups if g['id'] in found]


def add(context, instance, name):
    """Apply the group named name to every port of the server:
    SecurityGroupNotFound (404) for an unknown group or a server
    without ports."""
    group = _find(context, name)
    _network().add_security_group_to_instance(context, instance.uuid,
                                              group['id'])


def remove(context, instance, name):
    """Take the group named name off the server's ports:
    SecurityGroupNotFound (404) for an unknown group,
    SecurityGroupNotExistsForInstance (400) when no port has it."""
    group = _find(context, name)
    _network().remove_security_group_from_instance(
        context, instance.uuid, group['id'], name)
