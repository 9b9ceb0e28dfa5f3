"""objects.base.FastFieldsMixin serializes, deserializes and tracks
changes as oslo.versionedobjects' own methods do, for every registered
class (our objects and the notifications' payloads), with every field
set to a value of its type, then with some changed."""
import datetime
import uuid

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields
import pytest

from nova_lite import notifications  # noqa: F401  (registers payloads)
from nova_lite.notifications import instance as _payloads  # noqa: F401
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import fields as nl_fields

objects.register_all()

# Whole seconds: ovo's primitive of a datetime has none smaller.
NOW = datetime.datetime(2026, 11, 28, 2, 3, 4, tzinfo=datetime.timezone.utc)


def _classes():
    return [cls for versions in
            ovo_base.VersionedObjectRegistry.obj_classes().values()
            for cls in versions if issubclass(cls, base.FastFieldsMixin)]


def _value(field, depth):
    kind = field._type
    if isinstance(kind, ovo_fields.Enum):
        return kind._valid_values[-1]
    if isinstance(kind, ovo_fields.UUID):
        return str(uuid.uuid4())
    if isinstance(kind, ovo_fields.IPAddress):
        return '192.0.2.7'
    if isinstance(kind, ovo_fields.String):
        return 'value-\u00e9'
    if isinstance(kind, ovo_fields.Boolean):
        return True
    if isinstance(kind, ovo_fields.Integer):
        return 7
    if isinstance(kind, ovo_fields.Float):
        return 1.5
    if isinstance(kind, ovo_fields.DateTime):
        return NOW
    if isinstance(kind, nl_fields.Json):
        return {'a': [1, {'b': None}]}
    if isinstance(kind, ovo_fields.Dict):
        return {'k': _value(ovo_fields.Field(kind._element_type._type),
                            depth)}
    if isinstance(kind, ovo_fields.List):
        element = kind._element_type
        return [_value(element, depth)]
    if isinstance(kind, ovo_fields.Object):
        return _filled(ovo_base.VersionedObjectRegistry.obj_classes()[
            kind._obj_name][0], depth + 1)
    raise AssertionError('no sample value for %r' % kind)


def _made(cls):
    """cls() -- or, for a payload built from an instance (never
    deserialized, by ovo or us), an empty one."""
    try:
        return cls()
    except TypeError:
        obj = cls.__new__(cls)
        ovo_base.VersionedObject.__init__(obj)
        return obj


def _filled(cls, depth=0):
    obj = _made(cls)
    for name, field in cls.fields.items():
        if depth > 2 and isinstance(field._type, (ovo_fields.Object,
                                                  ovo_fields.List)):
            continue
        setattr(obj, name, _value(field, depth))
    return obj


def _ovo_primitive(obj):
    return ovo_base.VersionedObject.obj_to_primitive(obj)


def _normalized(primitive):
    """changes as a set (both sides build it from a set)."""
    if isinstance(primitive, dict):
        return {key: (sorted(value) if key.endswith('.changes')
                      else _normalized(value))
                for key, value in primitive.items()}
    if isinstance(primitive, list):
        return [_normalized(item) for item in primitive]
    return primitive


@pytest.mark.parametrize('cls', _classes(),
                         ids=lambda cls: '%s-%s' % (cls.obj_name(),
                                                    cls.VERSION))
def test_every_class_round_trips_as_ovo(cls):
    obj = _filled(cls)
    # Notification payloads answer no changes by design.
    own_tracking = (cls.obj_what_changed
                    is base.FastFieldsMixin.obj_what_changed)
    for reset in (False, True):
        if reset:
            obj.obj_reset_changes(recursive=True)
        primitive = obj.obj_to_primitive()
        assert _normalized(primitive) == _normalized(_ovo_primitive(obj))
        if own_tracking:
            assert obj.obj_what_changed() == \
                ovo_base.VersionedObject.obj_what_changed(obj)
        for name in cls.fields:
            assert obj.obj_attr_is_set(name) == \
                ovo_base.VersionedObject.obj_attr_is_set(obj, name)

        try:
            theirs = ovo_base.VersionedObject._obj_from_primitive.__func__(
                cls, None, cls.VERSION, primitive)
        except TypeError:
            # A notification of a payload built from an instance: never
            # deserialized, by ovo or us.
            with pytest.raises(TypeError):
                cls.obj_from_primitive(primitive)
            continue
        ours = cls.obj_from_primitive(primitive)
        assert ours.obj_what_changed() == theirs.obj_what_changed()
        assert _normalized(_ovo_primitive(ours)) == \
            _normalized(_ovo_primitive(theirs)) == _normalized(primitive)
        for name in cls.fields:
            assert getattr(ours, name) == getattr(theirs, name)
            assert type(getattr(ours, name)) is type(getattr(theirs, name))


