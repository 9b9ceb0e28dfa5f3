"""Security groups of the embedded network service, in the
local-services database, as Neutron keeps them: a group belongs to a
project and has rules; groups are applied to ports.

Invariants:
- Every project has exactly one group named 'default' (its
  ``default_of`` is the project id, unique), made on the project's
  first use of security groups (listing them, creating one, resolving a
  name, getting a port) with Neutron's default rules: any egress over
  IPv4 and IPv6, ingress from members of the group itself.
- A group is seen and used by its project; an administrator sees every
  group and may use any by id.
- A group applied to a port cannot be deleted (SecurityGroupInUse,
  409); deleting one deletes the other groups' rules that name it as
  their remote group (as Neutron); a project's default group is
  deleted only by an administrator.
- Two rules of a group never say the same thing (SecurityGroupRuleExists).

Groups are dicts as Neutron shows them less the REST decorations:
``{'id', 'name', 'description', 'project_id', 'created_at',
'updated_at', 'rules': [rule]}``; a rule is ``{'id',
'security_group_id', 'project_id', 'direction', 'ethertype',
'protocol', 'port_range_min', 'port_range_max', 'remote_ip_prefix',
'remote_group_id', 'description', 'created_at', 'updated_at'}``.
"""
import ipaddress

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

GROUPS = models.SecurityGroup.__table__
RULES = models.SecurityGroupRule.__table__
PORT_GROUPS = models.PortSecurityGroup.__table__
PORTS = models.Port.__table__

DEFAULT = 'default'
DIRECTIONS = ('ingress', 'egress')
ETHERTYPES = ('IPv4', 'IPv6')
# Protocols by name (Neutron accepts these names or a number 0-255).
PROTOCOLS = ('tcp', 'udp', 'icmp', 'icmpv6', 'ipv6-icmp', 'sctp', 'gre',
             'esp', 'ah', 'vrrp', 'igmp', 'dccp', 'udplite', 'ipip', 'pgm',
             'rsvp', 'ospf', 'egp', 'encap', 'ipv6-encap', 'ipv6-frag',
             'ipv6-nonxt', 'ipv6-opts', 'ipv6-route')
_PORTED = ('tcp', 'udp', 'sctp', 'dccp', 'udplite', '6', '17', '132', '33',
           '136')
_ICMP = ('icmp', 'icmpv6', 'ipv6-icmp', '1', '58')
_RULE_KEYS = ('direction', 'ethertype', 'protocol', 'port_range_min',
              'port_range_max', 'remote_ip_prefix', 'remote_group_id')


def _group_dict(row, rules):
    return {'id': row['id'], 'name': row['name'],
            'description': row['description'] or '',
            'project_id': row['project_id'],
            'created_at': row['created_at'], 'updated_at': row['updated_at'],
            'rules': rules}


def _rule_dict(row):
    return {name: row[name] for name in (
        'id', 'security_group_id', 'project_id', 'direction', 'ethertype',
        'protocol', 'port_range_min', 'port_range_max', 'remote_ip_prefix',
        'remote_group_id', 'description', 'created_at', 'updated_at')}


def _rules_of(session, group_ids):
    found = {gid: [] for gid in group_ids}
    if not group_ids:
        return found
    for row in session.execute(sa.select(RULES).where(
            RULES.c.security_group_id.in_(list(group_ids))).order_by(
            RULES.c.created_at, RULES.c.id)):
        found[row.security_group_id].append(_rule_dict(row._mapping))
    return found


def _groups(session, where):
    rows = session.execute(sa.select(GROUPS).where(*where).order_by(
        GROUPS.c.created_at, GROUPS.c.id)).fetchall()
    rules = _rules_of(session, [r.id for r in rows])
    return [_group_dict(r._mapping, rules[r.id]) for r in rows]


def _visible_clause(context):
    if context.is_admin:
        return sa.true()
    return GROUPS.c.project_id == context.project_id


# --- the default group -----------------------------------------------------

