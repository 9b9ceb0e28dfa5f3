"""The network service's tables (nova_lite/network/api.py is its
interface): reading networks and ports, resolving a boot request's
networks, allocating and freeing ports with their fixed IPv4 addresses;
the ports' bindings to hosts are in nova_lite/network/bindings.py. The
invariants are api.py's module doc's.
"""
import ipaddress
import random

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception
from nova_lite.network import bindings
from nova_lite.network import floating_ips
from nova_lite.network import model
from nova_lite.network import security_groups as sg_store

NETWORKS = models.Network.__table__
SUBNETS = models.Subnet.__table__
PORTS = models.Port.__table__
BINDINGS = bindings.BINDINGS

AUTO = 'auto'
DEVICE_OWNER = 'compute:nova'
VIF_TYPE = bindings.VIF_TYPE
VNIC_TYPE = bindings.VNIC_TYPE


# --- reading networks --------------------------------------------------------

def _visible(network, project_id, is_admin):
    return (network['shared'] or is_admin
            or (project_id is not None
                and network['project_id'] == project_id))


def _network_rows(session, where):
    """{network id: network dict with its subnets}, in name order."""
    query = sa.select(
        NETWORKS.c.id, NETWORKS.c.name, NETWORKS.c.project_id,
        NETWORKS.c.shared, NETWORKS.c.external,
        SUBNETS.c.id.label('subnet_id'), SUBNETS.c.cidr,
        SUBNETS.c.gateway_ip, SUBNETS.c.ip_version,
    ).select_from(NETWORKS.outerjoin(
        SUBNETS, SUBNETS.c.network_id == NETWORKS.c.id)).order_by(
        NETWORKS.c.name, NETWORKS.c.id, SUBNETS.c.id)
    for clause in where:
        query = query.where(clause)
    networks = {}
    for row in session.execute(query):
        net = networks.setdefault(row.id, {
            'id': row.id, 'name': row.name, 'project_id': row.project_id,
            'shared': bool(row.shared), 'external': bool(row.external),
            'subnets': []})
        if row.subnet_id is not None:
            net['subnets'].append({'id': row.subnet_id, 'cidr': row.cidr,
                                   'gateway_ip': row.gateway_ip,
                                   'ip_version': row.ip_version})
    return networks


@ls_db.reader
def get_networks(context, network_ids=None, visible_only=True):
    where = []
    if network_ids is not None:
        where.append(NETWORKS.c.id.in_(list(network_ids)))
    nets = _network_rows(context.session, where).values()
    return [n for n in nets if not visible_only
            or _visible(n, context.project_id, context.is_admin)]


# --- resolving a request -----------------------------------------------------

def _auto_network(session, project_id, is_admin, required):
    """The one network 'auto' means for project_id (see the module doc)."""
    owned = _network_rows(session, [NETWORKS.c.project_id == project_id]) \
        if project_id is not None else {}
    candidates = list(owned.values()) or list(_network_rows(
        session, [NETWORKS.c.shared == sa.true()]).values())
    if len(candidates) > 1:
        raise exception.NetworkAmbiguous()
    if not candidates:
        if required:
            raise exception.UnableToAutoAllocateNetwork(
                project_id=project_id)
        return None
    return candidates[0]


def _entries(requested_networks):
    """[{'network_id', 'port_id', 'fixed_ip'}] of a list request."""
    entries = []
    for item in requested_networks:
        entries.append({'network_id': item.get('uuid'),
                        'port_id': item.get('port'),
                        'fixed_ip': item.get('fixed_ip')})
    return entries


def _check_fixed_ip(network, address):
    """The subnet of network that address belongs to; FixedIpInvalid if
    none (or address is the gateway or not an IPv4 host address)."""
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        raise exception.FixedIpInvalid(address=address,
                                       network_id=network['id'])
    for subnet in network['subnets']:
        net = ipaddress.ip_network(subnet['cidr'])
        if (ip in net and ip not in (net.network_address,
                                     net.broadcast_address)
                and address != subnet['gateway_ip']):
            return subnet
    raise exception.FixedIpInvalid(address=address, network_id=network['id'])


