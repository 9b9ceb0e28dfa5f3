"""Port bindings of the network service (nova_lite/network/api.py is
its interface; nova_lite/network/store.py holds networks and ports).

A port has a row in port_bindings per host it is bound to; at most one
is ACTIVE and ports.binding_host is that one's host (NULL when none
is). A port bound before port_bindings existed has its binding_host and
no row: its ACTIVE row is written (online) the first time its bindings
change, and reads show it as if it were there.
"""
import json

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

PORTS = models.Port.__table__
BINDINGS = models.PortBinding.__table__

ACTIVE = 'ACTIVE'
INACTIVE = 'INACTIVE'
VIF_TYPE = 'bridge'
VNIC_TYPE = 'normal'


def _binding_row(port_id, host, status, now, vnic_type=VNIC_TYPE,
                 profile=None):
    return {'port_id': port_id, 'host': host, 'status': status,
            'vif_type': VIF_TYPE, 'vnic_type': vnic_type or VNIC_TYPE,
            'profile': json.dumps(profile or {}),
            'vif_details': json.dumps({'bridge_name': 'br-int'}),
            'created_at': now}


def bind_alone(session, port_ids, host, now, new=False):
    """port_ids' one binding: ACTIVE to host (their others dropped; new:
    the ports were made in this transaction, they have none)."""
    if not new:
        session.execute(BINDINGS.delete().where(
            BINDINGS.c.port_id.in_(port_ids)))
    session.execute(BINDINGS.insert(), [
        _binding_row(port_id, host, ACTIVE, now) for port_id in port_ids])


def _add_bindings(session, bindings, host, now, vnic_type=None,
                  profile=None):
    """A binding to host of each port of bindings (_bindings_of) that
    has none there: INACTIVE beside an ACTIVE one, else ACTIVE (and the
    port bound to host). bindings gets the new rows."""
    new, unbound = [], []
    for port_id, per_port in bindings.items():
        if host in per_port:
            continue
        active = any(b['status'] == ACTIVE for b in per_port.values())
        row = _binding_row(port_id, host, INACTIVE if active else ACTIVE,
                           now, vnic_type, profile)
        per_port[host] = row
        new.append(row)
        if not active:
            unbound.append(port_id)
    if new:
        session.execute(BINDINGS.insert(), new)
    if unbound:
        set_binding_host(session, unbound, host, now)


def _binding_dict(row):
    """A binding as Neutron's binding-extended API shows it."""
    return {'host': row['host'], 'status': row['status'],
            'vif_type': row['vif_type'], 'vnic_type': row['vnic_type'],
            'profile': json.loads(row['profile'] or '{}'),
            'vif_details': json.loads(row['vif_details'] or '{}')}


def ports_of(session, where):
    """{port id: binding_host} of the ports matching where."""
    return {row.id: row.binding_host for row in session.execute(
        sa.select(PORTS.c.id, PORTS.c.binding_host).where(where))}


def _bindings_of(session, ports):
    """{port id: {host: binding row as a dict}} of ports ({id:
    binding_host}); a port's binding_host without its row (bound before
    port_bindings existed) shows as an ACTIVE row not yet written
    (marked 'legacy')."""
    found = {port_id: {} for port_id in ports}
    if not ports:
        return found
    for row in session.execute(sa.select(BINDINGS).where(
            BINDINGS.c.port_id.in_(list(ports)))):
        found[row.port_id][row.host] = dict(row._mapping)
    for port_id, host in ports.items():
        if host and host not in found[port_id]:
            found[port_id][host] = dict(
                _binding_row(port_id, host, ACTIVE, None), legacy=True)
    return found


def _write_legacy(session, bindings):
    """Write the ACTIVE rows _bindings_of showed but did not find."""
    rows = [{k: v for k, v in b.items() if k != 'legacy'}
            for per_port in bindings.values() for b in per_port.values()
            if b.get('legacy')]
    if rows:
        now = timeutils.utcnow()
        for row in rows:
            row['created_at'] = now
        session.execute(BINDINGS.insert(), rows)
    for per_port in bindings.values():
        for b in per_port.values():
            b.pop('legacy', None)


def set_binding_host(session, port_ids, host, now):
    return session.execute(PORTS.update().where(
        PORTS.c.id.in_(port_ids)).values(
        binding_host=host, updated_at=now)).rowcount


def _one_port(session, port_id):
    ports = ports_of(session, PORTS.c.id == port_id)
    if not ports:
        raise exception.PortNotFound(port_id=port_id)
    return ports


@ls_db.reader
def get_bindings(context, port_id):
    ports = _one_port(context.session, port_id)
    bindings = _bindings_of(context.session, ports)[port_id]
    return [_binding_dict(b) for _host, b in sorted(bindings.items())]