def test_partly_set_objects_and_backports_go_through_ovo():
    inst = objects.Instance(uuid=str(uuid.uuid4()), host='h1',
                            launched_at=NOW)
    assert inst.obj_to_primitive() == _ovo_primitive(inst)
    again = objects.Instance.obj_from_primitive(inst.obj_to_primitive())
    assert again.obj_what_changed() == {'uuid', 'host', 'launched_at'}
    assert not again.obj_attr_is_set('vm_state')
    assert again.launched_at == NOW
    # A backport (target version or manifest) is ovo's own path.
    flavor = _filled(objects.EmbeddedFlavor)
    manifest = {'EmbeddedFlavor': flavor.VERSION}
    assert flavor.obj_to_primitive(version_manifest=manifest) == \
        ovo_base.VersionedObject.obj_to_primitive(
            flavor, version_manifest=manifest)


def test_unknown_names_are_refused_as_ovo_refuses_them():
    inst = objects.Instance()
    with pytest.raises(AttributeError):
        inst.obj_attr_is_set('no_such_field')
    with pytest.raises(AttributeError):
        ovo_base.VersionedObject.obj_attr_is_set(inst, 'no_such_field')


@pytest.mark.parametrize('sent', [
    '2026-11-28T02:03:04Z', '2026-11-28T02:03:04.000123Z',
    '2026-11-28T02:03:04+02:00', '2026-11-28 02:03:04Z',
    '2026-11-28T02:03Z'])
def test_received_times_are_read_as_ovo_reads_them(sent):
    primitive = objects.Instance(launched_at=NOW).obj_to_primitive()
    primitive['nova_lite_object.data']['launched_at'] = sent
    ours = objects.Instance.obj_from_primitive(primitive)
    theirs = ovo_base.VersionedObject._obj_from_primitive.__func__(
        objects.Instance, None, objects.Instance.VERSION, primitive)
    assert ours.launched_at == theirs.launched_at
    assert ours.launched_at.utcoffset() == theirs.launched_at.utcoffset()


@pytest.mark.parametrize('cls', [objects.Instance, objects.Migration],
                         ids=lambda cls: cls.obj_name())
def test_set_fields_sets_what_setattr_sets(cls):
    values = {}
    for i, (name, field) in enumerate(sorted(cls.fields.items())):
        if isinstance(field._type, (ovo_fields.Object, ovo_fields.List,
                                    ovo_fields.Dict, nl_fields.Json)):
            continue
        sample = _value(field, 0)
        # Some as they come from a database row: None where allowed, a
        # naive datetime, an integer for a string, a 0/1 for a boolean.
        if i % 4 == 1 and field.nullable:
            sample = None
        elif isinstance(sample, datetime.datetime):
            sample = sample.replace(tzinfo=None)
        elif i % 4 == 2 and isinstance(field._type, ovo_fields.String):
            sample = 42
        elif isinstance(sample, bool) and i % 4 == 3:
            sample = 1
        values[name] = sample
    ours, theirs = cls(), cls()
    ours.set_fields(values, values)
    for name, value in values.items():
        setattr(theirs, name, value)
    assert ours.obj_what_changed() == theirs.obj_what_changed()
    for name in values:
        assert getattr(ours, name) == getattr(theirs, name), name
        assert type(getattr(ours, name)) is type(getattr(theirs, name))
    # A read-only field keeps ovo's setter: the same value again is no
    # change, another is refused.
    ours.obj_reset_changes()
    if 'id' in values and cls.fields['id'].read_only:
        ours.set_fields(values, ['id'])
        assert ours.obj_what_changed() == set()
