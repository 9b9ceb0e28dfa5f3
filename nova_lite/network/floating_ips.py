"""Floating IPs of the embedded network service (Neutron's floatingips,
the L3 part nova_lite serves): addresses of an external network
(``router:external``; a floating IP pool of the Compute API) that a
project allocates, associates with one fixed IP of a port, and
releases. There are no routers: every external network reaches every
port (a deployment that needs Neutron's reachability rules runs
Neutron).

Invariants:
- An address is unique per external network (UNIQUE (network,
  address)); an allocation takes the lowest free host address of the
  network's first subnet (its gateway and its ports' addresses
  excluded). Allocations on one network take turns (its row is locked
  until commit); one that still loses an address retries (api.py).
- A fixed IP has at most one floating IP (UNIQUE (port_id,
  fixed_ip_address)): associating a second one is
  FloatingIpAssociateFailed (400, Neutron's 409 as Nova answers it).
  Associating one already associated elsewhere moves it (Neutron's
  re-association).
- A port deleted (its instance gone, an interface detached) leaves its
  floating IPs allocated but disassociated, as Neutron does.

A floating IP is a dict::

    {'id', 'floating_ip_address', 'floating_network_id', 'network_name',
     'project_id', 'port_id', 'fixed_ip_address', 'status' ('ACTIVE'
     when associated, else 'DOWN'), 'instance_id' (its port's device,
     or None), 'created_at', 'updated_at'}
"""
import ipaddress

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

FLOATING_IPS = models.FloatingIP.__table__
NETWORKS = models.Network.__table__
SUBNETS = models.Subnet.__table__
PORTS = models.Port.__table__

ACTIVE, DOWN = 'ACTIVE', 'DOWN'


def _query():
    return sa.select(
        FLOATING_IPS, NETWORKS.c.name.label('network_name'),
        PORTS.c.device_id,
    ).select_from(FLOATING_IPS.join(
        NETWORKS, NETWORKS.c.id == FLOATING_IPS.c.floating_network_id
    ).outerjoin(PORTS, PORTS.c.id == FLOATING_IPS.c.port_id)).order_by(
        FLOATING_IPS.c.created_at, FLOATING_IPS.c.id)


def _dict(row):
    fip = {k: row._mapping[k] for k in (
        'id', 'floating_ip_address', 'floating_network_id', 'network_name',
        'project_id', 'port_id', 'fixed_ip_address', 'status',
        'description', 'created_at', 'updated_at')}
    fip['instance_id'] = row.device_id or None
    return fip


def _visible(context, fip):
    return context.is_admin or fip['project_id'] == context.project_id


# --- pools -------------------------------------------------------------------

def _pools(session, where=()):
    query = sa.select(NETWORKS.c.id, NETWORKS.c.name).where(
        NETWORKS.c.external == sa.true()).order_by(NETWORKS.c.name,
                                                   NETWORKS.c.id)
    for clause in where:
        query = query.where(clause)
    return [dict(row._mapping) for row in session.execute(query)]


@ls_db.reader
def pools(context):
    """Every external network ({'id', 'name'}), whoever asks (as
    Neutron shows external networks to every project)."""
    return _pools(context.session)


def _pool_id(session, name_or_id, default_name):
    """The external network name_or_id names (None: the only one, else
    the one named default_name); FloatingIpPoolNotFound."""
    if name_or_id is None:
        found = _pools(session)
        if len(found) > 1:
            found = [p for p in found if p['name'] == default_name]
    elif uuidutils.is_uuid_like(name_or_id):
        found = _pools(session, [NETWORKS.c.id == name_or_id])
    else:
        found = _pools(session, [NETWORKS.c.name == name_or_id])
    if not found:
        raise exception.FloatingIpPoolNotFound()
    if len(found) > 1:
        raise exception.InvalidInput(
            reason="Multiple floating IP pools matches found for name '%s'"
                   % name_or_id)
    return found[0]['id']


# --- allocating and releasing ------------------------------------------------

def _lowest_free(session, network_id):
    # Allocations on the network take turns (see the module doc); the
    # locking read sees what the one before committed.
    session.execute(sa.select(NETWORKS.c.id).where(
        NETWORKS.c.id == network_id).with_for_update())
    subnet = session.execute(sa.select(SUBNETS).where(
        SUBNETS.c.network_id == network_id).order_by(
        SUBNETS.c.created_at, SUBNETS.c.id).limit(1)).first()
    if subnet is None:
        raise exception.NoMoreFloatingIps()
    used = {row[0] for row in session.execute(
        sa.select(FLOATING_IPS.c.floating_ip_address).where(
            FLOATING_IPS.c.floating_network_id == network_id)
        .with_for_update(read=True))}
    used |= {row[0] for row in session.execute(
        sa.select(PORTS.c.fixed_ip).where(PORTS.c.network_id == network_id,
                                          PORTS.c.fixed_ip.isnot(None)))}
    used.add(subnet.gateway_ip)
    for host in ipaddress.ip_network(subnet.cidr).hosts():
        if str(host) not in used:
            return str(host)
    raise exception.NoMoreFloatingIps()


@ls_db.writer
def allocate(context, pool, default_pool_name):
    """A new floating IP of context's project from pool (a name or an
    id; None: the default pool). FloatingIpPoolNotFound,
    NoMoreFloatingIps; DBDuplicateEntry when it lost a race (retry)."""
    session = context.session
    network_id = _pool_id(session, pool, default_pool_name)
    row = {'id': uuidutils.generate_uuid(),
           'floating_network_id': network_id,
           'floating_ip_address': _lowest_free(session, network_id),
           'project_id': context.project_id, 'status': DOWN,
           'created_at': timeutils.utcnow()}
    session.execute(FLOATING_IPS.insert().values(**row))
    return _get_in(session, FLOATING_IPS.c.id == row['id'])