def _resolve_in(session, project_id, is_admin, requested_networks):
    """The requests resolved against the database, or the exception the
    module doc names; [{'network', 'port', 'fixed_ip', 'subnet'}]."""
    if requested_networks is None or requested_networks == AUTO:
        network = _auto_network(session, project_id, is_admin,
                                required=requested_networks == AUTO)
        return [] if network is None else [
            {'network': network, 'port': None, 'fixed_ip': None}]
    entries = _entries(requested_networks)
    net_ids = {e['network_id'] for e in entries if e['network_id']}
    port_ids = [e['port_id'] for e in entries if e['port_id']]
    networks = _network_rows(session, [NETWORKS.c.id.in_(net_ids)]) \
        if net_ids else {}
    ports = {}
    if port_ids:
        ports = {row.id: row for row in session.execute(
            sa.select(PORTS).where(PORTS.c.id.in_(port_ids)))}
        port_nets = {p.network_id for p in ports.values()} - set(networks)
        if port_nets:
            networks.update(_network_rows(
                session, [NETWORKS.c.id.in_(port_nets)]))
    wanted_ips = [(e['network_id'], e['fixed_ip']) for e in entries
                  if e['fixed_ip']]
    taken = {}
    if wanted_ips:
        taken = {(row.network_id, row.fixed_ip): row.device_id
                 for row in session.execute(
                     sa.select(PORTS.c.network_id, PORTS.c.fixed_ip,
                               PORTS.c.device_id).where(sa.tuple_(
                                   PORTS.c.network_id, PORTS.c.fixed_ip).in_(
                                   wanted_ips)))}
    resolved, seen_ports, seen_ips = [], set(), set()
    for entry in entries:
        if entry['port_id']:
            port = ports.get(entry['port_id'])
            if port is None or not (
                    is_admin or port.project_id == project_id):
                raise exception.PortNotFound(port_id=entry['port_id'])
            if port.device_id or port.id in seen_ports:
                raise exception.PortInUse(port_id=port.id)
            seen_ports.add(port.id)
            resolved.append({'network': networks[port.network_id],
                             'port': port, 'fixed_ip': port.fixed_ip})
            continue
        network = networks.get(entry['network_id'])
        if network is None or not _visible(network, project_id, is_admin):
            raise exception.NetworkNotFound(network_id=entry['network_id'])
        address = entry['fixed_ip']
        if address:
            _check_fixed_ip(network, address)
            key = (network['id'], address)
            if key in taken or key in seen_ips:
                raise exception.FixedIpAlreadyInUse(
                    address=address, instance_uuid=taken.get(key) or '')
            seen_ips.add(key)
        resolved.append({'network': network, 'port': None,
                         'fixed_ip': address})
    return resolved


@ls_db.reader
def resolve(context, project_id, requested_networks):
    return [{'network_id': r['network']['id'],
             'port_id': r['port'].id if r['port'] is not None else None,
             'fixed_ip': r['fixed_ip']}
            for r in _resolve_in(context.session, project_id,
                                 context.is_admin, requested_networks)]


# --- allocating --------------------------------------------------------------

def _random_mac():
    return 'fa:16:3e:%02x:%02x:%02x' % tuple(
        random.randint(0, 255) for _ in range(3))


def _lowest_free(session, network, subnet):
    # Allocations on one network take turns from here to their commit
    # (the network's row is locked on MariaDB/PostgreSQL; SQLite's writer
    # already takes turns): racing for the same lowest address and
    # retrying would cost far more. The unique key still guards.
    session.execute(sa.select(NETWORKS.c.id).where(
        NETWORKS.c.id == network['id']).with_for_update())
    # A locking read: the addresses committed by the allocation that held
    # the turn before, which a REPEATABLE READ snapshot taken earlier in
    # this transaction (MariaDB) would not show.
    used = {row.fixed_ip for row in session.execute(
        sa.select(PORTS.c.fixed_ip).where(
            PORTS.c.network_id == network['id'],
            PORTS.c.fixed_ip.isnot(None)).with_for_update(read=True))}
    used.add(subnet['gateway_ip'])
    for host in ipaddress.ip_network(subnet['cidr']).hosts():
        address = str(host)
        if address not in used:
            return address
    raise exception.NoMoreFixedIps(net=network['id'])


def _new_port(session, network, fixed_ip, project_id, binding):
    """Insert a port on network (fixed_ip, or the lowest free address of
    its first subnet); binding: the device columns. The row as a dict."""
    subnet = None
    if fixed_ip:
        subnet = _check_fixed_ip(network, fixed_ip)
    elif network['subnets']:
        subnet = network['subnets'][0]
        fixed_ip = _lowest_free(session, network, subnet)
    row = dict(binding, id=uuidutils.generate_uuid(),
               network_id=network['id'],
               subnet_id=subnet['id'] if subnet else None,
               project_id=project_id, mac_address=_random_mac(),
               fixed_ip=fixed_ip, created_at=timeutils.utcnow())
    session.execute(PORTS.insert().values(**row))
    return row


