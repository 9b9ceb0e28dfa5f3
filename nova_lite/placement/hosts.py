"""Compute hosts as providers: a provider per compute node (uuid = the
node's uuid) with its inventories and its "host usage", one allocation
per class whose consumer is the node itself, holding what the hypervisor
measures beyond reserved and every other consumer's allocations.

What the classes mean for a node (fields, ratios, PCI, NUMA) is the
ComputeNode object's business (nova_lite.objects.compute_inventory);
here are the writes that keep a provider, its inventories and its host
usage consistent, each in one API DB transaction.
"""
import os_resource_classes as orc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import capacity
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers

LOG = logging.getLogger(__name__)

RP, INV, RC, ALLOC = providers.RP, providers.INV, providers.RC, \
    providers.ALLOC
# The classes behind a node's capacity fields, in the order of their
# columns in capacity rows read for them.
HOST_CLASSES = (orc.VCPU, orc.MEMORY_MB, orc.DISK_GB)
LOCK_RETRIES = 20


def _retrying(fn):
    """fn() in fresh transactions until it does not fail transiently; a
    concurrent creator's duplicate key counts (the next attempt sees its
    rows)."""
    return placement_db.retrying(placement_db.duplicates_retry(fn),
                                 LOCK_RETRIES)


def read_hosts(ctx, uuids):
    """capacity.read of HOST_CLASSES: what a node's fields come from."""
    return capacity.read(ctx, uuids, HOST_CLASSES)


def _host_usage_rows(provider_id, uuid, used, inventories, class_ids,
                     others=None):
    rows = []
    for rc, amount in sorted(used.items()):
        inv = inventories.get(rc)
        if inv is None:
            continue
        own = amount - inv['reserved'] - (others or {}).get(rc, 0)
        if own > 0:
            rows.append({'resource_provider_id': provider_id,
                         'consumer_id': uuid,
                         'resource_class_id': class_ids[rc], 'used': own})
    return rows


def create_host_providers(ctx, items):
    """Create the providers of items [{'uuid', 'name', 'inventories',
    'used'}] that do not exist yet, each with its inventories and host
    usage allocation, all in ONE API DB transaction (a provider is never
    seen without its inventories or usage). Existing uuids are skipped:
    someone created them first, which callers count as done.

    Returns {'created': [uuids], 'existing': [uuids], 'invalid': {uuid:
    message}}; invalid items (InvalidInventory) are left out, the others
    still created.
    """
    wanted, invalid = {}, {}
    for item in items:
        try:
            wanted[item['uuid']] = (item['name'],
                                    providers.validate_inventories(
                                        item['inventories']),
                                    item.get('used') or {})
        except exception.InvalidInventory as exc:
            invalid[item['uuid']] = exc.format_message()
    if not wanted:
        return {'created': [], 'existing': [], 'invalid': invalid}
    class_ids = providers.resource_class_ids(
        ctx, sorted({rc for _, invs, _ in wanted.values() for rc in invs}))

    def once():
        with placement_db.writing(ctx) as session:
            new, existing, ids = providers.insert_missing_providers(
                session, wanted, class_ids)
            usage = [row for u in new for row in _host_usage_rows(
                ids[u], u, wanted[u][2], wanted[u][1], class_ids)]
            if usage:
                session.execute(ALLOC.insert(), usage)
            return new, sorted(existing)

    new, existing = _retrying(once)
    return {'created': new, 'existing': existing, 'invalid': invalid}


def write_host_usage(ctx, uuid, used):
    """Set the node's own allocation to what its hypervisor measures beyond
    reserved and every other consumer's allocations; bumps the provider
    generation when it changes (so concurrent claims re-check). Returns
    False when there is no provider."""
    def once():
        with placement_db.writing(ctx) as session:
            # Lock the provider row before reading (row lock on MariaDB and
            # PostgreSQL, the write lock on SQLite): claims and other
            # reports wait, so "others" cannot move under us.
            if not session.execute(RP.update().where(
                    RP.c.uuid == uuid).values(
                        generation=RP.c.generation)).rowcount:
                return False
            provider_id = session.execute(sa.select(RP.c.id).where(
                RP.c.uuid == uuid)).scalar_one()
            inventories, class_ids, names = {}, {}, {}
            for name, rc_id, reserved in session.execute(
                    sa.select(RC.c.name, INV.c.resource_class_id,
                              INV.c.reserved)
                    .select_from(INV.join(
                        RC, RC.c.id == INV.c.resource_class_id))
                    .where(INV.c.resource_provider_id == provider_id)):
                inventories[name] = {'reserved': reserved}
                class_ids[name] = rc_id
                names[rc_id] = name
            mine, others = {}, {}
            for consumer, rc_id, amount in session.execute(
                    sa.select(ALLOC.c.consumer_id,
                              ALLOC.c.resource_class_id, ALLOC.c.used)
                    .where(ALLOC.c.resource_provider_id == provider_id)):
                if rc_id not in names:
                    continue
                target = mine if consumer == uuid else others
                target[names[rc_id]] = target.get(names[rc_id], 0) + amount
            rows = _host_usage_rows(provider_id, uuid, used, inventories,
                                    class_ids, others)
            if {names[r['resource_class_id']]: r['used']
                    for r in rows} == mine:
                return True
            session.execute(ALLOC.delete().where(
                ALLOC.c.resource_provider_id == provider_id,
                ALLOC.c.consumer_id == uuid))
            if rows:
                session.execute(ALLOC.insert(), rows)
            session.execute(RP.update().where(RP.c.id == provider_id)
                            .values(generation=RP.c.generation + 1,
                                    updated_at=timeutils.utcnow()))
            return True

    return _retrying(once)


