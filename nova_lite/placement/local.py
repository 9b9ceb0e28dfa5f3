"""The placement calls, run in this process (which holds the API DB).

The placement RPC endpoint (manager) delegates here, so computes and cell
conductors get exactly the behaviour of in-process callers. Creating a
compute node's provider is gated: gate(context) returns None when nodes
may get providers, else what it waits for (the caller's service-version
rule; placement does not know services).
"""
from oslo_log import log as logging

from nova_lite.placement import allocations
from nova_lite.placement import capacity
from nova_lite.placement import hosts

LOG = logging.getLogger(__name__)
UNCHECKED = allocations.UNCHECKED


class LocalPlacement(object):

    def __init__(self, gate):
        self._gate_fn = gate

    def gate_blocked(self, context):
        """None when the gate is open, else why not (an error reading it
        keeps it closed)."""
        try:
            return self._gate_fn(context)
        except Exception as exc:
            return 'service versions unknown (%s)' % exc

    def _gate(self, context, uuids, found, with_gate):
        # Looked up only when asked or when some uuid has no provider, so
        # reading migrated nodes costs one query.
        if with_gate or len(found) < len(set(u for u in uuids if u)):
            return self.gate_blocked(context) is None
        return None

    # --- compute nodes (RPC 1.0) ---------------------------------------

    def get_compute_providers(self, context, uuids, with_gate=False):
        """{'providers': {uuid: capacity.read data of the host classes},
        'gate_open': bool or None (not looked up)}."""
        found = hosts.read_hosts(context, uuids)
        return {'providers': found,
                'gate_open': self._gate(context, uuids, found, with_gate)}

    def get_compute_rows(self, context, uuids, build, with_gate=False):
        """As get_compute_providers, but {'values': {uuid: build(row)},
        'gate_open'} with rows as capacity.read_rows gives them for
        hosts.HOST_CLASSES: for in-process loads of many nodes only."""
        found = capacity.read_rows(context, uuids, hosts.HOST_CLASSES,
                                   build)
        return {'values': found,
                'gate_open': self._gate(context, uuids, found, with_gate)}

    def create_compute_providers(self, context, providers, with_data=True):
        """Create missing providers (with inventories and host usage) if
        the gate is open. {'gate_open', 'providers': {uuid: data (None
        without with_data)} of those that now exist, 'invalid': {uuid:
        message}}."""
        blocked = self.gate_blocked(context)
        if blocked:
            LOG.info('Compute nodes keep their legacy capacity columns: '
                     '%s', blocked)
            return {'gate_open': False, 'providers': {}, 'invalid': {}}
        result = hosts.create_host_providers(context, providers)
        present = result['created'] + result['existing']
        if with_data:
            data = capacity.read(context, present)
        else:
            data = dict.fromkeys(present)
        return {'gate_open': True, 'providers': data,
                'invalid': result['invalid']}

    def update_compute_provider(self, context, uuid, inventories, used):
        """{'provider': data} after writing, or {'provider': None,
        'gate_open': bool} when the node has no provider yet."""
        data = hosts.update_host_provider(context, uuid, inventories, used)
        if data is not None:
            return {'provider': data}
        return {'provider': None,
                'gate_open': self.gate_blocked(context) is None}

    def delete_compute_provider(self, context, uuid):
        hosts.delete_host_provider(context, uuid)

    # --- allocations and consumers (RPC 1.1) -----------------------------

    def claim(self, context, consumer_id, request,
              consumer_generation=UNCHECKED, project_id=None, user_id=None,
              move_to=None, move_to_generation=UNCHECKED):
        return allocations.claim(
            context, consumer_id, request,
            consumer_generation=consumer_generation, project_id=project_id,
            user_id=user_id, move_to=move_to,
            move_to_generation=move_to_generation)

    def move_allocations(self, context, source, target,
                         source_generation=UNCHECKED,
                         target_generation=UNCHECKED, project_id=None,
                         user_id=None):
        return allocations.move_allocations(
            context, source, target, source_generation=source_generation,
            target_generation=target_generation, project_id=project_id,
            user_id=user_id)

    def remove_allocations(self, context, consumer_id,
                           consumer_generation=UNCHECKED):
        return allocations.remove_allocations(
            context, consumer_id, consumer_generation=consumer_generation)

    def get_consumer(self, context, consumer_id):
        return allocations.get_consumer(context, consumer_id)
