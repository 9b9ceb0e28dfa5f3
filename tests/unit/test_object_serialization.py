"""objects.base.FastFieldsMixin serializes, deserializes and tracks
changes as oslo.versionedobjects' own methods do, for every registered
class (our objects and the notifications' payloads), with every field
set to a value of its type, then with some changed; and receives, as
ovo does, primitives that are wrongly typed, out of range or null (the
same value, or the same exception)."""
import copy
import datetime
import math
import uuid
import warnings

import hypothesis
from hypothesis import strategies as st
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


# Received primitives that are not what the sender's ovo would send:
# wrongly typed, out of range, null, or text a field reads specially.
_ODD_TEXT = ['5', '-1', '1.5', '1e3', 'true', 'False', '', ' ', 'nan',
             'ACTIVE', 'not-a-uuid', str(uuid.UUID(int=7)), '192.0.2.1',
             '2026-11-28T02:03:04Z', '2026-11-28T02:03:04.5Z',
             '2026-13-28T02:03:04Z', '2026-11-28T24:00:00Z',
             '2026-11-28T02:03:60Z', '0000-01-01T00:00:00Z',
             '2026-11-28T02:03:04+02:00', '2026-11-28 02:03:04Z',
             '20261128T020304Z', '\u0662026-11-28T02:03:04Z']
_ODD_VALUES = [None, True, False, 0, 1, -1, 2 ** 31, -(2 ** 63), 2 ** 70,
               0.0, -0.5, 1.5, float('inf'), float('nan'), [], [1, 'a'],
               {}, {'a': 1}] + _ODD_TEXT
_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(_ODD_TEXT))
_ODD_PRIMITIVES = st.one_of(
    _JSON_SCALARS, st.sampled_from(_ODD_VALUES),
    st.lists(_JSON_SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=4), _JSON_SCALARS, max_size=3))


def _primitive_with(cls, data):
    keys = {part: cls._obj_primitive_key(part)
            for part in ('name', 'namespace', 'version', 'data')}
    return {keys['name']: cls.obj_name(),
            keys['namespace']: cls.OBJ_PROJECT_NAMESPACE,
            keys['version']: cls.VERSION, keys['data']: data}


def _outcome(receive, primitive):
    """The object received, or the type of the exception raised."""
    with warnings.catch_warnings():
        # ovo warns (once) about a malformed UUID: both sides' calls
        # are compared, not who saw the warning first.
        warnings.simplefilter('ignore')
        try:
            return receive(copy.deepcopy(primitive))
        except Exception as exc:
            return type(exc)


def _same(a, b):
    """a equals b, with the same types (and time zones), NaN equal to
    NaN, objects field by field."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ovo_base.VersionedObject):
        names = [name for name in a.fields if a.obj_attr_is_set(name)]
        return (names == [name for name in b.fields
                          if b.obj_attr_is_set(name)]
                and a.obj_what_changed() == b.obj_what_changed()
                and all(_same(getattr(a, name), getattr(b, name))
                        for name in names))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, datetime.datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _receives_as_ovo(cls, data):
    primitive = _primitive_with(cls, data)
    ours = _outcome(cls.obj_from_primitive, primitive)
    theirs = _outcome(
        lambda p: ovo_base.VersionedObject._obj_from_primitive.__func__(
            cls, None, cls.VERSION, p), primitive)
    assert _same(ours, theirs), (data, ours, theirs)


_CLASSES = [cls for cls in _classes() if cls.fields]


@pytest.mark.parametrize('cls', _CLASSES,
                         ids=lambda cls: '%s-%s' % (cls.obj_name(),
                                                    cls.VERSION))
def test_every_field_receives_odd_primitives_as_ovo(cls):
    for name in cls.fields:
        for value in _ODD_VALUES:
            _receives_as_ovo(cls, {name: value})


_WELL_TYPED = {}


def _well_typed_data(cls):
    """The data of a primitive ovo sends of cls filled (made once)."""
    if cls not in _WELL_TYPED:
        _WELL_TYPED[cls] = _ovo_primitive(_filled(cls))[
            cls._obj_primitive_key('data')]
    return _WELL_TYPED[cls]


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(data=st.data())
def test_generated_odd_primitives_are_received_as_ovo(data):
    """Any registered class; some fields well typed, one to three odd."""
    cls = data.draw(st.sampled_from(_CLASSES), label='class')
    names = data.draw(st.lists(st.sampled_from(sorted(cls.fields)),
                               min_size=1, max_size=3, unique=True))
    well_typed = _well_typed_data(cls) if data.draw(st.booleans()) else {}
    sent = {name: well_typed[name] for name in well_typed
            if data.draw(st.booleans())}
    for name in names:
        sent[name] = data.draw(_ODD_PRIMITIVES)
    _receives_as_ovo(cls, sent)
