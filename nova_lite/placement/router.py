"""Where a caller's placement calls go: in-process or over RPC.

placement_for(context, gate, remote, auto_cap):
- the context names a placement API (the all-in-one sets one on the
  contexts of its computes and cell conductors): that one;
- remote (the caller runs its object methods through a conductor: a
  compute) or no API DB in this process (a cell conductor): the placement
  RPC topic on the context's cell transport, capped by auto_cap;
- otherwise (API, super conductor, scheduler, nova-lite-manage):
  local.LocalPlacement with the caller's gate.
"""
from nova_lite.db.api import api as api_db
from nova_lite.placement import local
from nova_lite.placement import rpcapi
from nova_lite import rpc


def placement_for(context, gate, remote=False, auto_cap=None):
    api = getattr(context, 'placement_api', None)
    if api is not None:
        return api
    if not remote and api_db.available():
        return local.LocalPlacement(gate)
    return rpcapi.PlacementAPI.for_transport(
        rpc.transport_for_context(context), auto_cap)