@ls_db.writer
def create_binding(context, port_id, host, vnic_type=None, profile=None):
    """A new binding of port_id to host: INACTIVE when the port has an
    ACTIVE one, else ACTIVE (and the port bound to host)."""
    session = context.session
    ports = _one_port(session, port_id)
    bindings = _bindings_of(session, ports)
    _write_legacy(session, bindings)
    if host in bindings[port_id]:
        raise exception.PortBindingAlreadyExists(port_id=port_id, host=host)
    _add_bindings(session, bindings, host, timeutils.utcnow(), vnic_type,
                  profile)
    return _binding_dict(bindings[port_id][host])


def _activate(session, port_ids, host, now):
    """Make the (existing) bindings of port_ids to host their ACTIVE
    ones, the others INACTIVE."""
    session.execute(BINDINGS.update().where(
        BINDINGS.c.port_id.in_(port_ids), BINDINGS.c.host != host,
        BINDINGS.c.status == ACTIVE).values(status=INACTIVE, updated_at=now))
    session.execute(BINDINGS.update().where(
        BINDINGS.c.port_id.in_(port_ids), BINDINGS.c.host == host,
        BINDINGS.c.status != ACTIVE).values(status=ACTIVE, updated_at=now))
    set_binding_host(session, port_ids, host, now)


@ls_db.writer
def activate_binding(context, port_id, host):
    session = context.session
    ports = _one_port(session, port_id)
    bindings = _bindings_of(session, ports)
    binding = bindings[port_id].get(host)
    if binding is None:
        raise exception.PortBindingNotFound(port_id=port_id, host=host)
    if binding['status'] == ACTIVE:
        raise exception.PortBindingAlreadyActive(port_id=port_id, host=host)
    _write_legacy(session, bindings)
    _activate(session, [port_id], host, timeutils.utcnow())
    return _binding_dict(dict(binding, status=ACTIVE))


def _delete(session, ports, host, now):
    """Drop the bindings of ports ({id: binding_host}) to host; a port
    whose ACTIVE binding it was is left unbound. How many went."""
    where = (BINDINGS.c.port_id.in_(list(ports)), BINDINGS.c.host == host)
    had = {row.port_id for row in session.execute(
        sa.select(BINDINGS.c.port_id).where(*where))}
    if had:
        session.execute(BINDINGS.delete().where(*where))
    was_active = [p for p, bound in ports.items() if bound == host]
    if was_active:
        set_binding_host(session, was_active, None, now)
    return len(had.union(was_active))


@ls_db.writer
def delete_binding(context, port_id, host):
    session = context.session
    ports = _one_port(session, port_id)
    if host not in _bindings_of(session, ports)[port_id]:
        raise exception.PortBindingNotFound(port_id=port_id, host=host)
    _delete(session, ports, host, timeutils.utcnow())


@ls_db.reader
def instance_bindings(context, instance_uuid):
    """{port id: [bindings]} of the instance's ports."""
    session = context.session
    ports = ports_of(session, PORTS.c.device_id == instance_uuid)
    return {port_id: [_binding_dict(b) for _h, b in sorted(per.items())]
            for port_id, per in _bindings_of(session, ports).items()}


@ls_db.writer
def create_instance_bindings(context, instance_uuid, host, profile=None):
    """A binding to host of each port of the instance that has none
    there (INACTIVE beside an ACTIVE one); {port id: binding to host}."""
    session = context.session
    ports = ports_of(session, PORTS.c.device_id == instance_uuid)
    bindings = _bindings_of(session, ports)
    _write_legacy(session, bindings)
    _add_bindings(session, bindings, host, timeutils.utcnow(),
                  profile=profile)
    return {port_id: _binding_dict(per_port[host])
            for port_id, per_port in bindings.items()}


@ls_db.writer
def activate_instance_bindings(context, instance_uuid, host, down=False):
    """Each port of the instance ACTIVE on host (its binding there made
    if missing), its other bindings INACTIVE; how many ports changed.
    down: the ports that changed go DOWN until plugged on host."""
    session = context.session
    ports = ports_of(session, PORTS.c.device_id == instance_uuid)
    bindings = _bindings_of(session, ports)
    changing = [p for p, per in bindings.items()
                if (per.get(host) or {}).get('status') != ACTIVE]
    if not changing:
        return 0
    _write_legacy(session, bindings)
    now = timeutils.utcnow()
    missing = [_binding_row(p, host, INACTIVE, now) for p in changing
               if host not in bindings[p]]
    if missing:
        session.execute(BINDINGS.insert(), missing)
    _activate(session, changing, host, now)
    if down:
        session.execute(PORTS.update().where(
            PORTS.c.id.in_(changing)).values(status='DOWN'))
    return len(changing)


@ls_db.writer
def delete_instance_bindings(context, instance_uuid, host):
    """Drop the bindings of the instance's ports to host (a port whose
    ACTIVE binding it was is left unbound); how many went."""
    session = context.session
    ports = ports_of(session, PORTS.c.device_id == instance_uuid)
    if not ports:
        return 0
    return _delete(session, ports, host, timeutils.utcnow())
