"""Host aggregates: named groups of compute hosts with metadata, in the
API database. The ``availability_zone`` metadata key makes an aggregate
an availability zone (a host is in at most one zone; hosts in none are
in ``[DEFAULT] default_availability_zone``).

Reads are in bulk: an aggregate with its hosts and metadata, all
aggregates, or the aggregates of a set of hosts, each a fixed number of
queries whatever the number of hosts.
"""
import collections

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base

AZ_KEY = 'availability_zone'

AGG = api_models.Aggregate.__table__
HOSTS = api_models.AggregateHost.__table__
META = api_models.AggregateMetadata.__table__


def _records(session, rows):
    """[record dict] of aggregate rows with their hosts and metadata (two
    more queries for all of them)."""
    ids = [row.id for row in rows]
    hosts, meta = collections.defaultdict(list), collections.defaultdict(
        dict)
    if ids:
        for agg_id, host in session.execute(
                sa.select(HOSTS.c.aggregate_id, HOSTS.c.host)
                .where(HOSTS.c.aggregate_id.in_(ids))
                .order_by(HOSTS.c.id)):
            hosts[agg_id].append(host)
        for agg_id, key, value in session.execute(
                sa.select(META.c.aggregate_id, META.c.key, META.c.value)
                .where(META.c.aggregate_id.in_(ids))):
            meta[agg_id][key] = value
    return [{'id': row.id, 'uuid': row.uuid, 'name': row.name,
             'created_at': row.created_at, 'updated_at': row.updated_at,
             'hosts': hosts[row.id], 'metadata': meta[row.id]}
            for row in rows]


_SELECT = sa.select(AGG.c.id, AGG.c.uuid, AGG.c.name, AGG.c.created_at,
                    AGG.c.updated_at)


@api_db.reader
def _get(context, aggregate_id):
    row = context.session.execute(
        _SELECT.where(AGG.c.id == aggregate_id)).first()
    if row is None:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    return _records(context.session, [row])[0]


@api_db.reader
def _get_all(context, ids=None):
    query = _SELECT.order_by(AGG.c.id)
    if ids is not None:
        query = query.where(AGG.c.id.in_(list(ids)))
    return _records(context.session,
                    context.session.execute(query).fetchall())


@api_db.reader
def _ids_of_hosts(context, hosts):
    return sorted({agg_id for (agg_id,) in context.session.execute(
        sa.select(HOSTS.c.aggregate_id).where(
            HOSTS.c.host.in_(list(hosts))))})


def _name_taken(session, name, but=None):
    query = sa.select(AGG.c.id).where(AGG.c.name == name)
    if but is not None:
        query = query.where(AGG.c.id != but)
    return session.execute(query.limit(1)).first() is not None


@api_db.writer
def _create(context, name, metadata, uuid=None):
    session = context.session
    if _name_taken(session, name):
        raise exception.AggregateNameExists(aggregate_name=name)
    now = timeutils.utcnow()
    try:
        agg_id = session.execute(AGG.insert().values(
            uuid=uuid or uuidutils.generate_uuid(), name=name,
            created_at=now)).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=name)
    if metadata:
        session.execute(META.insert(), [
            {'aggregate_id': agg_id, 'key': k, 'value': v,
             'created_at': now} for k, v in metadata.items()])
    return agg_id


@api_db.writer
def _rename(context, aggregate_id, name):
    session = context.session
    if _name_taken(session, name, but=aggregate_id):
        raise exception.AggregateNameExists(aggregate_name=name)
    try:
        found = session.execute(AGG.update().where(
            AGG.c.id == aggregate_id).values(
                name=name, updated_at=timeutils.utcnow())).rowcount
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=name)
    if not found:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)


@api_db.writer
def _update_metadata(context, aggregate_id, updates):
    """updates: {key: value, or None to delete the key}."""
    session = context.session
    now = timeutils.utcnow()
    if not session.execute(AGG.update().where(
            AGG.c.id == aggregate_id).values(updated_at=now)).rowcount:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    if not updates:
        return
    session.execute(META.delete().where(
        META.c.aggregate_id == aggregate_id,
        META.c.key.in_(list(updates))))
    rows = [{'aggregate_id': aggregate_id, 'key': k, 'value': v,
             'created_at': now} for k, v in updates.items()
            if v is not None]
    if rows:
        session.execute(META.insert(), rows)


@api_db.writer
def _add_host(context, aggregate_id, host):
    try:
        context.session.execute(HOSTS.insert().values(
            aggregate_id=aggregate_id, host=host,
            created_at=timeutils.utcnow()))
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateHostExists(aggregate_id=aggregate_id,
                                            host=host)


@api_db.writer
def _delete_host(context, aggregate_id, host):
    if not context.session.execute(HOSTS.delete().where(
            HOSTS.c.aggregate_id == aggregate_id,
            HOSTS.c.host == host)).rowcount:
        raise exception.AggregateHostNotFound(aggregate_id=aggregate_id,
                                              host=host)


@api_db.writer
def _destroy(context, aggregate_id):
    session = context.session
    if not session.execute(AGG.delete().where(
            AGG.c.id == aggregate_id)).rowcount:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    session.execute(META.delete().where(META.c.aggregate_id ==
                                        aggregate_id))
    session.execute(HOSTS.delete().where(HOSTS.c.aggregate_id ==
                                         aggregate_id))


