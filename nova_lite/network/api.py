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

from nova_lite import exception
from nova_lite.network import bindings
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


# The shared network every all-in-one and test plane starts with.
DEFAULT_NETWORK = {
    'id': '3cb9bc59-5699-4588-a4b1-b87f96708bc6',
    'name': 'private',
    'subnet_id': '6d0f3f4e-3a9e-4b47-9d57-47f2d3d6a8a1',
    'cidr': '10.0.0.0/24',
    'gateway_ip': '10.0.0.1',
}


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

    def get_instance_nw_info(self, context, instance_uuid):
        """The network info of the ports bound to the instance."""
        raise NotImplementedError()

    def get_ports(self, context, device_id=None, network_id=None,
                  port_ids=None, project_id=None):
        """Ports (Neutron-shaped dicts) matching every filter given."""
        raise NotImplementedError()

    def bind_ports_to_host(self, context, instance_uuid, host):
        """Bind the instance's ports to host alone (their one, ACTIVE,
        binding). Idempotent."""
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
                                      security_group_ids)
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock) as exc:
                LOG.debug('Port allocation for %s lost a race (%s); '
                          'attempt %d', instance_uuid, exc, attempt)
                _back_off(attempt)
        raise exception.NoMoreFixedIps(net=requested_networks)

    def deallocate_for_instance(self, context, instance_uuid):
        store.deallocate(context, instance_uuid)

    def allocate_port_for_instance(self, context, instance_uuid,
                                   project_id, host, port_id=None,
                                   network_id=None, fixed_ip=None,
                                   security_group_ids=None):
        if security_group_ids is None and not port_id:
            default = security_groups.ensure_default(context, project_id)
            security_group_ids = [default] if default else []
        for attempt in range(1, ALLOCATE_ATTEMPTS + 1):
            try:
                return store.allocate_port(
                    context, instance_uuid, project_id, host, port_id,
                    network_id, fixed_ip, security_group_ids)
            except (db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
                _back_off(attempt)
        raise exception.NoMoreFixedIps(net=network_id)

    def deallocate_port_for_instance(self, context, instance_uuid,
                                     port_id):
        if not store.deallocate_port(context, instance_uuid, port_id):
            raise exception.PortNotFound(port_id=port_id)

    def get_instance_nw_info(self, context, instance_uuid):
        return store.nw_info(context, instance_uuid)

    def get_ports(self, context, device_id=None, network_id=None,
                  port_ids=None, project_id=None):
        return store.get_ports(context, device_id, network_id, port_ids,
                               project_id)

    def bind_ports_to_host(self, context, instance_uuid, host):
        store.bind_to_host(context, instance_uuid, host)

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

    def list_security_group_rules(self, context, ids=None):
        return security_groups.list_rules(context, ids)

    def get_security_group_rule(self, context, rule_id):
        return security_groups.get_rule(context, rule_id)

    def create_security_group_rule(self, context, spec):
        return security_groups.create_rule(context, spec)

    def delete_security_group_rule(self, context, rule_id):
        security_groups.delete_rule(context, rule_id)

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
        return bindings.activate_instance_bindings(context, instance_uuid,
                                                   host)

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

    def ensure_default_network(self, context):
        """Create DEFAULT_NETWORK (shared) unless it exists."""
        spec = DEFAULT_NETWORK
        if store.get_networks(context, [spec['id']], visible_only=False):
            return
        try:
            store.create_network(context, dict(spec, project_id=None,
                                               shared=True))
        except db_exc.DBDuplicateEntry:
            pass   # created concurrently


def _back_off(attempt):
    """A short random pause (yielding to other green threads) so racers
    that collided on an address do not collide again at once."""
    time.sleep(random.uniform(0, min(0.001 * attempt, 0.02)))


def _is_none(requested_networks):
    return (isinstance(requested_networks, str)
            and requested_networks == NONE)
