"""Views of nova_lite.placement.capacity.read for tests: what they check
reads as {uuid: {'generation', 'inventories'}} or {uuid: usages}."""
from nova_lite.placement import capacity


def get_inventories(ctx, uuids):
    return dict((u, {'generation': d['generation'],
                     'inventories': d['inventories']})
                for u, d in capacity.read(ctx, uuids).items())


def get_usages(ctx, uuids):
    return dict((u, d['usages'])
                for u, d in capacity.read(ctx, uuids).items())