def _default_rules(group_id, project_id, now):
    rules = []
    for direction in DIRECTIONS:
        for ethertype in ETHERTYPES:
            rules.append({
                'id': uuidutils.generate_uuid(),
                'security_group_id': group_id, 'project_id': project_id,
                'direction': direction, 'ethertype': ethertype,
                'protocol': None, 'port_range_min': None,
                'port_range_max': None, 'remote_ip_prefix': None,
                'remote_group_id': (group_id if direction == 'ingress'
                                    else None),
                'description': None, 'created_at': now})
    return rules


@ls_db.writer
def _create_default(context, project_id):
    now = timeutils.utcnow()
    group_id = uuidutils.generate_uuid()
    context.session.execute(GROUPS.insert().values(
        id=group_id, name=DEFAULT, description='Default security group',
        project_id=project_id, default_of=project_id, created_at=now))
    context.session.execute(RULES.insert(), _default_rules(
        group_id, project_id, now))
    return group_id


@ls_db.reader
def _default_id(context, project_id):
    return context.session.execute(sa.select(GROUPS.c.id).where(
        GROUPS.c.default_of == project_id)).scalar()


def ensure_default(context, project_id):
    """The id of project_id's default group, made if it has none (two
    racing first uses make one)."""
    if project_id is None:
        return None
    group_id = _default_id(context, project_id)
    if group_id is not None:
        return group_id
    try:
        return _create_default(context, project_id)
    except db_exc.DBDuplicateEntry:
        return _default_id(context, project_id)


def default_ids_in(context, project_id):
    """[project_id's default group id] ([] for no project), made if it
    has none, in the caller's write transaction: a racing first use
    fails that transaction with DBDuplicateEntry, for the caller to run
    again."""
    if project_id is None:
        return []
    group_id = _default_id(context, project_id)
    if group_id is None:
        group_id = _create_default(context, project_id)
    return [group_id]


# --- groups ----------------------------------------------------------------

@ls_db.reader
def list_groups(context, project_id=None, ids=None, name=None):
    """Visible groups, oldest first, filtered by project, ids, name."""
    where = [_visible_clause(context)]
    if project_id is not None:
        where.append(GROUPS.c.project_id == project_id)
    if ids is not None:
        where.append(GROUPS.c.id.in_(list(ids)))
    if name is not None:
        where.append(GROUPS.c.name == name)
    return _groups(context.session, where)


def get_group(context, group_id):
    found = list_groups(context, ids=[group_id])
    if not found:
        raise exception.SecurityGroupNotFound(security_group_id=group_id)
    return found[0]


@ls_db.reader
def find(context, project_id, name_or_id):
    """The group project_id knows as name_or_id: its own by id (an
    administrator: any by id), else its own by name.
    SecurityGroupNotFound, SecurityGroupNotUnique."""
    session = context.session
    by_id = sa.select(GROUPS).where(GROUPS.c.id == name_or_id)
    if not context.is_admin:
        by_id = by_id.where(GROUPS.c.project_id == project_id)
    row = session.execute(by_id).first()
    if row is None:
        rows = session.execute(sa.select(GROUPS).where(
            GROUPS.c.name == name_or_id,
            GROUPS.c.project_id == project_id)).fetchall()
        if len(rows) > 1:
            raise exception.SecurityGroupNotUnique(name=name_or_id)
        if not rows:
            raise exception.SecurityGroupNotFound(
                security_group_id=name_or_id)
        row = rows[0]
    return _group_dict(row._mapping, _rules_of(session, [row.id])[row.id])


def resolve(context, project_id, names):
    """The ids of the groups a boot request names (the default group
    made on first use); SecurityGroupNotFoundForProject (400) naming the
    first unknown one, SecurityGroupNotUnique (409)."""
    ensure_default(context, project_id)
    ids = []
    for name in names:
        try:
            group_id = find(context, project_id, name)['id']
        except exception.SecurityGroupNotFound:
            raise exception.SecurityGroupNotFoundForProject(
                security_group_id=name, project_id=project_id)
        if group_id not in ids:
            ids.append(group_id)
    return ids


@ls_db.writer
def _insert_group(context, values):
    context.session.execute(GROUPS.insert().values(**values))
    return _groups(context.session, [GROUPS.c.id == values['id']])[0]


