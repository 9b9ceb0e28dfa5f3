"""oslo.versionedobjects internals: an object's context, its change
tracking, its field storage and its deserialization.

Each internal, and the upstream change that would let it go:

- ``VersionedObject._context``: the object's request context. ovo has no
  public getter or setter; its own remotable decorators and
  ``_obj_from_primitive`` assign it. Gone with a public
  ``obj_context`` property (getter and setter) in ovo.
- ``VersionedObject._changed_fields``: the set of changed field names
  that the fields' setters add to. Read and written in bulk when many
  fields are set or received at once; gone with a public bulk setter
  (``obj_set_fields(values)``) and an ``obj_from_primitive`` that is
  cheap per field.
- ``_obj_<name>``: where ovo's per-field property stores a field's
  value (``base._get_attrname``). Read and written directly by
  FastFieldsMixin; gone with the same two upstream changes.
- ``VersionedObject._obj_from_primitive``: the classmethod the public
  ``obj_from_primitive`` calls to build an object of a known class.
  Overridden by FastFieldsMixin; gone with an ``obj_from_primitive``
  that costs about a microsecond per field (ovo's costs several).
- ``VersionedObject._obj_primitive_key``: the namespaced key of a
  primitive's part (``nova_lite_object.data``); gone with a public
  accessor of a primitive's parts.
- ``Field._type``: a field's FieldType (String, Integer, DateTime...),
  read to know which fields are plain. Gone with a public
  ``Field.field_type`` property.

tests/unit/compat/test_ovo.py is the canary: it fails on an ovo release
where one of them changed.
"""
import datetime
import re

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

INTERNALS = (
    'oslo_versionedobjects.base.VersionedObject._context',
    'oslo_versionedobjects.base.VersionedObject._changed_fields',
    'oslo_versionedobjects.base.VersionedObject._obj_<name>',
    'oslo_versionedobjects.base.VersionedObject._obj_from_primitive',
    'oslo_versionedobjects.base.VersionedObject._obj_primitive_key',
    'oslo_versionedobjects.fields.Field._type',
)


def context_of(obj):
    """The request context obj was made or received with (None if none)."""
    return obj._context


def set_context(obj, context):
    """Give obj a request context, as ovo's own remotable methods do
    with their results."""
    obj._context = context


def field_type(field):
    """A field's FieldType instance (fields.String(), ...)."""
    return field._type


class _FieldNames(tuple):
    """A class's field names, in order, with a set's membership test."""

    def __new__(cls, names):
        self = super().__new__(cls, names)
        self._set = frozenset(names)
        return self

    def __contains__(self, name):
        return name in self._set


# Field types whose primitive is the value itself (sent as it is).
_PLAIN_TYPES = (fields.String, fields.UUID, fields.Integer, fields.Boolean,
                fields.Float)
# Field types whose coerce returns a value of exactly this Python type as
# it is (str(s) is s, int(i) is i, ...) and does nothing else: such a value
# is stored without calling it, when set or received. Any other value (a
# None, a '5' for an Integer, a bool for an Integer, a float for a
# String) goes through ovo's from_primitive, coerce and setter, which
# convert it or raise. Enum's coerce checks the value: enums always go
# through ovo.
_EXACT_TYPES = {fields.String: str, fields.Integer: int,
                fields.Boolean: bool, fields.Float: float}
# UUID's coerce returns a str as it is too, but warns when uuid.UUID
# cannot read it: a received str is stored as it is only in the
# canonical form (which uuid.UUID reads), any other goes through ovo.
_CANONICAL_UUID = re.compile(r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
                             r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12}')
_OVO_FIELD_METHODS = (fields.Field.to_primitive, fields.Field.from_primitive,
                      fields.Field.coerce)
# The only text ovo's DateTime.to_primitive makes of an aware UTC time
# ('2026-11-28T02:03:04Z'); datetime.fromisoformat reads it as
# timeutils.parse_isotime does. Any other text goes through ovo.
_OVO_UTC_TIME = re.compile(
    r'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z')
_fromisoformat = datetime.datetime.fromisoformat


class _ClassInfo(object):
    """What FastFieldsMixin needs of a class, worked out once: its
    field names (_FieldNames), and per field (name, storage attribute,
    field, whether its primitive is its value, the exact Python type of
    a value stored without coercion or None, whether a None is stored
    as it is). ovo gives every field its
    own property, reading and writing _obj_<name> (whether or not the
    class is registered), so that storage is used directly."""

    def __init__(self, cls):
        self.names = _FieldNames(tuple(cls.fields)
                                 + tuple(cls.obj_extra_fields))
        self.items = []
        self.utc_times = set()
        self.uuids = set()
        # {field: exact type} for set_fields (read-only fields keep
        # ovo's setter and its check).
        self.exact_types = {}
        for name, field in cls.fields.items():
            kind = type(field)
            ovo_methods = (kind.to_primitive, kind.from_primitive,
                           kind.coerce) == _OVO_FIELD_METHODS
            field_kind = type(field._type)
            plain = ovo_methods and field_kind in _PLAIN_TYPES
            exact = _EXACT_TYPES.get(field_kind) if ovo_methods else None
            # ovo's Field turns a None into None (from_primitive) and
            # keeps it (coerce) when the field is nullable.
            none_ok = ovo_methods and field.nullable
            self.items.append((name, '_obj_' + name, field, plain, exact,
                               none_ok))
            if (ovo_methods and field_kind is fields.DateTime
                    and field._type.tzinfo_aware):
                self.utc_times.add(name)
            if ovo_methods and field_kind is fields.UUID:
                self.uuids.add(name)
            if exact is not None and not field.read_only:
                self.exact_types[name] = exact
        self.keys = {part: cls._obj_primitive_key(part)
                     for part in ('name', 'namespace', 'version', 'data',
                                  'changes')}