# --- bulk reads for the scheduler and the zones -----------------------------

@api_db.reader
def metadata_by_host(context, hosts):
    """{host: [(aggregate uuid, {key: value})]} of the aggregates each
    of hosts is in (hosts in none are left out): ONE query."""
    found = collections.defaultdict(dict)
    rows = context.session.execute(
        sa.select(HOSTS.c.host, AGG.c.uuid, META.c.key, META.c.value)
        .select_from(HOSTS.join(AGG, AGG.c.id == HOSTS.c.aggregate_id)
                     .outerjoin(META, META.c.aggregate_id == AGG.c.id))
        .where(HOSTS.c.host.in_(list(hosts))))
    for host, uuid, key, value in rows:
        meta = found[host].setdefault(uuid, {})
        if key is not None:
            meta[key] = value
    return {host: list(aggs.items()) for host, aggs in found.items()}


@api_db.reader
def zone_hosts(context):
    """{zone name: [host]} of every zone aggregates define (ONE query);
    a zone with no hosts maps to []."""
    zones = collections.defaultdict(set)
    rows = context.session.execute(
        sa.select(META.c.value, HOSTS.c.host)
        .select_from(META.outerjoin(
            HOSTS, HOSTS.c.aggregate_id == META.c.aggregate_id))
        .where(META.c.key == AZ_KEY))
    for zone, host in rows:
        zones[zone]
        if host is not None:
            zones[zone].add(host)
    return {zone: sorted(hosts) for zone, hosts in zones.items()}


@api_db.reader
def zone_aggregate_uuids(context, zone):
    """The uuids of the aggregates that make zone ([] if none)."""
    return [uuid for (uuid,) in context.session.execute(
        sa.select(AGG.c.uuid).select_from(
            AGG.join(META, META.c.aggregate_id == AGG.c.id))
        .where(META.c.key == AZ_KEY, META.c.value == zone))]


@api_db.reader
def metadata_with_keys(context, keys=(), prefixes=()):
    """[(aggregate uuid, key, value)] of every metadata key in keys or
    starting with one of prefixes (ONE query)."""
    match = [META.c.key.in_(list(keys))] if keys else []
    match += [META.c.key.startswith(p, autoescape=True) for p in prefixes]
    if not match:
        return []
    return [tuple(row) for row in context.session.execute(
        sa.select(AGG.c.uuid, META.c.key, META.c.value).select_from(
            AGG.join(META, META.c.aggregate_id == AGG.c.id))
        .where(sa.or_(*match)))]


@api_db.reader
def zone_of_host(context, host):
    """The zone aggregates give host, or None (ONE query)."""
    return context.session.execute(
        sa.select(META.c.value).select_from(META.join(
            HOSTS, HOSTS.c.aggregate_id == META.c.aggregate_id))
        .where(HOSTS.c.host == host, META.c.key == AZ_KEY)
        .limit(1)).scalar()


@base.NovaLiteObjectRegistry.register
class Aggregate(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(),
        'metadata': fields.DictOfStringsField(),
    })

    @property
    def availability_zone(self):
        return self.metadata.get(AZ_KEY)

    @classmethod
    def _from_record(cls, context, record):
        agg = cls()
        for name in ('id', 'uuid', 'name', 'hosts', 'metadata',
                     'created_at', 'updated_at'):
            setattr(agg, name, record[name])
        agg.deleted, agg.deleted_at = False, None
        agg.context = context
        agg.obj_reset_changes()
        return agg

    @classmethod
    def get_by_id(cls, context, aggregate_id):
        """AggregateNotFound (404)."""
        return cls._from_record(context, _get(context, aggregate_id))

    @classmethod
    def create(cls, context, name, metadata=None, uuid=None):
        """AggregateNameExists (409) when the name is taken."""
        return cls.get_by_id(context, _create(
            context, name, dict(metadata or {}), uuid))

    @classmethod
    def rename(cls, context, aggregate_id, name):
        _rename(context, aggregate_id, name)

    @classmethod
    def update_metadata(cls, context, aggregate_id, updates):
        _update_metadata(context, aggregate_id, updates)

    @classmethod
    def add_host(cls, context, aggregate_id, host):
        """AggregateHostExists (409)."""
        _add_host(context, aggregate_id, host)

    @classmethod
    def delete_host(cls, context, aggregate_id, host):
        """AggregateHostNotFound (404)."""
        _delete_host(context, aggregate_id, host)

    @classmethod
    def destroy_by_id(cls, context, aggregate_id):
        _destroy(context, aggregate_id)


@base.NovaLiteObjectRegistry.register
class AggregateList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Aggregate')}

    @classmethod
    def _make(cls, context, records):
        result = cls(objects=[Aggregate._from_record(context, r)
                              for r in records])
        result.context = context
        result.obj_reset_changes()
        return result

    @classmethod
    def get_all(cls, context):
        return cls._make(context, _get_all(context))

    @classmethod
    def get_by_hosts(cls, context, hosts):
        """The aggregates any of hosts is in."""
        ids = _ids_of_hosts(context, hosts)
        return cls._make(context, _get_all(context, ids) if ids else [])