def create_group(context, project_id, name, description=None):
    """A new group of project_id with Neutron's two egress rules."""
    ensure_default(context, project_id)
    if name == DEFAULT:
        raise exception.Conflict(
            message='Default security group already exists.')
    now = timeutils.utcnow()
    group_id = uuidutils.generate_uuid()
    group = _insert_group(context, {
        'id': group_id, 'name': name, 'description': description,
        'project_id': project_id, 'created_at': now})
    for ethertype in ETHERTYPES:
        create_rule(context, {'security_group_id': group_id,
                              'direction': 'egress',
                              'ethertype': ethertype})
    return get_group(context, group['id'])


@ls_db.writer
def update_group(context, group_id, name=None, description=None):
    """Rename or redescribe a visible group (the default group keeps
    its name); SecurityGroupNotFound, InvalidInput."""
    session = context.session
    row = session.execute(sa.select(GROUPS).where(
        GROUPS.c.id == group_id, _visible_clause(context))).first()
    if row is None:
        raise exception.SecurityGroupNotFound(security_group_id=group_id)
    values = {'updated_at': timeutils.utcnow()}
    if name is not None:
        if row.default_of is not None and name != row.name:
            raise _bad('The default security group cannot be renamed.')
        values['name'] = name
    if description is not None:
        values['description'] = description
    session.execute(GROUPS.update().where(GROUPS.c.id == group_id)
                    .values(**values))
    return _groups(session, [GROUPS.c.id == group_id])[0]


@ls_db.writer
def delete_group(context, group_id):
    session = context.session
    row = session.execute(sa.select(GROUPS).where(
        GROUPS.c.id == group_id, _visible_clause(context))).first()
    if row is None:
        raise exception.SecurityGroupNotFound(security_group_id=group_id)
    if row.default_of is not None and not context.is_admin:
        raise exception.SecurityGroupDefaultInUse()
    used = session.execute(sa.select(PORT_GROUPS.c.port_id).where(
        PORT_GROUPS.c.security_group_id == group_id).limit(1)).first()
    if used:
        raise exception.SecurityGroupInUse(security_group_id=group_id)
    # Its rules go, and so do the other groups' rules that name it as
    # their remote group (as Neutron's cascade).
    session.execute(RULES.delete().where(sa.or_(
        RULES.c.security_group_id == group_id,
        RULES.c.remote_group_id == group_id)))
    session.execute(GROUPS.delete().where(GROUPS.c.id == group_id))


# --- rules -----------------------------------------------------------------

def _bad(reason):
    return exception.InvalidInput(reason=reason)


def _protocol(value):
    if value is None or value in ('', 'any'):
        return None
    value = str(value).lower()
    if value in PROTOCOLS:
        return value
    if value.isdigit() and 0 <= int(value) <= 255:
        return value
    raise _bad('Security group rule protocol %s not supported. Only '
               'protocol values %s and integer representations [0 to '
               '255] are supported.' % (value, list(PROTOCOLS)))


def _port(value, name):
    if value is None:
        return None
    try:
        port = int(value)
    except (TypeError, ValueError):
        raise _bad('Invalid value for %s: %s' % (name, value))
    return port


def _check_ports(protocol, low, high):
    if low is None and high is None:
        return
    if protocol in _ICMP:
        for value, what in ((low, 'type'), (high, 'code')):
            if value is not None and not 0 <= value <= 255:
                raise _bad('Invalid value for ICMP %s: %s' % (what, value))
        if low is None and high is not None:
            raise _bad('ICMP code (port-range-max) %s is provided but '
                       'ICMP type (port-range-min) is missing.' % high)
        return
    if protocol not in _PORTED:
        raise _bad('Port range is not supported for protocol %s.'
                   % protocol)
    if low is None or high is None:
        raise _bad('Both port_range_min and port_range_max are needed.')
    if not 1 <= low <= high <= 65535:
        raise _bad('Invalid port range %s:%s: it must be within 1 to '
                   '65535 and port_range_min <= port_range_max.'
                   % (low, high))


