"""Security groups and their rules as the Compute API's proxy (below
2.36) shows them: Nova's nova-network-style groups read from and written
to the network service, as Nova does with Neutron. Only ingress rules
are shown (as Nova shows Neutron's); a rule is made as an ingress rule
of its parent group."""
import ipaddress

from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.network import api as network_api

PROTOCOLS = ('tcp', 'udp', 'icmp')


def _net():
    return network_api.API()


def _bad(message):
    return exception.InvalidInput(message=message)


def _check_id(group_id):
    if not uuidutils.is_uuid_like(group_id):
        raise _bad('Security group id should be uuid')


def _not_found(group_id):
    return exception.SecurityGroupNotFound(
        message='Security group %s not found.' % group_id)


def list_groups(context, all_tenants=False):
    project = None if (all_tenants and context.is_admin) \
        else context.project_id
    return _net().list_security_groups(context, project_id=project)


def get_group(context, group_id):
    _check_id(group_id)
    try:
        return _net().get_security_group(context, group_id)
    except exception.SecurityGroupNotFound:
        raise _not_found(group_id)


def create_group(context, name, description):
    try:
        return _net().create_security_group(context, name, description)
    except exception.Conflict as exc:
        raise _bad(exc.format_message())


def update_group(context, group_id, name, description):
    _check_id(group_id)
    try:
        return _net().update_security_group(context, group_id, name,
                                            description)
    except exception.SecurityGroupNotFound:
        raise _not_found(group_id)


def delete_group(context, group_id):
    _check_id(group_id)
    try:
        _net().delete_security_group(context, group_id)
    except exception.SecurityGroupNotFound:
        raise _not_found(group_id)
    except exception.SecurityGroupDefaultInUse:
        raise _bad('Removing default security group not allowed.')
    except exception.SecurityGroupInUse:
        raise _bad('Security group is still in use')


def group_names(context, group_ids):
    """{id: (name, project_id)} of the groups rules name as remote."""
    ids = [i for i in set(group_ids) if i]
    if not ids:
        return {}
    return {g['id']: (g['name'], g['project_id']) for g in
            _net().list_security_groups(context, ids=ids)}


def _port(value, name):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad('%s is not an integer' % name) from None


def rule_spec(parent_id, ip_protocol=None, from_port=None, to_port=None,
              cidr=None, group_id=None):
    """The network service's ingress rule for Nova's rule arguments;
    InvalidInput (400) for what Nova refuses."""
    _check_id(parent_id)
    if group_id is not None:
        _check_id(group_id)
    protocol = (ip_protocol or '').lower() or None
    if protocol is not None and protocol not in PROTOCOLS:
        raise _bad('Invalid IP protocol %s.' % ip_protocol)
    low = high = None
    if protocol in ('tcp', 'udp'):
        low, high = _port(from_port, 'from_port'), _port(to_port, 'to_port')
        if not (1 <= low <= 65535 and 1 <= high <= 65535):
            raise _bad('Invalid port range %s:%s. Valid TCP ports should '
                       'be between 1-65535' % (from_port, to_port))
        if low > high:
            raise _bad('Invalid port range %s:%s. Former value cannot be '
                       'greater than the later' % (from_port, to_port))
    elif protocol == 'icmp':
        low, high = _port(from_port, 'from_port'), _port(to_port, 'to_port')
        if not (-1 <= low <= 255 and -1 <= high <= 255):
            raise _bad('Type and Code must be integers for ICMP protocol '
                       'type')
        low = None if low == -1 else low
        high = None if high == -1 else high
    elif from_port is not None or to_port is not None:
        raise _bad('Invalid IP protocol %s.' % ip_protocol)
    ethertype = 'IPv4'
    if group_id is None:
        cidr = cidr or '0.0.0.0/0'
        try:
            net = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            raise _bad('Invalid cidr %s.' % cidr) from None
        ethertype = 'IPv6' if net.version == 6 else 'IPv4'
    elif cidr:
        raise _bad('Only one of cidr and group_id may be given.')
    return {'security_group_id': parent_id, 'direction': 'ingress',
            'ethertype': ethertype, 'protocol': protocol,
            'port_range_min': low, 'port_range_max': high,
            'remote_ip_prefix': None if group_id else cidr,
            'remote_group_id': group_id}


def create_rule(context, spec):
    try:
        return _net().create_security_group_rule(context, spec)
    except exception.SecurityGroupNotFound:
        raise _not_found(spec['remote_group_id']
                         if spec['remote_group_id'] else
                         spec['security_group_id'])
    except exception.Conflict:
        raise _bad('This rule already exists in group %s'
                   % spec['security_group_id'])


def delete_rule(context, rule_id):
    try:
        _net().delete_security_group_rule(context, rule_id)
    except exception.SecurityGroupRuleNotFound:
        raise exception.SecurityGroupRuleNotFound(
            message='Security group rule %s not found.' % rule_id)
