"""The placement RPC API 1.1 in the running all-in-one plane: a cell
conductor's context (no API DB; placement over its cell's transport)
claims, moves and removes allocations with consumer generations, served
by the scheduler's placement endpoint."""
import pytest

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import capacity
from nova_lite.placement import rpcapi as placement_rpcapi

INSTANCE = 'inst-0000-0000-0000-000000000002'
MIGRATION = 'migr-0000-0000-0000-000000000002'


def test_allocations_over_placement_rpc(plane_no_api):
    plane = plane_no_api
    ctxt = nova_context.get_admin_context()
    cell = plane.cells['cell1']
    with nova_context.target_cell(ctxt, cell) as cctxt:
        source, dest = [n.uuid for n in
                        objects.ComputeNodeList.get_all(cctxt)][:2]
    # What the all-in-one gives its cell conductor: the RPC client.
    conductor = [s for s in plane.services
                 if s.host == 'cell1-conductor'][0]
    api = conductor.context.placement_api
    assert isinstance(api, placement_rpcapi.PlacementAPI)
    context = conductor.context
    flavor = {'VCPU': 1, 'MEMORY_MB': 512}

    assert api.claim(context, INSTANCE, {source: flavor},
                     consumer_generation=None, project_id='p',
                     user_id='u') == {
        source: capacity.read(ctxt, [source])[source]['generation']}
    with pytest.raises(exception.ConsumerGenerationConflict):
        api.claim(context, INSTANCE, {source: flavor},
                  consumer_generation=None)
    api.claim(context, INSTANCE, {dest: flavor}, consumer_generation=1,
              move_to=MIGRATION, move_to_generation=None)
    assert api.get_consumer(context, MIGRATION) == {
        'allocations': {source: flavor}, 'generation': 1,
        'project_id': 'p', 'user_id': 'u'}
    assert api.move_allocations(context, MIGRATION, INSTANCE,
                                source_generation=1,
                                target_generation=2) == {source: flavor}
    assert api.get_consumer(context, INSTANCE)['allocations'] == {
        source: flavor}
    with pytest.raises(exception.ConsumerGenerationConflict):
        api.remove_allocations(context, INSTANCE, consumer_generation=2)
    assert api.remove_allocations(context, INSTANCE,
                                  consumer_generation=3) == 2
    assert api.get_consumer(context, INSTANCE) == {
        'allocations': {}, 'generation': None, 'project_id': None,
        'user_id': None}
