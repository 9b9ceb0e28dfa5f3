"""Allocation candidates: providers with room for a request, found with
ONE query over inventories and allocations.

Per class asked for, the provider must have an inventory whose capacity
((total - reserved) * allocation_ratio) minus what is allocated from it
leaves room for the amount, within min_unit..max_unit and step_size.
The allocated sum is a correlated subquery on the (provider, class,
used) index, evaluated only for providers the scan reaches: with LIMIT
the query stops after `limit` fits, so its cost follows the limit, not
the number of providers in the cloud.

Pre-filters (Nova's placement request filters) are part of the same
query: member_of (a list of groups of aggregate uuids: the provider is
in at least one aggregate of each group: [NOT] IN the members of those
aggregates), forbidden_aggregates (in none of them), required_traits
and forbidden_traits (trait names: [NOT] EXISTS on the provider's
traits).
"""
import sqlalchemy as sa

from nova_lite.db.api import models as api_models
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers
from nova_lite.placement import resource_class

RP, INV, ALLOC = providers.RP, providers.INV, providers.ALLOC
PAGG = api_models.PlacementAggregate.__table__
RPA = api_models.ResourceProviderAggregate.__table__
TRAIT = api_models.Trait.__table__
RPT = api_models.ResourceProviderTrait.__table__


def _in_aggregates(uuids):
    # IN (members of the aggregates): the database can drive the scan
    # from the (few) members by primary key, so a zone's candidates cost
    # what the zone holds, not what the cloud holds.
    return RP.c.id.in_(
        sa.select(RPA.c.resource_provider_id)
        .join(PAGG, PAGG.c.id == RPA.c.aggregate_id)
        .where(PAGG.c.uuid.in_(sorted(uuids))))


def _has_trait(name):
    return sa.exists().where(
        RPT.c.resource_provider_id == RP.c.id,
        RPT.c.trait_id == TRAIT.c.id, TRAIT.c.name == name)


def _prefilters(member_of, forbidden_aggregates, required_traits,
                forbidden_traits):
    where = [_in_aggregates(group) for group in member_of or ()]
    if forbidden_aggregates:
        where.append(sa.not_(_in_aggregates(forbidden_aggregates)))
    where += [_has_trait(t) for t in sorted(set(required_traits or ()))]
    where += [sa.not_(_has_trait(t))
              for t in sorted(set(forbidden_traits or ()))]
    return where


def _query(resources, class_ids, limit, exclude, prefilters=(),
           named=None):
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
    if named is not None:
        where.append(RP.c.name.in_(sorted(named)))
    where += list(prefilters)
    return (sa.select(*columns).select_from(joins).where(*where)
            .limit(limit))


def find(ctx, resources, limit, exclude=(), member_of=None,
         forbidden_aggregates=None, required_traits=None,
         forbidden_traits=None, named=None):
    """[{'uuid', 'name', 'generation', 'free': {class: amount}}] of at
    most limit providers with room for resources ({class: amount}),
    in provider creation order; exclude: provider uuids to leave out;
    named: only the providers of these names (a forced host's nodes);
    the pre-filters as the module says. A member_of group that is empty
    matches no provider."""
    wanted = {k: int(v) for k, v in resources.items() if v}
    if not wanted:
        raise ValueError('a request for nothing')
    class_ids = resource_class.resource_class_ids(ctx, sorted(wanted),
                                                  create=False)
    names = sorted(wanted)
    if any(not group for group in member_of or ()):
        return []
    prefilters = _prefilters(member_of, forbidden_aggregates,
                             required_traits, forbidden_traits)
    with placement_db.reading(ctx) as session:
        rows = session.execute(
            _query(wanted, class_ids, limit, exclude,
                   prefilters, named)).fetchall()
    return [{'uuid': row[0], 'name': row[1], 'generation': row[2],
             'free': dict(zip(names, row[3:]))} for row in rows]
