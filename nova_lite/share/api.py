"""The embedded shares service: shared file systems and their access
rules in the local-services database. It stands in for Manila (there
are no file system bits: the simulated hypervisor mounts nothing).

``ShareAPI`` is the interface the compute API and the computes call,
shaped like the part of python-manilaclient Nova uses (get a share,
allow and deny access to it), so a client of a real Manila can
implement the same methods and replace ``API``. Shares are plain
dicts::

    {'id', 'name', 'description', 'size' (GiB), 'share_proto',
     'status', 'export_location', 'project_id', 'user_id',
     'availability_zone', 'created_at', 'updated_at'}

and access rules::

    {'id', 'share_id', 'access_type', 'access_to', 'access_level',
     'state', 'created_at', 'updated_at'}

A share is ``available`` once created (the embedded service creates at
once) and ``deleted`` (never seen again) once deleted; a share that
still has access rules cannot be deleted (InvalidShare), so a share a
server uses stays. An access rule is ``active`` once granted; granting
it again is a no-op (one rule per share, type and grantee: a unique
key).

Visibility: a share is seen by its project and by admins; any other
caller gets ShareNotFound, as Manila answers.
"""
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

SHARES = models.Share.__table__
RULES = models.ShareAccessRule.__table__

AVAILABLE = 'available'
DELETED = 'deleted'
ACTIVE = 'active'
PROTOCOLS = ('NFS', 'CEPHFS', 'CIFS', 'GLUSTERFS', 'HDFS', 'MAPRFS')
ACCESS_TYPES = ('ip', 'cert', 'user', 'cephx')

_SHARE_FIELDS = ('id', 'name', 'description', 'size', 'share_proto',
                 'status', 'export_location', 'project_id', 'user_id',
                 'availability_zone', 'created_at', 'updated_at')
_RULE_FIELDS = ('id', 'share_id', 'access_type', 'access_to',
                'access_level', 'state', 'created_at', 'updated_at')
# Where the embedded service says its shares are exported from.
_EXPORT_HOST = '192.0.2.10'


class ShareAPI(object):
    """What nova_lite needs of a shared file systems service."""

    def get(self, context, share_id):
        """The share, or ShareNotFound (missing, deleted, not visible)."""
        raise NotImplementedError()

    def get_all(self, context, search_opts=None):
        """Visible shares, newest first; search_opts: name, status."""
        raise NotImplementedError()

    def create(self, context, share_proto, size, name=None,
               description=None, availability_zone=None):
        """A new share owned by context's project, available on
        return."""
        raise NotImplementedError()

    def delete(self, context, share_id):
        """Delete the share; InvalidShare while it has access rules."""
        raise NotImplementedError()

    def allow(self, context, share_id, access_type, access_to,
              access_level='rw'):
        """Grant access_to access to the share (idempotent); returns the
        rule."""
        raise NotImplementedError()

    def deny(self, context, share_id, access_type, access_to):
        """Revoke that grant (idempotent)."""
        raise NotImplementedError()

    def access_list(self, context, share_id):
        """The share's access rules, oldest first."""
        raise NotImplementedError()

    def deny_all(self, context, access_type, access_to):
        """Revoke every grant of that type to access_to, on any share
        (a deleted server's)."""
        raise NotImplementedError()