def _drop_host_usage_outside(ctx, uuid, classes):
    """Remove the node's own allocations of classes it no longer offers
    (e.g. DISK_GB once its ephemeral storage is shared), so that the
    inventory can go; other consumers' allocations still block that."""
    def once():
        with placement_db.writing(ctx) as session:
            keep = sa.select(RC.c.id).where(RC.c.name.in_(classes))
            if session.execute(ALLOC.delete().where(
                    ALLOC.c.consumer_id == uuid,
                    ALLOC.c.resource_provider_id.in_(
                        sa.select(RP.c.id).where(RP.c.uuid == uuid)),
                    ALLOC.c.resource_class_id.not_in(keep))).rowcount:
                session.execute(RP.update().where(RP.c.uuid == uuid)
                                .values(generation=RP.c.generation + 1,
                                        updated_at=timeutils.utcnow()))
    _retrying(once)


def update_host_provider(ctx, uuid, inventories, used):
    """Replace the provider's inventories and host usage; returns its data
    (capacity.read, every class) or None when it has no provider. Raises
    InvalidInventory with nothing written, InventoryInUse when another
    consumer still allocates from a class the node stopped offering."""
    inventories = providers.validate_inventories(inventories)
    _drop_host_usage_outside(ctx, uuid, sorted(inventories))
    try:
        providers.set_inventories(ctx, uuid, inventories)
    except exception.ResourceProviderNotFound:
        return None
    if not write_host_usage(ctx, uuid, used):
        return None
    return capacity.read(ctx, [uuid]).get(uuid)


def delete_host_provider(ctx, uuid):
    """Remove a deleted node's provider with its host usage; one that other
    consumers still allocate from stays (and is logged)."""
    def drop_own():
        with placement_db.writing(ctx) as session:
            allocations.bump_holders_providers(session, [uuid])
            session.execute(ALLOC.delete().where(ALLOC.c.consumer_id == uuid))
    _retrying(drop_own)
    try:
        providers.delete_provider(ctx, uuid)
    except exception.ResourceProviderNotFound:
        pass
    except exception.ResourceProviderInUse:
        LOG.warning('Resource provider %s of a deleted compute node still '
                    'has allocations; it is kept.', uuid)


def delete_unused_host_providers(ctx, uuids):
    """Delete these nodes' providers (inventories and the nodes' own host
    usage with them) in one transaction, unless another consumer still
    allocates from one of them: then ResourceProviderInUse names it and
    nothing is deleted. Returns the uuids of the providers deleted (those
    that do not exist are skipped)."""
    uuids = sorted(set(uuids))

    def once():
        with placement_db.writing(ctx) as session:
            rows = session.execute(
                sa.select(RP.c.id, RP.c.uuid, RP.c.generation)
                .where(RP.c.uuid.in_(uuids))).all()
            if not rows:
                return []
            ids = [row.id for row in rows]
            # The guarded bump locks the rows: a claim racing us waits,
            # then finds the generation moved and no provider.
            providers.bump_generations(
                session, {row.id: row.generation for row in rows})
            busy = session.execute(
                sa.select(RP.c.uuid).select_from(ALLOC.join(
                    RP, RP.c.id == ALLOC.c.resource_provider_id))
                .where(ALLOC.c.resource_provider_id.in_(ids),
                       ALLOC.c.consumer_id.notin_(uuids)).limit(1)).first()
            if busy is not None:
                raise exception.ResourceProviderInUse(uuid=busy.uuid)
            session.execute(ALLOC.delete().where(
                ALLOC.c.resource_provider_id.in_(ids)))
            session.execute(ALLOC.delete().where(
                ALLOC.c.consumer_id.in_(uuids)))
            session.execute(INV.delete().where(
                INV.c.resource_provider_id.in_(ids)))
            session.execute(RP.delete().where(RP.c.id.in_(ids)))
            return sorted(row.uuid for row in rows)
    return _retrying(once)
