"""Key pairs: a user's public keys (SSH or X.509), in the API database.

A key pair belongs to a user, not to a project: the same user sees it from
every project. Names are unique per user. Instances keep a copy of the
key pairs they were booted with (KeyPairList in instance_extra), so
deleting a key pair never changes a server.
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base

KEYPAIR_TYPE_SSH = 'ssh'
KEYPAIR_TYPE_X509 = 'x509'
KEYPAIR_TYPES = (KEYPAIR_TYPE_SSH, KEYPAIR_TYPE_X509)

KEY_PAIRS = api_models.KeyPair.__table__
_COLUMNS = ('id', 'name', 'user_id', 'fingerprint', 'public_key', 'type',
            'created_at', 'updated_at', 'deleted_at', 'deleted')


def _row(row):
    values = {name: row[name] for name in _COLUMNS}
    values['deleted'] = bool(values['deleted'])
    return values


def _select():
    return sa.select(*[KEY_PAIRS.c[name] for name in _COLUMNS])


@api_db.reader
def _get_by_name(context, user_id, name):
    row = context.session.execute(_select().where(
        KEY_PAIRS.c.user_id == user_id, KEY_PAIRS.c.name == name,
        KEY_PAIRS.c.deleted == 0)).first()
    if row is None:
        raise exception.KeypairNotFound(user_id=user_id, name=name)
    return _row(row._mapping)


@api_db.reader
def _get_by_user(context, user_id, limit=None, marker=None):
    session = context.session
    query = _select().where(KEY_PAIRS.c.user_id == user_id,
                            KEY_PAIRS.c.deleted == 0)
    if marker is not None:
        mark = session.execute(sa.select(KEY_PAIRS.c.id).where(
            KEY_PAIRS.c.user_id == user_id, KEY_PAIRS.c.name == marker,
            KEY_PAIRS.c.deleted == 0)).scalar()
        if mark is None:
            raise exception.MarkerNotFound(marker=marker)
        query = query.where(KEY_PAIRS.c.id > mark)
    query = query.order_by(KEY_PAIRS.c.id)
    if limit is not None:
        query = query.limit(limit)
    return [_row(row._mapping) for row in session.execute(query)]


@api_db.reader
def _count_by_user(context, user_id):
    return context.session.execute(sa.select(sa.func.count()).where(
        KEY_PAIRS.c.user_id == user_id, KEY_PAIRS.c.deleted == 0)).scalar()


@api_db.writer
def _create(context, values):
    values = dict(values, deleted=0, created_at=timeutils.utcnow())
    try:
        key_id = context.session.execute(
            KEY_PAIRS.insert().values(**values)).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry:
        raise exception.KeyPairExists(key_name=values['name'])
    return dict(values, id=key_id, updated_at=None, deleted_at=None,
                deleted=False)


@api_db.writer
def _destroy(context, user_id, name):
    deleted = context.session.execute(KEY_PAIRS.delete().where(
        KEY_PAIRS.c.user_id == user_id, KEY_PAIRS.c.name == name,
        KEY_PAIRS.c.deleted == 0)).rowcount
    if not deleted:
        raise exception.KeypairNotFound(user_id=user_id, name=name)


@base.NovaLiteObjectRegistry.register
class KeyPair(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=False),
        'user_id': fields.StringField(nullable=True),
        'fingerprint': fields.StringField(nullable=True),
        'public_key': fields.StringField(nullable=True),
        'type': fields.EnumField(valid_values=KEYPAIR_TYPES,
                                 nullable=False),
    })

    @staticmethod
    def _from_db_object(context, keypair, values):
        for name in keypair.fields:
            setattr(keypair, name, values[name])
        keypair.context = context
        keypair.obj_reset_changes()
        return keypair

    @base.remotable_classmethod
    def get_by_name(cls, context, user_id, name):
        """KeypairNotFound (404) if user_id has no key pair name."""
        return cls._from_db_object(context, cls(),
                                   _get_by_name(context, user_id, name))

    @base.remotable_classmethod
    def destroy_by_name(cls, context, user_id, name):
        _destroy(context, user_id, name)

    @base.remotable
    def create(self):
        """Insert; KeyPairExists (409) if the user has one of this name."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        updates.setdefault('type', KEYPAIR_TYPE_SSH)
        values = {k: updates.get(k) for k in
                  ('name', 'user_id', 'fingerprint', 'public_key', 'type')}
        self._from_db_object(self.context, self,
                             _create(self.context, values))

    @base.remotable
    def destroy(self):
        _destroy(self.context, self.user_id, self.name)


@base.NovaLiteObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('KeyPair')}

    @base.remotable_classmethod
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        """The user's key pairs in creation order; after the one named
        marker (MarkerNotFound, 400, if the user has none so named), at
        most limit of them."""
        rows = _get_by_user(context, user_id, limit, marker)
        return cls(context, objects=[
            KeyPair._from_db_object(context, KeyPair(), row)
            for row in rows])

    @base.remotable_classmethod
    def get_count_by_user(cls, context, user_id):
        return _count_by_user(context, user_id)