@ls_db.writer
def allocate(context, instance_uuid, project_id, requested_networks, host,
             group_ids=(), status='ACTIVE'):
    """group_ids: the security groups applied to the ports made here
    (a port the user brought keeps its own); status: the ports' status
    once bound (DOWN until their plug is reported, see nova_events)."""
    session = context.session
    if session.execute(sa.select(PORTS.c.id).where(
            PORTS.c.device_id == instance_uuid).limit(1)).first():
        return _nw_info_in(session, instance_uuid)
    now = timeutils.utcnow()
    binding = {'device_id': instance_uuid, 'device_owner': DEVICE_OWNER,
               'binding_host': host, 'status': status}
    info, made = [], []
    for request in _resolve_in(session, project_id, context.is_admin,
                               requested_networks):
        network, port = request['network'], request['port']
        if port is not None:
            bound = session.execute(PORTS.update().where(
                PORTS.c.id == port.id,
                sa.or_(PORTS.c.device_id.is_(None),
                       PORTS.c.device_id == '')).values(
                updated_at=now, **binding))
            if not bound.rowcount:
                raise exception.PortInUse(port_id=port.id)
            row = dict(port._mapping, **binding)
        else:
            row = dict(_new_port(session, network, request['fixed_ip'],
                                 project_id, binding),
                       preserve_on_delete=False)
            made.append(row['id'])
        subnet = _subnet_of(network, row['subnet_id'])
        info.append(model.vif(row, network['name'],
                              subnet and subnet['cidr'],
                              subnet and subnet['gateway_ip']))
    sg_store.apply(session, made, list(group_ids or ()), now, new=True)
    if host and info:
        # A user's port may keep rows of an earlier life: it starts anew.
        bindings.bind_alone(session, [vif['id'] for vif in info], host, now,
                            new=len(made) == len(info))
    return info


def _subnet_of(network, subnet_id):
    for subnet in network['subnets']:
        if subnet['id'] == subnet_id:
            return subnet
    return None


@ls_db.writer
def allocate_port(context, instance_uuid, project_id, host, port_id,
                  network_id, fixed_ip, group_ids=(), status='ACTIVE'):
    """One more port for the instance, bound to host: the user's port
    (PortNotFound, PortInUse) or a new one on network_id (fixed_ip if
    given; the groups applied, None: the project's default group, found
    or made in this transaction). Returns its VIF."""
    session = context.session
    request = {'port': port_id} if port_id else {'uuid': network_id}
    if fixed_ip and not port_id:
        request['fixed_ip'] = fixed_ip
    resolved = _resolve_in(session, project_id, context.is_admin,
                           [request])[0]
    network, port = resolved['network'], resolved['port']
    now = timeutils.utcnow()
    binding = {'device_id': instance_uuid, 'device_owner': DEVICE_OWNER,
               'binding_host': host, 'status': status}
    if port is not None:
        bound = session.execute(PORTS.update().where(
            PORTS.c.id == port.id,
            sa.or_(PORTS.c.device_id.is_(None),
                   PORTS.c.device_id == '')).values(
            updated_at=now, **binding))
        if not bound.rowcount:
            raise exception.PortInUse(port_id=port.id)
        row = dict(port._mapping, **binding)
    else:
        row = dict(_new_port(session, network, resolved['fixed_ip'],
                             project_id, binding), preserve_on_delete=False)
        if group_ids is None:
            group_ids = sg_store.default_ids_in(context, project_id)
        sg_store.apply(session, [row['id']], list(group_ids or ()), now,
                       new=True)
    if host:
        bindings.bind_alone(session, [row['id']], host, now,
                            new=port is None)
    subnet = _subnet_of(network, row['subnet_id'])
    return model.vif(row, network['name'], subnet and subnet['cidr'],
                     subnet and subnet['gateway_ip'])


