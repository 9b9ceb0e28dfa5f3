"""BuildRequest and RequestSpec: a server in the API DB before a cell
holds it, and what the scheduler was asked for.

A build request carries the Instance as the API shows it until the
super conductor creates it in a cell; destroying it is how the
conductor learns a user deleted the server meanwhile (destroy() of a
build request that is already gone raises BuildRequestNotFound).

A build request is taken once, by one super conductor (take(): a
conditional update of picked_up_by, so two conductors -- or a conductor
and the periodic task burying build requests no one picked up in time --
never both act on it).
"""
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields as nl_fields
from nova_lite.objects import instance as instance_obj

BR = api_models.BuildRequest.__table__
RS = api_models.RequestSpec.__table__


@base.NovaLiteObjectRegistry.register
class BuildRequest(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
        'instance': fields.ObjectField('Instance'),
        'block_device_mappings': nl_fields.JsonField(),
        'tags': fields.ListOfStringsField(),
        'created_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def _from_row(cls, context, row):
        obj = cls()
        obj.id = row.id
        obj.instance_uuid = row.instance_uuid
        obj.project_id = row.project_id
        obj.user_id = row.user_id
        obj.instance = base.from_stored(instance_obj.Instance,
                                        jsonutils.loads(row.instance))
        obj.instance.created_at = row.created_at
        obj.block_device_mappings = jsonutils.loads(
            row.block_device_mappings or '[]')
        obj.tags = jsonutils.loads(row.tags or '[]')
        obj.created_at = row.created_at
        obj.obj_reset_changes()
        obj.context = context
        return obj

    @staticmethod
    @api_db.reader
    def _get(context, instance_uuid):
        return context.session.execute(sa.select(BR).where(
            BR.c.instance_uuid == instance_uuid)).first()

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        row = cls._get(context, instance_uuid)
        if row is None:
            raise exception.BuildRequestNotFound(uuid=instance_uuid)
        return cls._from_row(context, row)

    def _values(self):
        created = (self.instance.created_at
                   if self.instance.obj_attr_is_set('created_at') else None)
        # The row's created_at is the instance's: a list orders build
        # requests by the row in SQL and by the record after.
        extra = {'created_at': created.replace(tzinfo=None)} \
            if created is not None else {}
        return {**extra, 'instance_uuid': self.instance_uuid,
                'project_id': self.project_id, 'user_id': self.user_id,
                'instance': jsonutils.dumps(
                    self.instance.obj_to_primitive()),
                'block_device_mappings': jsonutils.dumps(
                    self.block_device_mappings
                    if self.obj_attr_is_set('block_device_mappings')
                    else []),
                'tags': jsonutils.dumps(self.tags if self.obj_attr_is_set(
                    'tags') else []),
                'vcpus': _instance_int(self.instance, 'vcpus'),
                'memory_mb': _instance_int(self.instance, 'memory_mb')}

    @staticmethod
    @api_db.writer
    def _destroy(context, instance_uuid):
        return context.session.execute(BR.delete().where(
            BR.c.instance_uuid == instance_uuid)).rowcount

    @base.remotable
    def destroy(self):
        if not self._destroy(self.context, self.instance_uuid):
            raise exception.BuildRequestNotFound(uuid=self.instance_uuid)


@base.NovaLiteObjectRegistry.register
class BuildRequestList(base.NovaLiteObject, base.ObjectListBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('BuildRequest')}

    @staticmethod
    @api_db.reader
    def _rows(context, project_id, uuids):
        query = sa.select(BR).order_by(BR.c.created_at, BR.c.id)
        if project_id is not None:
            query = query.where(BR.c.project_id == project_id)
        if uuids is not None:
            query = query.where(BR.c.instance_uuid.in_(list(uuids)))
        return context.session.execute(query).fetchall()

    @base.remotable_classmethod
    def get_all(cls, context, project_id=None, uuids=None):
        """Build requests (of project_id if given, of uuids if given)."""
        result = cls(objects=[BuildRequest._from_row(context, r)
                              for r in cls._rows(context, project_id,
                                                 uuids)])
        result.context = context
        result.obj_reset_changes()
        return result


@api_db.writer
def _take_rows(context, token, uuids=None, older_than=None, limit=None):
    session = context.session
    # Free, or taken by token already: a take run again after a lost
    # connection (its update committed, its answer lost) gets its rows.
    free = sa.or_(BR.c.picked_up_by.is_(None), BR.c.picked_up_by == token)
    if uuids is not None:
        where = sa.and_(free, BR.c.instance_uuid.in_(list(uuids)))
    else:
        ids = session.execute(
            sa.select(BR.c.id).where(free, BR.c.created_at < older_than)
            .order_by(BR.c.created_at, BR.c.id).limit(limit)).scalars().all()
        if not ids:
            return []
        where = sa.and_(free, BR.c.id.in_(ids))
    # The update takes each row only if no one has: of two conductors
    # racing, the second's update waits for the first's row lock and
    # then finds picked_up_by set.
    if not session.execute(BR.update().where(where).values(
            picked_up_by=token,
            picked_up_at=timeutils.utcnow())).rowcount:
        return []
    return session.execute(sa.select(BR).where(
        BR.c.picked_up_by == token).order_by(BR.c.created_at,
                                             BR.c.id)).fetchall()


def take(context, token, uuids):
    """The build requests of uuids that no one had taken, now taken by
    token (a unique string per caller and call): a super conductor
    about to build them. A build request someone took already (a
    message delivered twice, or the periodic task burying it) is left
    out."""
    return [BuildRequest._from_row(context, row)
            for row in _take_rows(context, token, uuids=uuids)]


def take_unpicked(context, token, older_than, limit):
    """At most limit build requests created before older_than (naive
    UTC) that no one took, now taken by token: what the periodic task
    buries. Oldest first."""
    return [BuildRequest._from_row(context, row)
            for row in _take_rows(context, token, older_than=older_than,
                                  limit=limit)]


@api_db.writer
def _retake_rows(context, token, picked_before, limit):
    session = context.session
    stale = sa.and_(BR.c.picked_up_by.isnot(None),
                    BR.c.picked_up_at < picked_before)
    ids = session.execute(sa.select(BR.c.id).where(stale).order_by(
        BR.c.picked_up_at, BR.c.id).limit(limit)).scalars().all()
    if not ids:
        return []
    # Only rows still stale: a conductor that renewed one keeps it.
    if not session.execute(BR.update().where(stale, BR.c.id.in_(ids)).values(
            picked_up_by=token,
            picked_up_at=timeutils.utcnow())).rowcount:
        return []
    return session.execute(sa.select(BR).where(
        BR.c.picked_up_by == token).order_by(BR.c.created_at,
                                             BR.c.id)).fetchall()


def take_stranded(context, token, picked_before, limit):
    """At most limit build requests taken before picked_before (naive
    UTC) and still there -- the conductor that took them died, or gave
    up, mid-way -- now taken by token. Oldest take first."""
    return [BuildRequest._from_row(context, row)
            for row in _retake_rows(context, token, picked_before, limit)]


@api_db.writer
def renew(context, token, instance_uuid):
    """Whether token still holds the instance's build request (its take
    is dated now again, so that it is not taken as stranded for as
    long); False when it is gone (the server deleted) or was taken from
    token as stranded."""
    return bool(context.session.execute(BR.update().where(
        BR.c.instance_uuid == instance_uuid,
        BR.c.picked_up_by == token).values(
        picked_up_at=timeutils.utcnow())).rowcount)


@api_db.reader
def any_stranded(context, picked_before):
    """Whether a build request taken before picked_before is still
    there (one read)."""
    return context.session.execute(sa.select(BR.c.id).where(
        BR.c.picked_up_by.isnot(None),
        BR.c.picked_up_at < picked_before).limit(1)).first() is not None


@api_db.reader
def any_unpicked(context, older_than):
    """Whether a build request created before older_than is untaken
    (one read: the periodic task's check when nothing is)."""
    return context.session.execute(sa.select(BR.c.id).where(
        BR.c.picked_up_by.is_(None),
        BR.c.created_at < older_than).limit(1)).first() is not None


def _same_cell_destination(dest):
    """A 1.2 requested_destination as an older scheduler must read it:
    a cross-cell one becomes its source cell only, so that scheduler
    never moves a server across cells."""
    source = dest.get('source_cell_uuid')
    old = {k: v for k, v in dest.items()
           if k not in ('allow_cross_cell_move', 'source_cell_uuid')}
    if dest.get('allow_cross_cell_move') or not old.get('cell_uuid'):
        old['cell_uuid'] = source or old.get('cell_uuid')
    old.setdefault('host', None)
    return old


def _forced_as_requested(primitive):
    """A 1.4 primitive as an older scheduler must read it: the forced
    host and node become the requested destination (that scheduler
    still runs its filters, but places nowhere else)."""
    hosts = primitive.pop('force_hosts', None) or []
    nodes = primitive.pop('force_nodes', None) or []
    if (hosts or nodes) and not primitive.get('requested_destination'):
        primitive['requested_destination'] = {
            'host': hosts[0] if hosts else None,
            'node': nodes[0] if nodes else None}


@base.NovaLiteObjectRegistry.register
class RequestSpec(base.NovaLiteObject):
    """What a server asked the scheduler for; kept for its life (a
    resize asks again with a new flavor)."""
    # 1.0: initial
    # 1.1: is_bfv (a volume-backed server claims no root disk)
    # 1.2: requested_destination may carry allow_cross_cell_move and
    #      source_cell_uuid (a cross-cell resize: any cell, the source
    #      one preferred by the CrossCellWeigher)
    # 1.3: instance_group (the server group of the request, with its
    #      members' hosts for the scheduler's filters and weighers)
    # 1.4: force_hosts and force_nodes (an administrator's
    #      availability_zone 'zone:host:node': no filters)
    VERSION = '1.4'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('EmbeddedFlavor'),
        # {id, min_disk, min_ram, ...} of the image booted from.
        'image': nl_fields.JsonField(nullable=True),
        'num_instances': fields.IntegerField(default=1),
        'availability_zone': fields.StringField(nullable=True),
        # Hosts the scheduler must not pick (e.g. a resize's source).
        'ignore_hosts': fields.ListOfStringsField(default=[]),
        # {'host': .., 'node': .., 'cell_uuid': ..} an admin asked for;
        # a cross-cell move (1.2): cell_uuid None, allow_cross_cell_move
        # True and source_cell_uuid the cell the server lives in.
        'requested_destination': nl_fields.JsonField(nullable=True),
        'scheduler_hints': nl_fields.JsonField(nullable=True),
        # Boots from a volume: its root disk is no local DISK_GB.
        'is_bfv': fields.BooleanField(default=False),
        # The server group named by the 'group' hint (1.3); its hosts
        # are filled before each scheduling.
        'instance_group': fields.ObjectField('InstanceGroup',
                                             nullable=True, default=None),
        # The host and node an administrator forced (1.4): the
        # scheduler places there without running its filters (the
        # claim is still made). A move clears them.
        'force_hosts': fields.ListOfStringsField(default=[]),
        'force_nodes': fields.ListOfStringsField(default=[]),
    }

    # The versions of the objects in fields, per version of this one (an
    # instance_group is dropped for versions before 1.3).
    obj_relationships = {
        'flavor': [('1.0', '1.0')],
        'instance_group': [('1.3', '1.0')],
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = tuple(map(int, target_version.split('.')))
        if target < (1, 4):
            _forced_as_requested(primitive)
        if target < (1, 3):
            primitive.pop('instance_group', None)
        if target < (1, 2):
            dest = primitive.get('requested_destination')
            if isinstance(dest, dict) and (
                    'allow_cross_cell_move' in dest
                    or 'source_cell_uuid' in dest):
                primitive['requested_destination'] = \
                    _same_cell_destination(dest)
        if target < (1, 1):
            primitive.pop('is_bfv', None)

    def to_json(self):
        return jsonutils.dumps(self.obj_to_primitive())

    @classmethod
    def from_json(cls, context, blob):
        obj = base.from_stored(cls, jsonutils.loads(blob))
        obj.context = context
        return obj

    def resources(self):
        """The resource classes and amounts one instance of it needs
        (classes it needs none of are left out, as Nova leaves them)."""
        flavor = self.flavor
        # As Nova: a volume-backed server's root disk is its volume.
        root_gb = 0 if (self.obj_attr_is_set('is_bfv')
                        and self.is_bfv) else flavor.root_gb
        needs = {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
                 'DISK_GB': root_gb + flavor.ephemeral_gb
                 + (flavor.swap + 1023) // 1024}
        return {rc: amount for rc, amount in needs.items() if amount}

    @staticmethod
    @api_db.reader
    def _get(context, instance_uuid):
        return context.session.execute(sa.select(RS.c.spec).where(
            RS.c.instance_uuid == instance_uuid)).scalar()

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        blob = cls._get(context, instance_uuid)
        if blob is None:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)
        return cls.from_json(context, blob)

    @staticmethod
    @api_db.writer
    def _save(context, instance_uuid, blob):
        if not context.session.execute(RS.update().where(
                RS.c.instance_uuid == instance_uuid).values(
                    spec=blob)).rowcount:
            context.session.execute(RS.insert().values(
                instance_uuid=instance_uuid, spec=blob))

    @base.remotable
    def save(self):
        self._save(self.context, self.instance_uuid, self.to_json())
        self.obj_reset_changes()


def _instance_int(instance, name):
    return getattr(instance, name) if instance.obj_attr_is_set(name) \
        else None


def create_servers(context, requests, quota_check=None):
    """Write, in ONE API DB transaction, for each (build_request,
    request_spec) pair: the build request, the request spec and an
    instance mapping with no cell. Either all servers exist or none.

    quota_check(context): run first in that transaction (it holds the
    project's quota lock until the servers are written); returns how
    many of the requests fit (raises if not even the least fits). Only
    that many are written. Returns the count written."""
    items = []
    for br, spec in requests:
        own = spec.obj_clone()
        own.instance_uuid = br.instance_uuid
        items.append((br._values(), br.instance_uuid, own))
    return _insert_servers(context, items, quota_check)


@api_db.writer
def _insert_servers(context, items, quota_check=None):
    session = context.session
    if quota_check is not None:
        items = items[:quota_check(context)]
    im = api_models.InstanceMapping.__table__
    session.execute(BR.insert(), [dict(values) for values, _, _ in items])
    specs = []
    for _, uuid, spec in items:
        spec.num_instances = len(items)
        specs.append({'instance_uuid': uuid, 'spec': spec.to_json()})
    session.execute(RS.insert(), specs)
    session.execute(im.insert(), [
        {'instance_uuid': values['instance_uuid'],
         'project_id': values['project_id'],
         'user_id': values['user_id'], 'cell_id': None,
         'queued_for_delete': False} for values, _, _ in items])
    return len(items)


@api_db.writer
def delete_request_spec(context, instance_uuid):
    context.session.execute(RS.delete().where(
        RS.c.instance_uuid == instance_uuid))