_MISSING = object()


class FastFieldsMixin(object):
    """oslo.versionedobjects' change tracking and serialization, cheaper,
    with ovo's answers (tests/unit/test_object_serialization.py compares
    them for every registered class, with well-typed values and with
    wrongly typed, out-of-range and null ones). An Instance has some
    fifty fields, and ovo costs a few microseconds per field per step
    (an action passes the instance over RPC four times):

    - obj_fields is built once per class, a tuple whose membership test
      is a set's (ovo builds a list on each call and scans it);
    - obj_attr_is_set and obj_what_changed read the object's storage
      instead of going through each field's property;
    - obj_to_primitive (for the object's own version: a backport goes
      through ovo) computes obj_what_changed once, not twice, and copies
      the plain fields (strings, UUIDs, integers, booleans, floats:
      their primitive is the value) as they are;
    - deserializing stores a received value of a string, integer,
      boolean or float field as it is when its Python type is exactly
      the one ovo's coerce returns unchanged, a UUID in its canonical
      form, a None of a nullable field as it is (ovo's answer for any
      field type), and parses a time sent as
      ovo sends it ('2026-11-28T02:03:04Z') with datetime.fromisoformat;
      every other field and value goes through ovo's from_primitive and
      setter (coerced, or refused with ovo's exception).

    Put before VersionedObject in the bases."""

    @classmethod
    def _nl_info(cls):
        info = cls.__dict__.get('_nl_class_info')
        if info is None:
            info = _ClassInfo(cls)
            cls._nl_class_info = info
        return info

    @property
    def obj_fields(self):
        return self._nl_info().names

    def set_fields(self, values, names):
        """setattr(self, name, values[name]) for each of names, as ovo's
        setters do it: a value of the exact type a plain field's coerce
        returns unchanged (a str for a string, an int for an integer,
        ...) is stored as it is and marked changed; any other value (a
        None, a naive datetime, a dict) goes through the setter."""
        exact = self._nl_info().exact_types
        storage = self.__dict__
        changed = self._changed_fields
        for name in names:
            value = values[name]
            if type(value) is exact.get(name):
                storage['_obj_' + name] = value
                changed.add(name)
            else:
                setattr(self, name, value)

    def obj_attr_is_set(self, attrname):
        if attrname not in self._nl_info().names:
            return super().obj_attr_is_set(attrname)    # its AttributeError
        return '_obj_' + attrname in self.__dict__

    def obj_what_changed(self):
        fields_ = self.fields
        changes = {name for name in self._changed_fields if name in fields_}
        for key, value in self.__dict__.items():
            if (isinstance(value, ovo_base.VersionedObject)
                    and key.startswith('_obj_') and key[5:] in fields_
                    and value.obj_what_changed()):
                changes.add(key[5:])
        return changes

    def obj_to_primitive(self, target_version=None, version_manifest=None):
        if version_manifest or (target_version is not None
                                and target_version != self.VERSION):
            return super().obj_to_primitive(target_version, version_manifest)
        info = self._nl_info()
        storage = self.__dict__
        data = {}
        for name, attr, field, plain, _exact, _none_ok in info.items:
            value = storage.get(attr, _MISSING)
            if value is _MISSING:
                continue
            data[name] = value if plain else field.to_primitive(
                self, name, value)
        keys = info.keys
        primitive = {keys['name']: self.obj_name(),
                     keys['namespace']: self.OBJ_PROJECT_NAMESPACE,
                     keys['version']: self.VERSION,
                     keys['data']: data}
        changes = [name for name in self.obj_what_changed() if name in data]
        if changes:
            primitive[keys['changes']] = changes
        return primitive

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        info = cls._nl_info()
        self = cls()
        self._context = context
        self.VERSION = objver
        data = primitive[info.keys['data']]
        storage = self.__dict__
        utc_times = info.utc_times
        uuids = info.uuids
        for name, attr, field, _plain, exact, none_ok in info.items:
            if name not in data:
                continue
            value = data[name]
            if type(value) is exact or (value is None and none_ok):
                storage[attr] = value
                continue
            if (name in uuids and type(value) is str
                    and _CANONICAL_UUID.fullmatch(value)):
                storage[attr] = value
                continue
            if (name in utc_times and type(value) is str
                    and _OVO_UTC_TIME.fullmatch(value)):
                try:
                    storage[attr] = _fromisoformat(value)
                    continue
                except ValueError:
                    pass    # ovo's own answer below (its exception)
            setattr(self, name, field.from_primitive(self, name, value))
        self._changed_fields = {name for name in primitive.get(
            info.keys['changes'], ()) if name in cls.fields}
        return self