@ls_db.writer
def deallocate_port(context, instance_uuid, port_id):
    """Free one port of the instance: deleted if made for it, else
    unbound (the user's port stays). False when the instance has no
    such port."""
    session = context.session
    row = session.execute(sa.select(PORTS).where(
        PORTS.c.id == port_id, PORTS.c.device_id == instance_uuid)).first()
    if row is None:
        return False
    session.execute(BINDINGS.delete().where(BINDINGS.c.port_id == port_id))
    if not row.preserve_on_delete:
        floating_ips.unassociate_ports(session, [port_id])
        sg_store.unapply_all(session, [port_id])
        session.execute(PORTS.delete().where(PORTS.c.id == port_id))
    else:
        session.execute(PORTS.update().where(PORTS.c.id == port_id).values(
            device_id=None, device_owner=None, binding_host=None,
            status='DOWN', updated_at=timeutils.utcnow()))
    return True


@ls_db.writer
def create_port(context, network_id, fixed_ip, project_id, group_ids=()):
    session = context.session
    network = _network_rows(session, [NETWORKS.c.id == network_id]).get(
        network_id)
    if network is None or not _visible(network, context.project_id,
                                       context.is_admin):
        raise exception.NetworkNotFound(network_id=network_id)
    if fixed_ip and session.execute(sa.select(PORTS.c.id).where(
            PORTS.c.network_id == network_id,
            PORTS.c.fixed_ip == fixed_ip)).first():
        raise exception.FixedIpAlreadyInUse(address=fixed_ip,
                                            instance_uuid='')
    row = _new_port(session, network, fixed_ip, project_id,
                    {'device_id': None, 'device_owner': None,
                     'binding_host': None, 'status': 'DOWN',
                     'preserve_on_delete': True})
    sg_store.apply(session, [row['id']], list(group_ids or ()),
                   row['created_at'], new=True)
    return _port_dict(row, list(group_ids or ()))


@ls_db.writer
def deallocate(context, instance_uuid):
    session = context.session
    session.execute(BINDINGS.delete().where(BINDINGS.c.port_id.in_(
        sa.select(PORTS.c.id).where(PORTS.c.device_id == instance_uuid)
        .scalar_subquery())))
    made = [r.id for r in session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.device_id == instance_uuid,
        PORTS.c.preserve_on_delete == sa.false()))]
    floating_ips.unassociate_ports(session, made)
    sg_store.unapply_all(session, made)
    session.execute(PORTS.delete().where(
        PORTS.c.device_id == instance_uuid,
        PORTS.c.preserve_on_delete == sa.false()))
    session.execute(PORTS.update().where(
        PORTS.c.device_id == instance_uuid).values(
        device_id=None, device_owner=None, binding_host=None,
        status='DOWN', updated_at=timeutils.utcnow()))


@ls_db.writer
def set_active(context, instance_uuid, port_ids, host):
    """The ports of port_ids bound to instance_uuid on host become
    ACTIVE; the ids of those that were DOWN."""
    return _set_active_in(context.session, instance_uuid, port_ids, host)


@ls_db.writer
def set_active_and_read(context, instance_uuid, port_ids, host):
    """set_active, then in the same transaction (the ids made ACTIVE,
    the instance's network info, {port id: port dict} of port_ids)."""
    session = context.session
    plugged = _set_active_in(session, instance_uuid, port_ids, host)
    rows, info = _nw_rows_in(session, instance_uuid)
    wanted = [r for r in rows if r.id in port_ids]
    groups = sg_store.groups_of_ports(session, [r.id for r in wanted])
    return plugged, info, {r.id: _port_dict(r._mapping, groups[r.id])
                           for r in wanted}


def _set_active_in(session, instance_uuid, port_ids, host):
    if len(port_ids) == 1:
        # One port (an attach): its UPDATE's row count says whether it
        # was not ACTIVE yet.
        changed = session.execute(PORTS.update().where(
            PORTS.c.id == next(iter(port_ids)),
            PORTS.c.device_id == instance_uuid,
            PORTS.c.binding_host == host,
            PORTS.c.status != 'ACTIVE').values(
            status='ACTIVE', updated_at=timeutils.utcnow())).rowcount
        return list(port_ids) if changed else []
    down = [r.id for r in session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.id.in_(port_ids), PORTS.c.device_id == instance_uuid,
        PORTS.c.binding_host == host, PORTS.c.status != 'ACTIVE'))]
    if down:
        session.execute(PORTS.update().where(PORTS.c.id.in_(down)).values(
            status='ACTIVE', updated_at=timeutils.utcnow()))
    return down


