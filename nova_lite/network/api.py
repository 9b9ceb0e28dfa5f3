"""The embedded network service: networks, subnets and ports with fixed
IPv4 addresses, in the local-services database. It stands in for Neutron.

``NetworkAPI`` is the interface the compute API (checking a boot request)
and the computes (allocating and freeing ports) call; ``API`` implements
it on the local-services database. A client of a real Neutron can
implement the same methods and replace ``API``: callers see only plain
dicts (ports as Neutron shows them, network info as nova_lite.network.model
describes) and the exceptions named below.

Requested networks, as callers pass them:

- ``'none'``: no port at all;
- ``'auto'`` (and None, a request that names no network): one port on the
  project's network if it has exactly one, else on the shared network if
  there is exactly one; more than one -> NetworkAmbiguous (409); none ->
  UnableToAutoAllocateNetwork (400) for 'auto', no port for None;
- a list of ``{'uuid': network_id}``, ``{'uuid': network_id, 'fixed_ip':
  address}`` or ``{'port': port_id}``, one port per entry, in order.

Invariants:
- A fixed IP is unique per network (UNIQUE (network_id, fixed_ip)); an
  allocation takes the lowest free address of the network's subnet (the
  gateway excluded). Allocations on one network take turns (its row is
  locked until commit); should one still lose an address (or a MAC, or
  hit a deadlock) it retries in a new transaction.
- Every port of one allocation is created or bound in one transaction:
  after a crash an instance has all its ports or none, and allocating
  again returns the ports already bound to it (idempotent).
- Deallocating deletes the ports made for the instance and unbinds the
  ports the user brought (preserve_on_delete); doing it twice is a no-op.

Port bindings (Neutron's "binding-extended" multiple port bindings): a
port has one binding per host it is bound to, at most one of them
ACTIVE; the port's ``binding:host_id`` is the ACTIVE one's host. A move
creates an INACTIVE binding for the destination (create_binding),
activates it when the guest gets there (activate_binding: the source's
becomes INACTIVE), and deletes the one it leaves (delete_binding). The
port-level methods raise as Neutron answers (PortBindingAlreadyExists
409, PortBindingAlreadyActive 409, PortBindingNotFound 404); the
instance-level ones (*_instance_bindings) act on every port of an
instance and are idempotent, so a step rerun after a crash finds its
work done instead of failing. A binding is a dict {'host', 'status'
('ACTIVE'/'INACTIVE'), 'vif_type', 'vnic_type', 'profile',
'vif_details'}.
"""
import ipaddress
import random
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.network import bindings
from nova_lite.network import floating_ips
from nova_lite.network import nova_events
from nova_lite.network import security_groups
from nova_lite.network import store

LOG = logging.getLogger(__name__)

AUTO = store.AUTO
NONE = 'none'
DEVICE_OWNER = store.DEVICE_OWNER
# Allocations that lost a race for an address (or a MAC, or a deadlock)
# try again: each lost race means another allocation succeeded, so N
# concurrent allocations on one network need at most N attempts.
ALLOCATE_ATTEMPTS = 64

# The instance's system metadata key holding the ids of the security
# groups its create asked for (a JSON list), written by the compute API
# and applied by the compute to the ports it makes; absent: the
# project's default group.
SECURITY_GROUPS_KEY = 'network_security_group_ids'


def instance_security_group_ids(system_metadata):
    """The group ids recorded in an instance's system metadata, or None
    (the default group)."""
    raw = (system_metadata or {}).get(SECURITY_GROUPS_KEY)
    if not raw:
        return None
    return jsonutils.loads(raw)


# The shared network every all-in-one and test plane starts with (its
# cidr and gateway_ip: [local_services] private_network_cidr's default).
DEFAULT_NETWORK = {
    'id': '3cb9bc59-5699-4588-a4b1-b87f96708bc6',
    'name': 'private',
    'subnet_id': '6d0f3f4e-3a9e-4b47-9d57-47f2d3d6a8a1',
    'cidr': '10.0.0.0/24',
    'gateway_ip': '10.0.0.1',
}
# The external network made beside it ([local_services]
# public_network_cidr and public_network_name): the floating IP pool.
PUBLIC_NETWORK_ID = 'd5ab7d93-5b4f-4d1e-8c37-1e5a0c2d9f10'
PUBLIC_SUBNET_ID = '0c9b55ad-7a2b-4a8e-9f3d-2b6c1e4f8a20'


