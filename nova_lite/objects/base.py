"""Versioned-object base: registry, remotable methods, RPC serializer.

Remotable methods run locally, unless the caller's context (or, in a
dedicated compute process, the class) carries an indirection API: then they
run on the cell conductor, which has the database (DESIGN: computes never
open one). Keeping the choice on the context lets a compute and a conductor
share one process (the all-in-one and functional tests) without the
compute touching the database.
"""
import datetime
import functools
import sys

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields

from nova_lite import rpc

obj_make_list = ovoo_base.obj_make_list
obj_tree_get_versions = ovoo_base.obj_tree_get_versions


class NovaLiteObjectRegistry(ovoo_base.VersionedObjectRegistry):
    def registration_hook(self, cls, index):
        # Expose the newest version of each object as nova_lite.objects.<Name>
        # (the package this module lives in, imported before it).
        objects = sys.modules[__package__]
        current = getattr(objects, cls.obj_name(), None)
        if current is None or _newer(cls.VERSION, current.VERSION):
            setattr(objects, cls.obj_name(), cls)


def _newer(a, b):
    return tuple(map(int, a.split('.'))) > tuple(map(int, b.split('.')))


def _indirection_api(cls_or_obj, context):
    api = getattr(context, 'indirection_api', None)
    return api or cls_or_obj.indirection_api


def indirection_api_for(obj):
    """The API obj's remotable methods go through (its context's, else
    its class's); None when they run here."""
    return _indirection_api(obj, obj._context)


def indirection_api_of(cls, context):
    """The API cls's remotable classmethods go through under context;
    None when they run here."""
    return _indirection_api(cls, context)


def remotable_classmethod(fn):
    """A classmethod that runs on the conductor when indirection is set."""
    @functools.wraps(fn)
    def wrapper(cls, context, *args, **kwargs):
        api = _indirection_api(cls, context)
        if api:
            result = api.object_class_action_versions(
                context, cls.obj_name(), fn.__name__,
                obj_tree_get_versions(cls.obj_name()), args, kwargs)
        else:
            result = fn(cls, context, *args, **kwargs)
            if isinstance(result, ovoo_base.VersionedObject):
                # As ovo's own remotable_classmethod does (no public
                # setter): doc/private-apis.rst.
                result._context = context
        return result
    wrapper.remotable = True
    wrapper.original_fn = fn
    return classmethod(wrapper)


def remotable(fn):
    """An instance method that runs on the conductor under indirection."""
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        ctxt = self._context
        if ctxt is None:
            raise ovoo_exc.OrphanedObjectError(method=fn.__name__,
                                               objtype=self.obj_name())
        api = _indirection_api(self, ctxt)
        if not api:
            return fn(self, *args, **kwargs)
        updates, result = api.object_action(ctxt, self, fn.__name__,
                                            args, kwargs)
        for key, value in updates.items():
            if key in self.fields:
                field = self.fields[key]
                if isinstance(value, ovoo_base.VersionedObject):
                    setattr(self, key, value)
                else:
                    setattr(self, key, field.from_primitive(self, key, value))
        # Changed here is what the conductor left changed (every field it
        # sent a value for was just set, so only resets are needed).
        remote_changed = set(updates.get('obj_what_changed', []))
        if not remote_changed:
            # The usual answer of a save: nothing left changed.
            self.obj_reset_changes()
            return result
        stale = [f for f in self.obj_what_changed() if f not in remote_changed]
        if stale:   # obj_reset_changes([]) would reset every field
            self.obj_reset_changes(stale)
        return result
    wrapper.remotable = True
    wrapper.original_fn = fn
    return wrapper


class _FieldNames(tuple):
    """A class's field names, in order, with a set's membership test."""

    def __new__(cls, names):
        self = super().__new__(cls, names)
        self._set = frozenset(names)
        return self

    def __contains__(self, name):
        return name in self._set


# Field types whose primitive is the value itself and whose coerce
# returns a received primitive unchanged (exact types: Enum, a String,
# validates on coerce and is not among them).
_EXACT_TYPES = {fields.String: str, fields.UUID: str, fields.Integer: int,
                fields.Boolean: bool, fields.Float: float}
_PLAIN_TYPES = tuple(_EXACT_TYPES)
_OVO_FIELD_METHODS = (fields.Field.to_primitive, fields.Field.from_primitive,
                      fields.Field.coerce)


