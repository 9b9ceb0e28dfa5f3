"""The migrate_flavors online migration: legacy flavors of the top-level
cell database move to the API database (flavor_copy does the moving), in
batches, and one at a time before a write (ensure_in_api).

Old (v1) APIs and conductors read flavors only from the legacy tables, so
the migration waits until every one of them reads the API DB (version 2).
"""
from nova_lite import constants
from nova_lite.db import flavor_union
from nova_lite.db.main import legacy_flavors
from nova_lite import exception
from nova_lite.online_migrations import flavor_copy
from nova_lite.online_migrations import registry

# A batch is a fixed number of statements and two commits whatever its
# size; its size bounds how long the batch holds the legacy rows locked
# (a user destroying one of them waits that long). Measurements:
# tools/bench/flavor_migration.py.
FLAVOR_BATCH = 10000


def _legacy_flavors_pending(context):
    """Legacy flavors still read from the top-level cell database."""
    # A schema from before the legacy tables: nothing.
    return registry.count_rows(
        context, 'SELECT count(*) FROM instance_types WHERE deleted = 0') or 0


@registry.register(name='migrate_flavors', batch=FLAVOR_BATCH,
                   needs={constants.API_BINARY: 2,
                          constants.CONDUCTOR_BINARY: 2},
                   pending=_legacy_flavors_pending)
def migrate_flavors(context, max_count):
    """Copy legacy cell-DB flavors (with extra specs and projects) to the
    API DB, then soft-delete them. Returns (found, done).

    Walks the legacy table by id so that flavors left in place for a name
    clash (found, not done) never hold up the ones behind them; stops when
    max_count flavors are done or the table is exhausted. Each batch is one
    flavor_copy.move_batch() (see there for crash and race safety).
    """
    lctx = flavor_union.legacy_context(context)
    if lctx is None:
        return 0, 0
    source = flavor_copy.cross_database_source()
    found = done = 0
    after_id = None
    while done < max_count:
        batch = flavor_copy.read_batch(lctx, after_id=after_id,
                                       limit=max_count - done,
                                       rows=source is None)
        if not batch.flavors:
            break
        after_id = batch.ids[-1]
        batch_found, batch_done = flavor_copy.move_batch(context, lctx,
                                                         batch, source)
        found += batch_found
        done += batch_done
    return found, done


def move_legacy_flavors(context, lctx, ids):
    """Move the legacy flavors with these ids to the API DB (as one
    batch). Returns (found, done)."""
    source = flavor_copy.cross_database_source()
    batch = flavor_copy.read_batch(lctx, ids=list(ids), rows=source is None)
    return flavor_copy.move_batch(context, lctx, batch, source)


def ensure_in_api(context, flavorid):
    """Move the flavor with this flavorid to the API DB if it is only in
    the legacy tables, as a write to it needs. FlavorNotFound if it is in
    neither; FlavorExists if a different API DB flavor has its name."""
    legacy_id = flavor_union.legacy_id_to_move(context, flavorid)
    if legacy_id is None:
        return
    lctx = flavor_union.legacy_context(context)
    found, done = move_legacy_flavors(context, lctx, [legacy_id])
    if done:
        return
    # Not moved by us: moved or destroyed meanwhile, or its name clashes.
    if flavor_union.legacy_id_to_move(context, flavorid) is None:
        return
    raise exception.FlavorExists(
        name=legacy_flavors.get(lctx, 'id', legacy_id)['name'])
