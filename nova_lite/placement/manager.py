"""The placement RPC endpoint: the calls of local.LocalPlacement for
computes and cell conductors (rpcapi has the version history). Whoever
serves it (nova-lite-scheduler, on every cell's transport) holds the API
DB and gives it the compute-node gate."""
import oslo_messaging as messaging

from nova_lite import exception
from nova_lite.placement import local

UNCHECKED = local.UNCHECKED


class PlacementEndpoint(object):
    target = messaging.Target(version='1.1')

    def __init__(self, gate):
        self.local = local.LocalPlacement(gate)

    def _run(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except exception.NovaLiteException:
            # Expected errors (e.g. InvalidInventory) travel back as
            # themselves, without a traceback in this log.
            raise messaging.ExpectedException()

    def get_compute_providers(self, context, uuids, with_gate=False):
        return self._run(self.local.get_compute_providers, context, uuids,
                         with_gate)

    def create_compute_providers(self, context, providers, with_data=True):
        return self._run(self.local.create_compute_providers, context,
                         providers, with_data)

    def update_compute_provider(self, context, uuid, inventories, used):
        return self._run(self.local.update_compute_provider, context, uuid,
                         inventories, used)

    def delete_compute_provider(self, context, uuid):
        return self._run(self.local.delete_compute_provider, context, uuid)

    def claim(self, context, consumer_id, request,
              consumer_generation=UNCHECKED, project_id=None, user_id=None,
              move_to=None, move_to_generation=UNCHECKED):
        return self._run(self.local.claim, context, consumer_id, request,
                         consumer_generation=consumer_generation,
                         project_id=project_id, user_id=user_id,
                         move_to=move_to,
                         move_to_generation=move_to_generation)

    def move_allocations(self, context, source, target,
                         source_generation=UNCHECKED,
                         target_generation=UNCHECKED, project_id=None,
                         user_id=None):
        return self._run(self.local.move_allocations, context, source,
                         target, source_generation=source_generation,
                         target_generation=target_generation,
                         project_id=project_id, user_id=user_id)

    def remove_allocations(self, context, consumer_id,
                           consumer_generation=UNCHECKED):
        return self._run(self.local.remove_allocations, context,
                         consumer_id,
                         consumer_generation=consumer_generation)

    def get_consumer(self, context, consumer_id):
        return self._run(self.local.get_consumer, context, consumer_id)
