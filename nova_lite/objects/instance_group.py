"""Server groups (InstanceGroup) in the API database.

A group belongs to a project; its policy is one of POLICIES, with rules
({'max_server_per_host': n}, anti-affinity only, 2.64). Members are
instance uuids, added as servers are created in the group and removed
as they are deleted. `hosts` is not stored: the super conductor fills
it with the hosts of the members (all cells) before it asks the
scheduler, as Nova fills instance_group.hosts, so filters need no
query of their own.
"""
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import cell_mapping

AFFINITY = 'affinity'
ANTI_AFFINITY = 'anti-affinity'
SOFT_AFFINITY = 'soft-affinity'
SOFT_ANTI_AFFINITY = 'soft-anti-affinity'
POLICIES = (AFFINITY, ANTI_AFFINITY, SOFT_AFFINITY, SOFT_ANTI_AFFINITY)

GROUPS = api_models.InstanceGroup.__table__
MEMBERS = api_models.InstanceGroupMember.__table__
INSTANCES = main_models.Instance.__table__
_COLUMNS = ('id', 'uuid', 'name', 'user_id', 'project_id', 'policy',
            'rules', 'created_at', 'updated_at')


def _values(row):
    values = {name: row[name] for name in _COLUMNS}
    values['rules'] = jsonutils.loads(values['rules'] or '{}')
    return values


def _with_members(session, rows):
    """Group dicts with their members (one query for all the groups)."""
    groups = [_values(row._mapping) for row in rows]
    by_id = {g['id']: g for g in groups}
    for g in groups:
        g['members'] = []
    if by_id:
        for group_id, uuid in session.execute(
                sa.select(MEMBERS.c.group_id, MEMBERS.c.instance_uuid)
                .where(MEMBERS.c.group_id.in_(list(by_id)))
                .order_by(MEMBERS.c.id)):
            by_id[group_id]['members'].append(uuid)
    return groups


def _select():
    return sa.select(*[GROUPS.c[name] for name in _COLUMNS])


@api_db.reader
def _get(context, uuid):
    rows = context.session.execute(
        _select().where(GROUPS.c.uuid == uuid)).fetchall()
    if not rows:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    return _with_members(context.session, rows)[0]


@api_db.reader
def _get_by_instance(context, instance_uuid):
    rows = context.session.execute(_select().where(
        GROUPS.c.id.in_(sa.select(MEMBERS.c.group_id).where(
            MEMBERS.c.instance_uuid == instance_uuid)))).fetchall()
    if not rows:
        raise exception.InstanceGroupNotFound(group_uuid=instance_uuid)
    return _with_members(context.session, rows)[0]


@api_db.reader
def _list(context, project_id=None, limit=None, offset=None):
    query = _select().order_by(GROUPS.c.id)
    if project_id is not None:
        query = query.where(GROUPS.c.project_id == project_id)
    if offset:
        query = query.offset(offset)
    if limit is not None:
        query = query.limit(limit)
    return _with_members(context.session,
                         context.session.execute(query).fetchall())


@api_db.writer
def _create(context, values, members):
    now = timeutils.utcnow()
    values = dict(values, created_at=now,
                  rules=jsonutils.dumps(values.get('rules') or {}))
    group_id = context.session.execute(
        GROUPS.insert().values(**values)).inserted_primary_key[0]
    if members:
        context.session.execute(MEMBERS.insert(), [
            {'group_id': group_id, 'instance_uuid': m, 'created_at': now}
            for m in members])
    return group_id


@api_db.writer
def _destroy(context, uuid):
    session = context.session
    group_id = session.execute(sa.select(GROUPS.c.id).where(
        GROUPS.c.uuid == uuid)).scalar()
    if group_id is None:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    session.execute(MEMBERS.delete().where(MEMBERS.c.group_id == group_id))
    session.execute(GROUPS.delete().where(GROUPS.c.id == group_id))


@api_db.writer
def _add_members(context, uuid, instance_uuids):
    session = context.session
    group_id = session.execute(sa.select(GROUPS.c.id).where(
        GROUPS.c.uuid == uuid)).scalar()
    if group_id is None:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    now = timeutils.utcnow()
    session.execute(MEMBERS.insert(), [
        {'group_id': group_id, 'instance_uuid': m, 'created_at': now}
        for m in instance_uuids])


@api_db.writer
def remove_instance(context, instance_uuid):
    """Drop instance_uuid from every group it is a member of (its server
    is deleted)."""
    context.session.execute(MEMBERS.delete().where(
        MEMBERS.c.instance_uuid == instance_uuid))


@api_db.reader
def group_uuids_of(context, instance_uuid):
    """The uuids of the groups instance_uuid is a member of (one query)."""
    return [row[0] for row in context.session.execute(
        sa.select(GROUPS.c.uuid).select_from(GROUPS.join(
            MEMBERS, MEMBERS.c.group_id == GROUPS.c.id)).where(
            MEMBERS.c.instance_uuid == instance_uuid))]