class NetworkAPI(object):
    """What nova_lite needs of a network service (see the module doc)."""

    def validate_networks(self, context, requested_networks):
        """Check a boot request's networks for context's project.

        Returns the requests resolved to [{'network_id', 'port_id',
        'fixed_ip'}] ([] for 'none'). Raises NetworkNotFound, PortNotFound,
        PortInUse, FixedIpInvalid, FixedIpAlreadyInUse, NetworkAmbiguous,
        UnableToAutoAllocateNetwork.
        """
        raise NotImplementedError()

    def allocate_for_instance(self, context, instance_uuid, project_id,
                              requested_networks, host,
                              security_group_ids=None):
        """Create or bind the instance's ports on host; return its network
        info (a list of VIFs). Idempotent per instance. The ports made
        get security_group_ids (None: the project's default group)."""
        raise NotImplementedError()

    def allocate_port_for_instance(self, context, instance_uuid,
                                   project_id, host, port_id=None,
                                   network_id=None, fixed_ip=None,
                                   security_group_ids=None):
        """One more port for the instance (an interface attach): the
        user's port_id, or a new port on network_id (fixed_ip, the
        groups as allocate_for_instance), bound to host. Returns its
        VIF. PortNotFound, PortInUse, NetworkNotFound, FixedIpInvalid,
        FixedIpAlreadyInUse."""
        raise NotImplementedError()

    def deallocate_port_for_instance(self, context, instance_uuid,
                                     port_id):
        """Free one of the instance's ports (deleted when made for it,
        else unbound); PortNotFound when it has no such port."""
        raise NotImplementedError()

    # --- security groups (Neutron: /v2.0/security-groups) -----------------

    def resolve_security_groups(self, context, project_id, names):
        """The ids of a boot request's groups (names or ids), in order;
        SecurityGroupNotFoundForProject (400), SecurityGroupNotUnique."""
        raise NotImplementedError()

    def find_security_group(self, context, project_id, name_or_id):
        """The group project_id knows as name_or_id (with its rules);
        SecurityGroupNotFound, SecurityGroupNotUnique."""
        raise NotImplementedError()

    def get_instances_security_groups(self, context, instance_uuids):
        """{uuid: [{'id', 'name', 'description', 'project_id'}]}: the
        groups of each instance's ports (instances without ports
        absent)."""
        raise NotImplementedError()

    def add_security_group_to_instance(self, context, instance_uuid,
                                       group_id):
        """Apply the group to every port of the instance;
        SecurityGroupNotFound when it has none."""
        raise NotImplementedError()

    def remove_security_group_from_instance(self, context, instance_uuid,
                                            group_id, group_name):
        """Take it off; SecurityGroupNotExistsForInstance when no port
        of the instance had it."""
        raise NotImplementedError()

    def deallocate_for_instance(self, context, instance_uuid):
        """Free the instance's ports (idempotent)."""
        raise NotImplementedError()

    def ports_plugged(self, context, instance_uuid, port_ids, host):
        """What the host's agent says once it plugged the VIFs of
        port_ids: those bound to the instance on host and still DOWN
        become ACTIVE, and network-vif-plugged is sent for each of them
        to the compute API (nova_lite.network.nova_events). Returns
        their ids."""
        raise NotImplementedError()

    def ports_plugged_info(self, context, instance_uuid, port_ids, host):
        """ports_plugged, then (the instance's network info, {port id:
        the port as get_ports shows it} of port_ids) as they are once
        plugged."""
        raise NotImplementedError()

    def plugs_announced(self):
        """Whether network-vif-plugged comes once a port is plugged (the
        embedded service: when it can reach the compute API,
        nova_lite.network.nova_events; a Neutron: always)."""
        raise NotImplementedError()

    def bindings_plugged(self, context, instance_uuid, host):
        """What host's agent says once it plugged the VIFs of the
        instance's ports for their binding to host that is not (yet)
        the active one (a live migration's destination preparing):
        network-vif-plugged is sent for each port bound there, as
        ports_plugged sends it; the ports' status does not change.
        Returns their ids ([] where plugs are not announced)."""
        raise NotImplementedError()

    def ports_unplugged(self, context, instance_uuid, port_ids, host):
        """What the host's agent says once the VIFs of port_ids are
        unplugged (a hard reboot): those bound to the instance on host
        and ACTIVE go DOWN, where plugs are announced (nova_events), to
        come ACTIVE with their network-vif-plugged at the next
        ports_plugged. Returns their ids ([] where plugs are not
        announced)."""
        raise NotImplementedError()

    def get_instance_nw_info(self, context, instance_uuid):
        """The network info of the ports bound to the instance."""
        raise NotImplementedError()

    def get_ports(self, context, device_id=None, network_id=None,
                  port_ids=None, project_id=None):
        """Ports (Neutron-shaped dicts) matching every filter given."""
        raise NotImplementedError()

    def bind_ports_to_host(self, context, instance_uuid, host):
        """Bind the instance's ports to host alone (their one, ACTIVE,
        binding). Idempotent. Returns the ids of the ports DOWN until
        plugged on this host (those that moved from another host, or
        were not plugged yet) where plugs are announced (nova_events),
        else []."""
        raise NotImplementedError()

    # --- port bindings (Neutron: /v2.0/ports/{id}/bindings) ---------------

    def get_bindings(self, context, port_id):
        """The port's bindings, by host. PortNotFound."""
        raise NotImplementedError()

    def create_binding(self, context, port_id, host, vnic_type=None,
                       profile=None):
        """A binding of the port to host, INACTIVE when the port has an
        ACTIVE one (else ACTIVE); returns it. PortNotFound,
        PortBindingAlreadyExists."""
        raise NotImplementedError()

    def activate_binding(self, context, port_id, host):
        """The port's binding to host becomes its ACTIVE one (the one
        active before becomes INACTIVE); returns it. PortNotFound,
        PortBindingNotFound, PortBindingAlreadyActive."""
        raise NotImplementedError()

    def delete_binding(self, context, port_id, host):
        """Delete the port's binding to host (when it was the ACTIVE
        one, the port is left unbound). PortNotFound,
        PortBindingNotFound."""
        raise NotImplementedError()

    # The instance-level forms, idempotent, written on the port-level
    # ones (API does each in one transaction).

    def _instance_port_ids(self, context, instance_uuid):
        return [p['id'] for p in self.get_ports(context,
                                                device_id=instance_uuid)]

    def get_instance_bindings(self, context, instance_uuid):
        """{port id: [bindings]} of the instance's ports."""
        found = {}
        for port_id in self._instance_port_ids(context, instance_uuid):
            try:
                found[port_id] = self.get_bindings(context, port_id)
            except exception.PortNotFound:
                pass
        return found

    def create_instance_bindings(self, context, instance_uuid, host,
                                 profile=None):
        """A binding to host of each of the instance's ports that has
        none there (INACTIVE beside the ACTIVE one); {port id: its
        binding to host}."""
        made = {}
        for port_id in self._instance_port_ids(context, instance_uuid):
            try:
                made[port_id] = self.create_binding(context, port_id, host,
                                                    profile=profile)
            except exception.PortBindingAlreadyExists:
                made[port_id] = [b for b in self.get_bindings(
                    context, port_id) if b['host'] == host][0]
            except exception.PortNotFound:
                pass
        return made

    def activate_instance_bindings(self, context, instance_uuid, host):
        """Each of the instance's ports ACTIVE on host (a missing
        binding there made first); how many changed."""
        changed = 0
        for port_id in self._instance_port_ids(context, instance_uuid):
            try:
                try:
                    self.activate_binding(context, port_id, host)
                except exception.PortBindingNotFound:
                    self.create_binding(context, port_id, host)
                    self.activate_binding(context, port_id, host)
                changed += 1
            except (exception.PortBindingAlreadyActive,
                    exception.PortNotFound):
                pass
        return changed

    def delete_instance_bindings(self, context, instance_uuid, host):
        """Delete the bindings of the instance's ports to host; how many
        went."""
        gone = 0
        for port_id in self._instance_port_ids(context, instance_uuid):
            try:
                self.delete_binding(context, port_id, host)
                gone += 1
            except (exception.PortBindingNotFound, exception.PortNotFound):
                pass
        return gone