class API(ShareAPI):
    """ShareAPI on the local-services database."""

    def get(self, context, share_id):
        share = _get(context, share_id)
        if share is None or not _visible(context, share):
            raise exception.ShareNotFound(share_id=share_id)
        return share

    def get_all(self, context, search_opts=None):
        return _get_all(context, dict(search_opts or {}))

    def create(self, context, share_proto, size, name=None,
               description=None, availability_zone=None):
        proto = (share_proto or '').upper()
        if proto not in PROTOCOLS:
            raise exception.InvalidInput(
                reason='Invalid share protocol provided: %s' % share_proto)
        try:
            size = int(size)
        except (TypeError, ValueError):
            size = 0
        if size < 1:
            raise exception.InvalidInput(
                reason='Share size must be an integer of at least 1 GiB.')
        share_id = uuidutils.generate_uuid()
        if proto == 'CEPHFS':
            export = '%s:6789:/volumes/_nogroup/%s' % (_EXPORT_HOST,
                                                       share_id)
        else:
            export = '%s:/shares/share-%s' % (_EXPORT_HOST, share_id)
        return _create(context, {
            'id': share_id, 'name': name, 'description': description,
            'size': size, 'share_proto': proto, 'status': AVAILABLE,
            'export_location': export, 'project_id': context.project_id,
            'user_id': context.user_id,
            'availability_zone': availability_zone or 'nova',
            'created_at': timeutils.utcnow(), 'deleted': False})

    def delete(self, context, share_id):
        self.get(context, share_id)
        _delete(context, share_id)

    def allow(self, context, share_id, access_type, access_to,
              access_level='rw'):
        self.get(context, share_id)
        if access_type not in ACCESS_TYPES:
            raise exception.InvalidInput(
                reason='Invalid access type: %s' % access_type)
        if access_level not in ('rw', 'ro'):
            raise exception.InvalidInput(
                reason='Invalid access level: %s' % access_level)
        return _allow(context, share_id, access_type, access_to,
                      access_level)

    def deny(self, context, share_id, access_type, access_to):
        _deny(context, share_id, access_type, access_to)

    def access_list(self, context, share_id):
        self.get(context, share_id)
        return _rules(context, share_id)

    def deny_all(self, context, access_type, access_to):
        _deny(context, None, access_type, access_to)


def _visible(context, share):
    return context.is_admin or share['project_id'] == context.project_id


def _to_dict(row):
    return {name: row[name] for name in _SHARE_FIELDS}


@ls_db.reader
def _get(context, share_id):
    row = context.session.execute(sa.select(
        *[SHARES.c[n] for n in _SHARE_FIELDS]).where(
        SHARES.c.id == share_id, SHARES.c.deleted == sa.false())).first()
    return None if row is None else _to_dict(row._mapping)


@ls_db.reader
def _get_all(context, search_opts):
    query = sa.select(*[SHARES.c[n] for n in _SHARE_FIELDS]).where(
        SHARES.c.deleted == sa.false())
    if not context.is_admin:
        query = query.where(SHARES.c.project_id == context.project_id)
    for name in ('name', 'status'):
        if search_opts.get(name) is not None:
            query = query.where(SHARES.c[name] == search_opts[name])
    return [_to_dict(r._mapping) for r in context.session.execute(
        query.order_by(SHARES.c.created_at.desc(), SHARES.c.id.desc()))]


@ls_db.writer
def _create(context, values):
    context.session.execute(SHARES.insert().values(**values))
    return _to_dict(dict(values, updated_at=None))


@ls_db.writer
def _delete(context, share_id):
    session = context.session
    if session.execute(sa.select(sa.func.count()).where(
            RULES.c.share_id == share_id)).scalar():
        raise exception.InvalidShare(
            reason='share %s has access rules: deny them (detach it from '
                   'its servers) first' % share_id)
    session.execute(SHARES.update().where(
        SHARES.c.id == share_id, SHARES.c.deleted == sa.false()).values(
        status=DELETED, deleted=True, updated_at=timeutils.utcnow()))


def _rule_of(session, share_id, access_type, access_to):
    row = session.execute(sa.select(
        *[RULES.c[n] for n in _RULE_FIELDS]).where(
        RULES.c.share_id == share_id, RULES.c.access_type == access_type,
        RULES.c.access_to == access_to)).first()
    return None if row is None else dict(row._mapping)


@ls_db.writer
def _allow(context, share_id, access_type, access_to, access_level):
    session = context.session
    rule = _rule_of(session, share_id, access_type, access_to)
    if rule is None:
        session.execute(RULES.insert().values(
            id=uuidutils.generate_uuid(), share_id=share_id,
            access_type=access_type, access_to=access_to,
            access_level=access_level, state=ACTIVE,
            created_at=timeutils.utcnow()))
        rule = _rule_of(session, share_id, access_type, access_to)
    return rule


@ls_db.writer
def _deny(context, share_id, access_type, access_to):
    query = RULES.delete().where(RULES.c.access_type == access_type,
                                 RULES.c.access_to == access_to)
    if share_id is not None:
        query = query.where(RULES.c.share_id == share_id)
    context.session.execute(query)


@ls_db.reader
def _rules(context, share_id):
    return [dict(r._mapping) for r in context.session.execute(
        sa.select(*[RULES.c[n] for n in _RULE_FIELDS]).where(
            RULES.c.share_id == share_id).order_by(
            RULES.c.created_at, RULES.c.id))]