@ls_db.writer
def set_down(context, instance_uuid, port_ids, host):
    """The ports of port_ids bound to instance_uuid on host go DOWN; the
    ids of those that were ACTIVE."""
    session = context.session
    up = [r.id for r in session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.id.in_(port_ids), PORTS.c.device_id == instance_uuid,
        PORTS.c.binding_host == host, PORTS.c.status == 'ACTIVE'))]
    if up:
        session.execute(PORTS.update().where(PORTS.c.id.in_(up)).values(
            status='DOWN', updated_at=timeutils.utcnow()))
    return up


# --- reading ports -----------------------------------------------------------

def _nw_info_in(session, instance_uuid):
    return _nw_rows_in(session, instance_uuid)[1]


def _nw_rows_in(session, instance_uuid):
    """(the instance's port rows, with their network's name and subnet,
    oldest first; its network info built from them)."""
    query = sa.select(
        PORTS, NETWORKS.c.name.label('network_name'),
        SUBNETS.c.cidr, SUBNETS.c.gateway_ip,
    ).select_from(PORTS.join(
        NETWORKS, NETWORKS.c.id == PORTS.c.network_id).outerjoin(
        SUBNETS, SUBNETS.c.id == PORTS.c.subnet_id)).where(
        PORTS.c.device_id == instance_uuid).order_by(
        PORTS.c.created_at, PORTS.c.id)
    rows = session.execute(query).fetchall()
    floating = floating_ips.of_ports(session, [r.id for r in rows])
    return rows, [model.vif(row._mapping, row.network_name, row.cidr,
                            row.gateway_ip,
                            floating.get((row.id, row.fixed_ip), ()))
                  for row in rows]


@ls_db.reader
def nw_info(context, instance_uuid):
    return _nw_info_in(context.session, instance_uuid)


def _port_dict(row, group_ids=()):
    """A port as Neutron shows it (group_ids: its security groups)."""
    fixed_ips = []
    if row['fixed_ip']:
        fixed_ips.append({'subnet_id': row['subnet_id'],
                          'ip_address': row['fixed_ip']})
    return {'id': row['id'], 'network_id': row['network_id'],
            'project_id': row['project_id'],
            'tenant_id': row['project_id'],
            'device_id': row['device_id'] or '',
            'device_owner': row['device_owner'] or '',
            'mac_address': row['mac_address'], 'fixed_ips': fixed_ips,
            'status': row['status'],
            'binding:host_id': row['binding_host'] or '',
            'preserve_on_delete': bool(row.get('preserve_on_delete')),
            'security_groups': list(group_ids),
            'created_at': row.get('created_at')}


@ls_db.reader
def get_ports(context, device_id, network_id, port_ids, project_id):
    query = sa.select(PORTS).order_by(PORTS.c.created_at, PORTS.c.id)
    if device_id is not None:
        query = query.where(PORTS.c.device_id == device_id)
    if network_id is not None:
        query = query.where(PORTS.c.network_id == network_id)
    if port_ids is not None:
        query = query.where(PORTS.c.id.in_(list(port_ids)))
    if project_id is not None:
        query = query.where(PORTS.c.project_id == project_id)
    rows = context.session.execute(query).fetchall()
    groups = sg_store.groups_of_ports(context.session, [r.id for r in rows])
    return [_port_dict(row._mapping, groups[row.id]) for row in rows]


@ls_db.writer
def create_network(context, spec):
    session = context.session
    now = timeutils.utcnow()
    session.execute(NETWORKS.insert().values(
        id=spec['id'], name=spec['name'], project_id=spec['project_id'],
        shared=bool(spec['shared']),
        external=bool(spec.get('external')), created_at=now))
    session.execute(SUBNETS.insert().values(
        id=spec['subnet_id'], network_id=spec['id'], cidr=spec['cidr'],
        gateway_ip=spec['gateway_ip'], ip_version=4, created_at=now))
    return _network_rows(session, [NETWORKS.c.id == spec['id']])[spec['id']]


@ls_db.writer
def bind_to_host(context, instance_uuid, host, down=False):
    """Bind every port of the instance to host alone (its one, ACTIVE,
    binding); with down, the ports bound to another host before go
    DOWN until plugged there. Returns the ids of the ports DOWN (to be
    plugged here)."""
    session = context.session
    ports = bindings.ports_of(session, PORTS.c.device_id == instance_uuid)
    if not ports:
        return []
    now = timeutils.utcnow()
    bindings.bind_alone(session, list(ports), host, now)
    bindings.set_binding_host(session, list(ports), host, now)
    if not down:
        return []
    moved = [p for p, bound in ports.items() if bound != host]
    if moved:
        session.execute(PORTS.update().where(PORTS.c.id.in_(moved)).values(
            status='DOWN'))
    # Those moved, and those still DOWN from an earlier attempt.
    return [r.id for r in session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.id.in_(list(ports)), PORTS.c.status != 'ACTIVE'))]