def _prefix(value, ethertype):
    if value is None:
        return None
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise _bad("'%s' is not a valid IP prefix." % value)
    if (net.version == 4) != (ethertype == 'IPv4'):
        raise _bad('Conflicting value ethertype %s for CIDR %s'
                   % (ethertype, value))
    # As Neutron keeps it: in the notation given (10.2.3.124/24 stays
    # so), an address without a length made a network of one.
    return value if '/' in value else str(net)


def _anywhere(rule):
    """The rule's remote prefix, "anywhere" (0.0.0.0/0, ::/0) as None."""
    prefix = rule['remote_ip_prefix']
    return None if prefix in ('0.0.0.0/0', '::/0') else prefix


def _same(rule, values):
    """Two rules that say the same thing (a prefix of anywhere is the
    same as none)."""
    return (_anywhere(rule) == _anywhere(values) and all(
        rule[k] == values[k] for k in _RULE_KEYS
        if k != 'remote_ip_prefix'))


def _rule_values(spec):
    direction = spec.get('direction')
    if direction not in DIRECTIONS:
        raise _bad("Invalid input for direction. Reason: %s is not in "
                   "%s." % (direction, list(DIRECTIONS)))
    ethertype = spec.get('ethertype') or 'IPv4'
    if ethertype not in ETHERTYPES:
        raise _bad("Invalid input for ethertype. Reason: %s is not in "
                   "%s." % (ethertype, list(ETHERTYPES)))
    protocol = _protocol(spec.get('protocol'))
    low = _port(spec.get('port_range_min'), 'port_range_min')
    high = _port(spec.get('port_range_max'), 'port_range_max')
    _check_ports(protocol, low, high)
    prefix = _prefix(spec.get('remote_ip_prefix'), ethertype)
    if prefix is not None and spec.get('remote_group_id'):
        raise _bad('Only remote_ip_prefix or remote_group_id may be '
                   'provided.')
    return {'direction': direction, 'ethertype': ethertype,
            'protocol': protocol, 'port_range_min': low,
            'port_range_max': high, 'remote_ip_prefix': prefix,
            'remote_group_id': spec.get('remote_group_id') or None,
            'description': spec.get('description')}


@ls_db.writer
def _insert_rule(context, group_id, values):
    session = context.session
    group = session.execute(sa.select(GROUPS).where(
        GROUPS.c.id == group_id, _visible_clause(context))
        .with_for_update()).first()
    if group is None:
        raise exception.SecurityGroupNotFound(security_group_id=group_id)
    remote = values['remote_group_id']
    if remote is not None and session.execute(sa.select(GROUPS.c.id).where(
            GROUPS.c.id == remote, _visible_clause(context))).first() is None:
        raise exception.SecurityGroupNotFound(security_group_id=remote)
    for rule in _rules_of(session, [group_id])[group_id]:
        if _same(rule, values):
            raise exception.SecurityGroupRuleExists(rule_id=rule['id'])
    row = dict(values, id=uuidutils.generate_uuid(),
               security_group_id=group_id, project_id=group.project_id,
               created_at=timeutils.utcnow())
    session.execute(RULES.insert().values(**row))
    return _rule_dict(dict(row, updated_at=None))


def create_rule(context, spec):
    """A new rule (spec: Neutron's security_group_rule body) of a
    visible group; InvalidInput (400), SecurityGroupNotFound (404),
    SecurityGroupRuleExists (409)."""
    return _insert_rule(context, spec.get('security_group_id'),
                        _rule_values(spec))


@ls_db.reader
def list_rules(context, ids=None):
    query = sa.select(RULES).select_from(RULES.join(
        GROUPS, GROUPS.c.id == RULES.c.security_group_id)).where(
        _visible_clause(context)).order_by(RULES.c.created_at, RULES.c.id)
    if ids is not None:
        query = query.where(RULES.c.id.in_(list(ids)))
    return [_rule_dict(r._mapping) for r in context.session.execute(query)]


def get_rule(context, rule_id):
    found = list_rules(context, ids=[rule_id])
    if not found:
        raise exception.SecurityGroupRuleNotFound(rule_id=rule_id)
    return found[0]