@api_db.reader
def counts(context, project_id, group_uuid=None, user_id=None):
    """(groups of project_id [of user_id], members of group_uuid): the
    two figures the server_groups and server_group_members quotas limit,
    counted in the database (two COUNTs, no rows loaded)."""
    session = context.session
    query = sa.select(sa.func.count()).select_from(GROUPS).where(
        GROUPS.c.project_id == project_id)
    if user_id is not None:
        query = query.where(GROUPS.c.user_id == user_id)
    groups = session.execute(query).scalar()
    members = 0
    if group_uuid is not None:
        members = session.execute(
            sa.select(sa.func.count()).select_from(MEMBERS.join(
                GROUPS, MEMBERS.c.group_id == GROUPS.c.id)).where(
                GROUPS.c.uuid == group_uuid)).scalar()
    return groups, members


@main_db.reader
def _hosts_in_cell(context, uuids):
    return context.session.execute(
        sa.select(INSTANCES.c.uuid, INSTANCES.c.host).where(
            INSTANCES.c.uuid.in_(list(uuids)), INSTANCES.c.deleted == 0,
            INSTANCES.c.host.isnot(None))).fetchall()


def instance_hosts(context, uuids, cells=None):
    """{instance uuid: host} of those of uuids that are on a host, read
    from every cell (but cell0) in parallel, one query per cell; a cell
    that fails is left out."""
    uuids = list(uuids)
    if not uuids:
        return {}
    if cells is None:
        cells = [c for c in cell_mapping.CellMappingList.get_all(context)
                 if not c.is_cell0()]
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.cell_timeout, _hosts_in_cell, uuids)
    found = {}
    for rows in results.values():
        if nova_context.is_cell_failure(rows):
            continue
        found.update({uuid: host for uuid, host in rows})
    return found


def for_scheduling(context, group_uuid, exclude=()):
    """The group as the scheduler needs it: policy, rules and members as
    stored now, and hosts: the host of each member that is on one but
    the instances of exclude (those being placed), one entry per member
    (a host with two members is named twice). None when the group is
    gone."""
    try:
        group = InstanceGroup.get_by_uuid(context, group_uuid)
    except exception.InstanceGroupNotFound:
        return None
    others = [m for m in group.members if m not in set(exclude)]
    hosts = instance_hosts(context, others)
    group.hosts = [hosts[m] for m in others if m in hosts]
    group.obj_reset_changes()
    return group


@base.NovaLiteObjectRegistry.register
class InstanceGroup(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'policy': fields.StringField(),
        'rules': fields.DictOfIntegersField(default={}),
        'members': fields.ListOfStringsField(default=[]),
        # Hosts of the members (other than the instances being placed),
        # one entry per member, filled by the super conductor for the
        # scheduler (for_scheduling); not stored.
        'hosts': fields.ListOfStringsField(default=[]),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def _from_values(cls, context, values):
        group = cls(context)
        for name in cls.fields:
            if name in values:
                setattr(group, name, values[name])
        group.hosts = []
        group.obj_reset_changes()
        return group

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """InstanceGroupNotFound (404)."""
        return cls._from_values(context, _get(context, uuid))

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The group instance_uuid is a member of; InstanceGroupNotFound
        when none."""
        return cls._from_values(context,
                                _get_by_instance(context, instance_uuid))

    def create(self):
        values = {k: getattr(self, k) for k in
                  ('uuid', 'name', 'user_id', 'project_id', 'policy',
                   'rules') if self.obj_attr_is_set(k)}
        members = list(self.members) if self.obj_attr_is_set(
            'members') else []
        self.id = _create(self.context, values, members)
        self.members = members
        self.hosts = []
        self.created_at = timeutils.utcnow()
        self.updated_at = None
        self.obj_reset_changes()

    def destroy(self):
        _destroy(self.context, self.uuid)

    @classmethod
    def add_members(cls, context, group_uuid, instance_uuids):
        """Add instance_uuids to the group (InstanceGroupNotFound when it
        is gone)."""
        if instance_uuids:
            _add_members(context, group_uuid, list(instance_uuids))

    @property
    def max_server_per_host(self):
        """How many members anti-affinity allows on one host (1 unless
        the 2.64 rule says more)."""
        return (self.rules or {}).get('max_server_per_host', 1)


@base.NovaLiteObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceGroup')}

    @classmethod
    def get_all(cls, context, project_id=None, limit=None, offset=None):
        """Groups in creation order (of project_id unless None)."""
        return cls(context, objects=[
            InstanceGroup._from_values(context, values)
            for values in _list(context, project_id, limit, offset)])