# --- networks and subnets created and deleted through the Neutron API ----

def _owned_network(session, context, network_id):
    """The network a caller may change (an administrator any, a project
    its own); ResourceNotFound (404) otherwise, as Neutron answers."""
    network = _network_rows(session, [NETWORKS.c.id == network_id]).get(
        network_id)
    if network is None or not (
            context.is_admin or (network['project_id'] is not None
                                 and network['project_id']
                                 == context.project_id)):
        raise exception.ResourceNotFound(
            message='Network %s could not be found.' % network_id)
    return network


def _in_use(session, where, what):
    if session.execute(sa.select(PORTS.c.id).where(where).limit(1)
                       ).first() is not None:
        raise exception.Conflict(
            reason='Unable to complete operation on %s: one or more '
                   'ports have an IP allocation from it.' % what)


@ls_db.writer
def add_network(context, network_id, name, project_id, shared):
    """A network without subnets (Neutron's POST /v2.0/networks)."""
    session = context.session
    session.execute(NETWORKS.insert().values(
        id=network_id, name=name, project_id=project_id,
        shared=bool(shared), created_at=timeutils.utcnow()))
    return _network_rows(session, [NETWORKS.c.id == network_id])[network_id]


@ls_db.writer
def add_subnet(context, network_id, subnet_id, cidr, gateway_ip):
    """An IPv4 subnet of the caller's network; 400 when it overlaps one
    of the network's subnets."""
    session = context.session
    network = _owned_network(session, context, network_id)
    new = ipaddress.ip_network(cidr)
    for subnet in network['subnets']:
        if new.overlaps(ipaddress.ip_network(subnet['cidr'])):
            raise exception.Invalid(
                reason='Requested subnet with cidr: %s for network: %s '
                       'overlaps with another subnet' % (cidr, network_id))
    session.execute(SUBNETS.insert().values(
        id=subnet_id, network_id=network_id, cidr=str(new),
        gateway_ip=gateway_ip, ip_version=4, created_at=timeutils.utcnow()))
    network = _network_rows(session, [NETWORKS.c.id == network_id])[
        network_id]
    return network, _subnet_of(network, subnet_id)


@ls_db.writer
def delete_subnet(context, subnet_id):
    """Delete a subnet of the caller's network (409 while a port has an
    address from it)."""
    session = context.session
    row = session.execute(sa.select(SUBNETS.c.network_id).where(
        SUBNETS.c.id == subnet_id)).first()
    if row is None:
        raise exception.ResourceNotFound(
            message='Subnet %s could not be found.' % subnet_id)
    _owned_network(session, context, row.network_id)
    _in_use(session, PORTS.c.subnet_id == subnet_id, 'subnet %s' % subnet_id)
    session.execute(SUBNETS.delete().where(SUBNETS.c.id == subnet_id))


@ls_db.writer
def delete_network(context, network_id):
    """Delete the caller's network and its subnets (409 while it has
    ports)."""
    session = context.session
    _owned_network(session, context, network_id)
    _in_use(session, PORTS.c.network_id == network_id,
            'network %s' % network_id)
    session.execute(SUBNETS.delete().where(SUBNETS.c.network_id == network_id))
    session.execute(NETWORKS.delete().where(NETWORKS.c.id == network_id))


@ls_db.writer
def delete_port(context, port_id):
    """Delete an unbound port of the caller's project (an administrator
    any); 404 for none, 409 while a server has it."""
    session = context.session
    row = session.execute(sa.select(PORTS.c.device_id, PORTS.c.project_id)
                          .where(PORTS.c.id == port_id)).first()
    if row is None or not (context.is_admin
                           or row.project_id == context.project_id):
        raise exception.ResourceNotFound(
            message='Port %s could not be found.' % port_id)
    if row.device_id:
        raise exception.PortInUse(port_id=port_id)
    sg_store.unapply_all(session, [port_id])
    session.execute(BINDINGS.delete().where(BINDINGS.c.port_id == port_id))
    session.execute(PORTS.delete().where(PORTS.c.id == port_id))
