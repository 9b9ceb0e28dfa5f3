"""Aggregates and traits of resource providers (as Placement keeps
them): a provider is a member of aggregates (by uuid) and has traits
(by name). Host aggregates are mirrored here on the providers of their
hosts' compute nodes; the candidate query filters on both
(candidates.py). Every change of a provider's aggregates or traits
moves its generation (unguarded: it cannot invalidate a claim's check).
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.api import models as api_models
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers

RP = providers.RP
PAGG = api_models.PlacementAggregate.__table__
RPA = api_models.ResourceProviderAggregate.__table__
TRAIT = api_models.Trait.__table__
RPT = api_models.ResourceProviderTrait.__table__


def _ids(session, table, column, values):
    """{value: id} of values in table, inserting the missing ones."""
    values = sorted(set(values))
    found = dict(session.execute(sa.select(table.c[column], table.c.id)
                                 .where(table.c[column].in_(values))).all())
    for value in values:
        if value not in found:
            try:
                with session.begin_nested():
                    found[value] = session.execute(table.insert().values(
                        **{column: value})).inserted_primary_key[0]
            except db_exc.DBDuplicateEntry:
                found[value] = session.execute(
                    sa.select(table.c.id).where(
                        table.c[column] == value)).scalar_one()
    return found


def _provider_ids(session, provider_uuids):
    return [pid for (pid,) in session.execute(sa.select(RP.c.id).where(
        RP.c.uuid.in_(list(provider_uuids))))]


def _bump(session, pids):
    if pids:
        session.execute(RP.update().where(RP.c.id.in_(pids)).values(
            generation=RP.c.generation + 1, updated_at=timeutils.utcnow()))


def add_to_aggregate(ctx, provider_uuids, aggregate_uuid):
    """Make the providers (those that exist) members of the aggregate:
    {'added': [uuid], 'missing': [uuid]} (providers that were not
    members, and those that do not exist)."""
    if not provider_uuids:
        return {'added': [], 'missing': []}
    with placement_db.writing(ctx) as session:
        agg_id = _ids(session, PAGG, 'uuid', [aggregate_uuid])[
            aggregate_uuid]
        by_id = dict(session.execute(sa.select(RP.c.id, RP.c.uuid).where(
            RP.c.uuid.in_(list(provider_uuids)))).all())
        pids = list(by_id)
        have = {pid for (pid,) in session.execute(
            sa.select(RPA.c.resource_provider_id).where(
                RPA.c.aggregate_id == agg_id,
                RPA.c.resource_provider_id.in_(pids)))}
        new = [pid for pid in pids if pid not in have]
        if new:
            session.execute(RPA.insert(), [
                {'resource_provider_id': pid, 'aggregate_id': agg_id}
                for pid in new])
        _bump(session, new)
    return {'added': sorted(by_id[pid] for pid in new),
            'missing': sorted(set(provider_uuids) - set(by_id.values()))}


def remove_from_aggregate(ctx, provider_uuids, aggregate_uuid):
    """The providers are no longer members of the aggregate."""
    if not provider_uuids:
        return
    with placement_db.writing(ctx) as session:
        agg_id = session.execute(sa.select(PAGG.c.id).where(
            PAGG.c.uuid == aggregate_uuid)).scalar()
        if agg_id is None:
            return
        pids = _provider_ids(session, provider_uuids)
        if pids:
            session.execute(RPA.delete().where(
                RPA.c.aggregate_id == agg_id,
                RPA.c.resource_provider_id.in_(pids)))
        _bump(session, pids)


def aggregates_of(ctx, provider_uuid):
    """The aggregate uuids the provider is a member of, sorted."""
    with placement_db.reading(ctx) as session:
        return sorted(uuid for (uuid,) in session.execute(
            sa.select(PAGG.c.uuid).select_from(
                PAGG.join(RPA, RPA.c.aggregate_id == PAGG.c.id)
                .join(RP, RP.c.id == RPA.c.resource_provider_id))
            .where(RP.c.uuid == provider_uuid)))


def provider_uuid_named(ctx, name):
    """The uuid of the resource provider named name (a compute node's
    provider is named after its node), or None."""
    with placement_db.reading(ctx) as session:
        return session.execute(sa.select(RP.c.uuid).where(
            RP.c.name == name)).scalar()


def set_traits(ctx, provider_uuid, traits):
    """Replace the provider's traits (names) with traits."""
    with placement_db.writing(ctx) as session:
        pids = _provider_ids(session, [provider_uuid])
        if not pids:
            return
        session.execute(RPT.delete().where(
            RPT.c.resource_provider_id == pids[0]))
        ids = _ids(session, TRAIT, 'name', traits)
        if ids:
            session.execute(RPT.insert(), [
                {'resource_provider_id': pids[0], 'trait_id': tid}
                for tid in ids.values()])
        _bump(session, pids)


def traits_of(ctx, provider_uuid):
    with placement_db.reading(ctx) as session:
        return sorted(name for (name,) in session.execute(
            sa.select(TRAIT.c.name).select_from(
                TRAIT.join(RPT, RPT.c.trait_id == TRAIT.c.id)
                .join(RP, RP.c.id == RPT.c.resource_provider_id))
            .where(RP.c.uuid == provider_uuid)))