class API(NetworkAPI):
    """NetworkAPI on the local-services database."""

    # --- boot requests -----------------------------------------------------

    def validate_networks(self, context, requested_networks):
        if _is_none(requested_networks):
            return []
        return store.resolve(context, context.project_id, requested_networks)

    def allocate_for_instance(self, context, instance_uuid, project_id,
                              requested_networks, host,
                              security_group_ids=None):
        if _is_none(requested_networks):
            return []
        if security_group_ids is None:
            default = security_groups.ensure_default(context, project_id)
            security_group_ids = [default] if default else []
        for attempt in range(1, ALLOCATE_ATTEMPTS + 1):
            try:
                return store.allocate(context, instance_uuid, project_id,
                                      requested_networks, host,
                                      security_group_ids, _bound_status())
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock) as exc:
                LOG.debug('Port allocation for %s lost a race (%s); '
                          'attempt %d', instance_uuid, exc, attempt)
                _back_off(attempt)
            except db_exc.DBConnectionError:
                # A database that refused a connection at once (a burst
                # of them on a loaded server): the allocation is
                # idempotent (an instance's ports are answered as they
                # are), so it is tried again.
                if attempt == ALLOCATE_ATTEMPTS:
                    raise
                _back_off(attempt)
        raise exception.NoMoreFixedIps(net=requested_networks)

    def deallocate_for_instance(self, context, instance_uuid):
        store.deallocate(context, instance_uuid)
        nova_events.drop_pending(instance_uuid)

    def allocate_port_for_instance(self, context, instance_uuid,
                                   project_id, host, port_id=None,
                                   network_id=None, fixed_ip=None,
                                   security_group_ids=None):
        # security_group_ids None: the project's default group, found
        # (or made) in the allocation's transaction; a racing first use
        # is a duplicate, tried again.
        for attempt in range(1, ALLOCATE_ATTEMPTS + 1):
            try:
                return store.allocate_port(
                    context, instance_uuid, project_id, host, port_id,
                    network_id, fixed_ip, security_group_ids,
                    _bound_status())
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
                _back_off(attempt)
        raise exception.NoMoreFixedIps(net=network_id)

    def deallocate_port_for_instance(self, context, instance_uuid,
                                     port_id):
        if not store.deallocate_port(context, instance_uuid, port_id):
            raise exception.PortNotFound(port_id=port_id)
        nova_events.drop_pending(instance_uuid, [port_id])

    def ports_plugged(self, context, instance_uuid, port_ids, host):
        plugged = store.set_active(context, instance_uuid, port_ids, host)
        nova_events.vif_plugged_later(instance_uuid, plugged)
        return plugged

    def ports_plugged_info(self, context, instance_uuid, port_ids, host):
        plugged, info, ports = store.set_active_and_read(
            context, instance_uuid, port_ids, host)
        nova_events.vif_plugged_later(instance_uuid, plugged)
        return info, ports

    def plugs_announced(self):
        return nova_events.sends_events()

    def bindings_plugged(self, context, instance_uuid, host):
        if not nova_events.sends_events():
            return []
        bound = [port_id for port_id, per_port in bindings.instance_bindings(
            context, instance_uuid).items()
            if any(b['host'] == host for b in per_port)]
        nova_events.vif_plugged_later(instance_uuid, bound)
        return bound

    def ports_unplugged(self, context, instance_uuid, port_ids, host):
        if not nova_events.sends_events():
            return []
        return store.set_down(context, instance_uuid, port_ids, host)

    def get_instance_nw_info(self, context, instance_uuid):
        return store.nw_info(context, instance_uuid)

    def get_ports(self, context, device_id=None, network_id=None,
                  port_ids=None, project_id=None):
        return store.get_ports(context, device_id, network_id, port_ids,
                               project_id)

    def bind_ports_to_host(self, context, instance_uuid, host):
        return store.bind_to_host(context, instance_uuid, host,
                                  down=nova_events.sends_events())

    # --- security groups ---------------------------------------------------

    def resolve_security_groups(self, context, project_id, names):
        return security_groups.resolve(context, project_id, names)

    def find_security_group(self, context, project_id, name_or_id):
        security_groups.ensure_default(context, project_id)
        return security_groups.find(context, project_id, name_or_id)

    def get_instances_security_groups(self, context, instance_uuids):
        return security_groups.instance_groups(context, instance_uuids)

    def add_security_group_to_instance(self, context, instance_uuid,
                                       group_id):
        security_groups.add_to_instance(context, instance_uuid, group_id)

    def remove_security_group_from_instance(self, context, instance_uuid,
                                            group_id, group_name):
        security_groups.remove_from_instance(context, instance_uuid,
                                             group_id, group_name)

    def list_security_groups(self, context, project_id=None, ids=None,
                             name=None):
        """Visible groups (the caller's project's default made first)."""
        security_groups.ensure_default(context, context.project_id)
        return security_groups.list_groups(context, project_id, ids, name)

    def get_security_group(self, context, group_id):
        return security_groups.get_group(context, group_id)

    def create_security_group(self, context, name, description=None,
                              project_id=None):
        return security_groups.create_group(
            context, project_id or context.project_id, name, description)

    def delete_security_group(self, context, group_id):
        security_groups.delete_group(context, group_id)

    def update_security_group(self, context, group_id, name=None,
                              description=None):
        return security_groups.update_group(context, group_id, name,
                                            description)

    def list_security_group_rules(self, context, ids=None):
        return security_groups.list_rules(context, ids)

    def get_security_group_rule(self, context, rule_id):
        return security_groups.get_rule(context, rule_id)

    def create_security_group_rule(self, context, spec):
        return security_groups.create_rule(context, spec)

    def delete_security_group_rule(self, context, rule_id):
        security_groups.delete_rule(context, rule_id)

    # --- floating IPs (Neutron: /v2.0/floatingips) ------------------------

    def get_floating_ip_pools(self, context):
        """The external networks ({'id', 'name'})."""
        return floating_ips.pools(context)

    def allocate_floating_ip(self, context, pool=None):
        """A floating IP of context's project from pool (a name or id;
        None: the default one); FloatingIpPoolNotFound (404),
        NoMoreFloatingIps (404)."""
        for attempt in range(1, ALLOCATE_ATTEMPTS + 1):
            try:
                return floating_ips.allocate(
                    context, pool, CONF.local_services.public_network_name)
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
                _back_off(attempt)
            except db_exc.DBConnectionError:
                # As oslo.db's retry_on_disconnect: nearly always a
                # connection refused before any work (a loaded server's
                # burst); at worst a commit whose answer was lost leaves
                # the project one more address, which it can release.
                if attempt == ALLOCATE_ATTEMPTS:
                    raise
                _back_off(attempt)
        raise exception.NoMoreFloatingIps()

    def get_floating_ip(self, context, floating_ip_id):
        return floating_ips.get(context, floating_ip_id)

    def get_floating_ip_by_address(self, context, address):
        return floating_ips.get_by_address(context, address)

    def get_floating_ips_by_project(self, context):
        return floating_ips.list_for_project(context, context.project_id)

    def release_floating_ip(self, context, floating_ip_id):
        """Delete it, associated or not; returns it as it was."""
        return floating_ips.release(context, floating_ip_id)

    def associate_floating_ip(self, context, address, instance_uuid,
                              fixed_address):
        """Returns the floating IP as it was (instance_id: the server it
        left, if any)."""
        try:
            return floating_ips.associate(context, address, instance_uuid,
                                          fixed_address)
        except db_exc.DBDuplicateEntry:
            raise exception.FloatingIpAssociateFailed(address=address)

    def disassociate_floating_ip(self, context, address):
        return floating_ips.disassociate(context, address)

    # --- port bindings -----------------------------------------------------

    def get_bindings(self, context, port_id):
        return bindings.get_bindings(context, port_id)

    def create_binding(self, context, port_id, host, vnic_type=None,
                       profile=None):
        return bindings.create_binding(context, port_id, host, vnic_type,
                                       profile)

    def activate_binding(self, context, port_id, host):
        return bindings.activate_binding(context, port_id, host)

    def delete_binding(self, context, port_id, host):
        bindings.delete_binding(context, port_id, host)

    def get_instance_bindings(self, context, instance_uuid):
        return bindings.instance_bindings(context, instance_uuid)

    def create_instance_bindings(self, context, instance_uuid, host,
                                 profile=None):
        return bindings.create_instance_bindings(context, instance_uuid,
                                                 host, profile)

    def activate_instance_bindings(self, context, instance_uuid, host):
        return bindings.activate_instance_bindings(
            context, instance_uuid, host, down=nova_events.sends_events())

    def delete_instance_bindings(self, context, instance_uuid, host):
        return bindings.delete_instance_bindings(context, instance_uuid, host)

    # --- networks and ports (what Neutron's API would offer) ---------------

    def create_network(self, context, name, cidr, gateway_ip=None,
                       project_id=None, shared=False, network_id=None,
                       subnet_id=None):
        """A network with one IPv4 subnet; returns it as get_networks
        does. gateway_ip defaults to the subnet's first address."""
        net = ipaddress.ip_network(cidr)
        if gateway_ip is None:
            gateway_ip = str(next(net.hosts()))
        return store.create_network(context, {
            'id': network_id or uuidutils.generate_uuid(), 'name': name,
            'project_id': project_id, 'shared': shared,
            'subnet_id': subnet_id or uuidutils.generate_uuid(),
            'cidr': str(net), 'gateway_ip': gateway_ip})

    def get_networks(self, context, network_ids=None):
        """Networks context's project may use ({'id', 'name',
        'project_id', 'shared', 'subnets': [{'id', 'cidr', 'gateway_ip',
        'ip_version'}]}), by name."""
        return store.get_networks(context, network_ids)

    def create_port(self, context, network_id, fixed_ip=None,
                    project_id=None):
        """An unbound port (as a user creates one to boot with): kept, not
        deleted, when the instance it is bound to goes away."""
        project_id = project_id or context.project_id
        default = security_groups.ensure_default(context, project_id)
        for attempt in range(1, ALLOCATE_ATTEMPTS + 1):
            try:
                return store.create_port(context, network_id, fixed_ip,
                                         project_id,
                                         [default] if default else [])
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
                _back_off(attempt)
        raise exception.NoMoreFixedIps(net=network_id)

    def add_network(self, context, name, project_id=None, shared=False):
        """A network without subnets (Neutron's network create)."""
        return store.add_network(context, uuidutils.generate_uuid(), name,
                                 project_id or context.project_id, shared)

    def add_subnet(self, context, network_id, cidr, gateway_ip=None):
        """(network, subnet): an IPv4 subnet added to the caller's
        network; gateway_ip defaults to the first address."""
        net = ipaddress.ip_network(cidr)
        if gateway_ip is None:
            gateway_ip = str(next(net.hosts()))
        return store.add_subnet(context, network_id,
                                uuidutils.generate_uuid(), str(net),
                                gateway_ip)

    def delete_subnet(self, context, subnet_id):
        store.delete_subnet(context, subnet_id)

    def delete_network(self, context, network_id):
        store.delete_network(context, network_id)

    def delete_port(self, context, port_id):
        """Delete an unbound port (409 while a server has it)."""
        store.delete_port(context, port_id)

    def ensure_default_network(self, context):
        """Create DEFAULT_NETWORK (shared, on [local_services]
        private_network_cidr) and the external network of
        [local_services] public_network_cidr (when set) unless they
        exist."""
        private = ipaddress.ip_network(
            CONF.local_services.private_network_cidr)
        specs = [dict(DEFAULT_NETWORK, project_id=None, shared=True,
                      cidr=str(private),
                      gateway_ip=str(next(private.hosts())))]
        cidr = CONF.local_services.public_network_cidr
        if cidr:
            net = ipaddress.ip_network(cidr)
            specs.append({
                'id': PUBLIC_NETWORK_ID, 'subnet_id': PUBLIC_SUBNET_ID,
                'name': CONF.local_services.public_network_name,
                'cidr': str(net), 'gateway_ip': str(next(net.hosts())),
                'project_id': None, 'shared': False, 'external': True})
        for spec in specs:
            if store.get_networks(context, [spec['id']],
                                  visible_only=False):
                continue
            try:
                store.create_network(context, spec)
            except db_exc.DBDuplicateEntry:
                pass   # created concurrently


def _bound_status():
    """A port bound to a host starts DOWN where its plug is announced
    (network-vif-plugged, once the compute reports it plugged), else
    ACTIVE."""
    return 'DOWN' if nova_events.sends_events() else 'ACTIVE'


def _back_off(attempt):
    """A random pause (yielding to other green threads) so racers that
    collided on an address do not collide again at once: its ceiling
    doubles with each attempt, from 2 ms to a quarter of a second (on a
    loaded database one racer's transaction may take that long)."""
    time.sleep(random.uniform(0, min(0.002 * 2 ** min(attempt, 7), 0.25)))


def _is_none(requested_networks):
    return (isinstance(requested_networks, str)
            and requested_networks == NONE)
