"""Placement: resource providers, resource classes, inventories,
allocations (claims) and consumers, in the API database.

Same layer as nova_lite.objects: it imports nova_lite.db and plumbing,
never objects, online migrations or services above it. Processes holding
the API DB call it in-process (local.LocalPlacement); computes and cell
conductors reach the same calls over the placement RPC topic
(rpcapi/manager); router.placement_for() picks one.

Invariant: every change of a provider's inventories or allocations moves
its generation, and every change of a consumer's allocations moves the
consumer's generation.
"""