@ls_db.writer
def delete_rule(context, rule_id):
    session = context.session
    row = session.execute(sa.select(RULES.c.id).select_from(RULES.join(
        GROUPS, GROUPS.c.id == RULES.c.security_group_id)).where(
        RULES.c.id == rule_id, _visible_clause(context))).first()
    if row is None:
        raise exception.SecurityGroupRuleNotFound(rule_id=rule_id)
    session.execute(RULES.delete().where(RULES.c.id == rule_id))


# --- ports -----------------------------------------------------------------

def apply(session, port_ids, group_ids, now, new=False):
    """Apply the groups to the ports (no-op where applied already);
    new: the ports were made in this transaction (none applied yet)."""
    if not port_ids or not group_ids:
        return
    have = set() if new else {
        (r.port_id, r.security_group_id) for r in session.execute(
            sa.select(PORT_GROUPS).where(
                PORT_GROUPS.c.port_id.in_(list(port_ids))))}
    rows = [{'port_id': p, 'security_group_id': g, 'created_at': now}
            for p in port_ids for g in group_ids if (p, g) not in have]
    if rows:
        session.execute(PORT_GROUPS.insert(), rows)


def unapply_all(session, port_ids):
    if port_ids:
        session.execute(PORT_GROUPS.delete().where(
            PORT_GROUPS.c.port_id.in_(list(port_ids))))


def groups_of_ports(session, port_ids):
    """{port id: [group id]} (every port given has an entry)."""
    found = {p: [] for p in port_ids}
    if port_ids:
        for row in session.execute(sa.select(PORT_GROUPS).where(
                PORT_GROUPS.c.port_id.in_(list(port_ids))).order_by(
                PORT_GROUPS.c.created_at, PORT_GROUPS.c.security_group_id)):
            found[row.port_id].append(row.security_group_id)
    return found


@ls_db.reader
def instance_groups(context, instance_uuids):
    """{instance uuid: [group dict without rules]} of the groups applied
    to any of each instance's ports (each group once, by name); one
    query for all of them. Instances with no port have no entry."""
    found = {}
    if not instance_uuids:
        return found
    query = sa.select(PORTS.c.device_id, GROUPS.c.id, GROUPS.c.name,
                      GROUPS.c.description, GROUPS.c.project_id).select_from(
        PORTS.join(PORT_GROUPS, PORT_GROUPS.c.port_id == PORTS.c.id).join(
            GROUPS, GROUPS.c.id == PORT_GROUPS.c.security_group_id)).where(
        PORTS.c.device_id.in_(list(instance_uuids))).order_by(
        PORTS.c.device_id, GROUPS.c.name, GROUPS.c.id)
    for row in context.session.execute(query):
        groups = found.setdefault(row.device_id, [])
        if all(g['id'] != row.id for g in groups):
            groups.append({'id': row.id, 'name': row.name,
                           'description': row.description or '',
                           'project_id': row.project_id})
    return found


def _instance_port_ids(session, instance_uuid):
    return [r.id for r in session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.device_id == instance_uuid))]


@ls_db.writer
def add_to_instance(context, instance_uuid, group_id):
    """Apply the group to every port of the instance;
    SecurityGroupNotFound when it has no port (as Nova answers)."""
    session = context.session
    ports = _instance_port_ids(session, instance_uuid)
    if not ports:
        raise exception.SecurityGroupNotFound(
            message='instance_id %s could not be found as device id on '
                    'any ports' % instance_uuid)
    apply(session, ports, [group_id], timeutils.utcnow())


@ls_db.writer
def remove_from_instance(context, instance_uuid, group_id, group_name):
    """Take the group off every port of the instance;
    SecurityGroupNotExistsForInstance when no port had it."""
    session = context.session
    ports = _instance_port_ids(session, instance_uuid)
    gone = 0
    if ports:
        gone = session.execute(PORT_GROUPS.delete().where(
            PORT_GROUPS.c.port_id.in_(ports),
            PORT_GROUPS.c.security_group_id == group_id)).rowcount
    if not gone:
        raise exception.SecurityGroupNotExistsForInstance(
            security_group_id=group_name, instance_id=instance_uuid)