class _ClassInfo(object):
    """What FastFieldsMixin needs of a class, worked out once: its
    field names (_FieldNames), and per field (name, storage attribute,
    field, whether its primitive is its value). ovo gives every field
    its own property, reading and writing _obj_<name> (whether or not
    the class is registered), so that storage is read directly."""

    def __init__(self, cls):
        self.names = _FieldNames(tuple(cls.fields)
                                 + tuple(cls.obj_extra_fields))
        self.items = []
        self.utc_times = set()
        # {field: the Python type its coerce returns unchanged}, for
        # set_fields (read-only fields keep ovo's setter and its check).
        self.exact_types = {}
        for name, field in cls.fields.items():
            kind = type(field)
            ovo_methods = (kind.to_primitive, kind.from_primitive,
                           kind.coerce) == _OVO_FIELD_METHODS
            plain = ovo_methods and type(field._type) in _PLAIN_TYPES
            self.items.append((name, '_obj_' + name, field, plain))
            if (ovo_methods and type(field._type) is fields.DateTime
                    and field._type.tzinfo_aware):
                self.utc_times.add(name)
            if plain and not field.read_only:
                self.exact_types[name] = _EXACT_TYPES[type(field._type)]
        self.keys = {part: cls._obj_primitive_key(part)
                     for part in ('name', 'namespace', 'version', 'data',
                                  'changes')}


_MISSING = object()
_fromisoformat = datetime.datetime.fromisoformat


class FastFieldsMixin(object):
    """oslo.versionedobjects' change tracking and serialization, cheaper,
    with ovo's answers (tests/unit/test_object_serialization.py compares
    them for every registered class). An Instance has some fifty fields, and
    ovo costs a few microseconds per field per step (its serialization of
    one was about 245 us, its deserialization 145 us; an action passes
    the instance over RPC four times):

    - obj_fields is built once per class, a tuple whose membership test
      is a set's (ovo builds a list on each call and scans it);
    - obj_attr_is_set and obj_what_changed read the object's storage
      instead of going through each field's property;
    - obj_to_primitive (for the object's own version: a backport goes
      through ovo) computes obj_what_changed once, not twice, and copies
      the plain fields (strings, UUIDs, integers, booleans, floats:
      their primitive is the value) as they are;
    - deserializing stores those plain fields' received values without
      coercing them again (they were coerced when the sender set them),
      and parses the times ovo sends ('2026-11-28T02:03:04Z') with
      datetime.fromisoformat; every other field (and value) goes
      through ovo's from_primitive and setter.

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
            if (isinstance(value, ovoo_base.VersionedObject)
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
        for name, attr, field, plain in info.items:
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
        for name, attr, field, plain in info.items:
            if name not in data:
                continue
            value = data[name]
            if plain:
                storage[attr] = value
                continue
            if (name in info.utc_times and isinstance(value, str)
                    and value[-1:] == 'Z'):
                try:
                    storage[attr] = _fromisoformat(value)
                    continue
                except ValueError:
                    pass
            setattr(self, name, field.from_primitive(self, name, value))
        self._changed_fields = {name for name in primitive.get(
            info.keys['changes'], ()) if name in cls.fields}
        return self


class NovaLiteObject(FastFieldsMixin, ovoo_base.VersionedObject,
                     ovoo_base.ComparableVersionedObject):
    OBJ_SERIAL_NAMESPACE = 'nova_lite_object'
    OBJ_PROJECT_NAMESPACE = 'nova_lite'

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)

    @staticmethod
    def _from_db_object_fields(obj, db_obj, field_names):
        for name in field_names:
            setattr(obj, name, db_obj[name])


class NovaLitePersistentObject(object):
    """Mixin: the timestamp and soft-delete fields of persistent rows."""
    fields = {
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'deleted_at': fields.DateTimeField(nullable=True),
        'deleted': fields.BooleanField(default=False),
    }


class ObjectListBase(ovoo_base.ObjectListBase):
    pass


class NovaLiteObjectSerializer(ovoo_base.VersionedObjectSerializer):
    """Serializes objects for RPC.

    With object_versions ({objname: version}, what an older receiver
    understands), objects are backported with obj_make_compatible before
    they leave, so the receiver never sees a version it does not know.
    """
    OBJ_BASE_CLASS = NovaLiteObject

    def __init__(self, object_versions=None):
        super().__init__()
        self.object_versions = object_versions

    def serialize_entity(self, context, entity):
        if (self.object_versions
                and isinstance(entity, ovoo_base.VersionedObject)
                and entity.obj_name() in self.object_versions):
            return entity.obj_to_primitive(
                target_version=self.object_versions[entity.obj_name()],
                version_manifest=self.object_versions)
        return super().serialize_entity(context, entity)


# Every RPC client and server of this process sends objects with it.
rpc.set_entity_serializer(NovaLiteObjectSerializer)
