"""Allocation candidates: providers with room for a request, found with
ONE query over inventories and allocations.

Per class asked for, the provider must have an inventory whose capacity
((total - reserved) * allocation_ratio) minus what is allocated from it
leaves room for the amount, within min_unit..max_unit and step_size.
The allocated sum is a correlated subquery on the (provider, class,
used) index, evaluated only for providers the scan reaches: with LIMIT
the query stops after `limit` fits, so its cost follows the limit, not
the number of providers in the cloud.
"""
import sqlalchemy as sa

from nova_lite.placement import db as placement_db
from nova_lite.placement import providers
from nova_lite.placement import resource_class

RP, INV, ALLOC = providers.RP, providers.INV, providers.ALLOC


def _query(resources, class_ids, limit, exclude):
    joins, where, columns = RP, [], [RP.c.uuid, RP.c.name, RP.c.generation]
    for name, amount in sorted(resources.items()):
        if not amount:
            continue
        inv = INV.alias('inv_%d' % class_ids[name])
        joins = joins.join(inv, sa.and_(
            inv.c.resource_provider_id == RP.c.id,
            inv.c.resource_class_id == class_ids[name]))
        used = sa.func.coalesce(
            sa.select(sa.func.sum(ALLOC.c.used))
            .where(ALLOC.c.resource_provider_id == RP.c.id,
                   ALLOC.c.resource_class_id == class_ids[name])
            .scalar_subquery(), 0)
        free = ((inv.c.total - inv.c.reserved) * inv.c.allocation_ratio
                - used)
        where += [free >= amount, inv.c.min_unit <= amount,
                  inv.c.max_unit >= amount,
                  sa.func.mod(amount, inv.c.step_size) == 0]
        columns.append(free.label('free_%s' % name))
    if exclude:
        where.append(RP.c.uuid.not_in(list(exclude)))
    return (sa.select(*columns).select_from(joins).where(*where)
            .limit(limit))


def find(ctx, resources, limit, exclude=()):
    """[{'uuid', 'name', 'generation', 'free': {class: amount}}] of at
    most limit providers with room for resources ({class: amount}),
    in provider creation order; exclude: provider uuids to leave out."""
    wanted = {k: int(v) for k, v in resources.items() if v}
    if not wanted:
        raise ValueError('a request for nothing')
    class_ids = resource_class.resource_class_ids(ctx, sorted(wanted),
                                                  create=False)
    names = sorted(wanted)
    with placement_db.reading(ctx) as session:
        rows = session.execute(
            _query(wanted, class_ids, limit, exclude)).fetchall()
    return [{'uuid': row[0], 'name': row[1], 'generation': row[2],
             'free': dict(zip(names, row[3:]))} for row in rows]
