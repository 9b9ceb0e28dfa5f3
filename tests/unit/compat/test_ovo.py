"""Canary of nova_lite._compat.ovo: the oslo.versionedobjects internals
it relies on are there and behave as it assumes."""
import datetime
import inspect

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from nova_lite._compat import ovo

NOW = datetime.datetime(2026, 11, 28, 2, 3, 4, tzinfo=datetime.timezone.utc)


@ovo_base.VersionedObjectRegistry.register_if(False)
class Canary(ovo_base.VersionedObject):
    OBJ_SERIAL_NAMESPACE = 'canary_object'
    OBJ_PROJECT_NAMESPACE = 'canary'
    VERSION = '1.0'
    fields = {'count': fields.IntegerField(),
              'name': fields.StringField(nullable=True),
              'at': fields.DateTimeField(nullable=True)}


@ovo_base.VersionedObjectRegistry.register_if(False)
class FastCanary(ovo.FastFieldsMixin, Canary):
    pass


def test_context_is_the_context_attribute():
    ctx = object()
    obj = Canary(ctx)
    assert obj._context is ctx is ovo.context_of(obj)
    ovo.set_context(obj, None)
    assert obj._context is None
    # What ovo's own deserialization does with the receiver's context.
    received = Canary._obj_from_primitive(
        ctx, '1.0', Canary(count=1).obj_to_primitive())
    assert ovo.context_of(received) is ctx


def test_fields_are_stored_in_obj_name_and_tracked_in_changed_fields():
    obj = Canary()
    assert isinstance(obj._changed_fields, set)
    obj.count = '5'     # the property coerces, stores and tracks
    assert obj.__dict__['_obj_count'] == 5
    assert obj._changed_fields == {'count'}
    assert obj.obj_what_changed() == {'count'}
    obj.__dict__['_obj_name'] = 'direct'
    obj._changed_fields.add('name')
    assert obj.name == 'direct'
    assert obj.obj_attr_is_set('name')
    assert obj.obj_what_changed() == {'count', 'name'}
    del obj.__dict__['_obj_name']
    assert not obj.obj_attr_is_set('name')


def test_obj_from_primitive_builds_through_obj_from_primitive_classmethod():
    signature = inspect.signature(ovo_base.VersionedObject._obj_from_primitive)
    assert list(signature.parameters) == ['context', 'objver', 'primitive']
    calls = []

    @ovo_base.VersionedObjectRegistry.register_if(False)
    class Spy(Canary):
        @classmethod
        def _obj_from_primitive(cls, context, objver, primitive):
            calls.append((context, objver))
            return super()._obj_from_primitive(context, objver, primitive)

    primitive = Spy(count=3).obj_to_primitive()
    ctx = object()
    # obj_class_from_name looks classes up in the registry: call the
    # entry point of a known class as obj_from_primitive does.
    obj = Spy._obj_from_primitive(ctx, '1.0', primitive)
    assert calls == [(ctx, '1.0')] and obj.count == 3


def test_primitive_keys_are_namespaced():
    primitive = Canary(count=1).obj_to_primitive()
    for part in ('name', 'namespace', 'version', 'data', 'changes'):
        assert Canary._obj_primitive_key(part) == 'canary_object.' + part
        if part != 'changes':
            assert Canary._obj_primitive_key(part) in primitive
    assert primitive[Canary._obj_primitive_key('changes')] == ['count']


def test_field_type_is_type_attribute():
    assert type(ovo.field_type(fields.IntegerField())) is fields.Integer
    assert type(fields.StringField()._type) is fields.String
    assert type(fields.UUIDField()._type) is fields.UUID
    assert type(fields.BooleanField()._type) is fields.Boolean
    assert type(fields.FloatField()._type) is fields.Float
    kind = fields.DateTimeField()._type
    assert type(kind) is fields.DateTime and kind.tzinfo_aware


def test_exact_types_pass_coerce_and_primitives_unchanged():
    """What the fast paths store without calling ovo is what ovo's
    from_primitive and coerce would have given."""
    for field, value in ((fields.IntegerField(), 2 ** 70),
                         (fields.StringField(), 'text'),
                         (fields.BooleanField(), False),
                         (fields.FloatField(), 1.5)):
        assert field.from_primitive(None, 'f', value) is value
        assert field.coerce(None, 'f', value) is value
        assert field.to_primitive(None, 'f', value) is value


def test_utc_times_are_sent_as_fromisoformat_reads_them():
    field = fields.DateTimeField()
    sent = field.to_primitive(None, 'at', NOW)
    assert ovo._OVO_UTC_TIME.fullmatch(sent)
    ours = datetime.datetime.fromisoformat(sent)
    theirs = field.from_primitive(None, 'at', sent)
    assert ours == theirs and ours.utcoffset() == theirs.utcoffset()


def test_the_mixin_answers_as_ovo():
    for cls in (Canary, FastCanary):
        obj = cls(count=1, name='n', at=NOW)
        obj.obj_reset_changes(['name'])
        assert obj.obj_what_changed() == {'count', 'at'}
    ours = FastCanary(count=1, at=NOW)
    assert ours.obj_to_primitive() == \
        ovo_base.VersionedObject.obj_to_primitive(ours)
    received = FastCanary._obj_from_primitive(None, '1.0',
                                              ours.obj_to_primitive())
    assert (received.count, received.at) == (1, NOW)
    assert received.obj_what_changed() == {'count', 'at'}