def _get_in(session, where):
    row = session.execute(_query().where(where)).first()
    return _dict(row) if row is not None else None


@ls_db.reader
def get(context, floating_ip_id):
    """FloatingIpNotFound for one missing or of another project (but
    for an administrator)."""
    fip = _get_in(context.session, FLOATING_IPS.c.id == floating_ip_id)
    if fip is None or not _visible(context, fip):
        raise exception.FloatingIpNotFound(id=floating_ip_id)
    return fip


@ls_db.reader
def get_by_address(context, address):
    """The floating IP of that address the caller sees;
    FloatingIpNotFoundForAddress."""
    rows = context.session.execute(_query().where(
        FLOATING_IPS.c.floating_ip_address == address)).fetchall()
    found = [f for f in map(_dict, rows) if _visible(context, f)]
    if len(found) != 1:
        raise exception.FloatingIpNotFoundForAddress(address=address)
    return found[0]


@ls_db.reader
def list_for_project(context, project_id):
    return [_dict(r) for r in context.session.execute(_query().where(
        FLOATING_IPS.c.project_id == project_id))]


@ls_db.writer
def release(context, floating_ip_id):
    """Delete it (associated or not); FloatingIpNotFound."""
    session = context.session
    fip = _get_in(session, FLOATING_IPS.c.id == floating_ip_id)
    if fip is None or not _visible(context, fip):
        raise exception.FloatingIpNotFound(id=floating_ip_id)
    session.execute(FLOATING_IPS.delete().where(
        FLOATING_IPS.c.id == floating_ip_id))
    return fip


# --- associating -------------------------------------------------------------

@ls_db.writer
def associate(context, address, instance_uuid, fixed_address):
    """Associate the floating IP at address with the port of
    instance_uuid holding fixed_address. Returns the floating IP as it
    was before (its instance_id: the server it leaves, if any).
    FloatingIpNotFoundForAddress, FixedIpNotFoundForInstance,
    FloatingIpAssociateFailed (that fixed IP has another one)."""
    session = context.session
    rows = session.execute(_query().where(
        FLOATING_IPS.c.floating_ip_address == address)).fetchall()
    found = [f for f in map(_dict, rows) if _visible(context, f)]
    if len(found) != 1:
        raise exception.FloatingIpNotFoundForAddress(address=address)
    before = found[0]
    port = session.execute(sa.select(PORTS.c.id).where(
        PORTS.c.device_id == instance_uuid,
        PORTS.c.fixed_ip == fixed_address)).first()
    if port is None:
        raise exception.FixedIpNotFoundForInstance(
            instance_uuid=instance_uuid, ip=fixed_address)
    other = session.execute(sa.select(FLOATING_IPS.c.id).where(
        FLOATING_IPS.c.port_id == port.id,
        FLOATING_IPS.c.fixed_ip_address == fixed_address,
        FLOATING_IPS.c.id != before['id'])).first()
    if other is not None:
        raise exception.FloatingIpAssociateFailed(
            message='Cannot associate floating IP %s (%s) with port %s '
                    'using fixed IP %s, as that fixed IP already has a '
                    'floating IP on external network %s.' % (
                        address, before['id'], port.id, fixed_address,
                        before['floating_network_id']))
    session.execute(FLOATING_IPS.update().where(
        FLOATING_IPS.c.id == before['id']).values(
        port_id=port.id, fixed_ip_address=fixed_address, status=ACTIVE,
        updated_at=timeutils.utcnow()))
    return before


@ls_db.writer
def disassociate(context, address):
    """Disassociate the floating IP at address (a no-op when it is not
    associated); returns it as it was. FloatingIpNotFoundForAddress."""
    session = context.session
    rows = session.execute(_query().where(
        FLOATING_IPS.c.floating_ip_address == address)).fetchall()
    found = [f for f in map(_dict, rows) if _visible(context, f)]
    if len(found) != 1:
        raise exception.FloatingIpNotFoundForAddress(address=address)
    session.execute(FLOATING_IPS.update().where(
        FLOATING_IPS.c.id == found[0]['id']).values(
        port_id=None, fixed_ip_address=None, status=DOWN,
        updated_at=timeutils.utcnow()))
    return found[0]


# --- what the ports' side needs ----------------------------------------------

def of_ports(session, port_ids):
    """{(port id, fixed address): [floating addresses]} (one query)."""
    found = {}
    if not port_ids:
        return found
    for row in session.execute(sa.select(
            FLOATING_IPS.c.port_id, FLOATING_IPS.c.fixed_ip_address,
            FLOATING_IPS.c.floating_ip_address).where(
            FLOATING_IPS.c.port_id.in_(list(port_ids))).order_by(
            FLOATING_IPS.c.created_at, FLOATING_IPS.c.id)):
        found.setdefault((row.port_id, row.fixed_ip_address), []).append(
            row.floating_ip_address)
    return found


def unassociate_ports(session, port_ids):
    """The floating IPs of ports about to go stay allocated, with no
    association (as Neutron does when a port is deleted)."""
    if port_ids:
        session.execute(FLOATING_IPS.update().where(
            FLOATING_IPS.c.port_id.in_(list(port_ids))).values(
            port_id=None, fixed_ip_address=None, status=DOWN,
            updated_at=timeutils.utcnow()))
