"""Versioned-object base: registry, remotable methods, RPC serializer.

Remotable methods run locally, unless the caller's context (or, in a
dedicated compute process, the class) carries an indirection API: then they
run on the cell conductor, which has the database (DESIGN: computes never
open one). Keeping the choice on the context lets a compute and a conductor
share one process (the all-in-one and functional tests) without the
compute touching the database.
"""
import functools
import sys

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields

from nova_lite._compat import ovo as ovo_compat
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


def indirection_api(cls_or_obj, context):
    """The object indirection API a call with context goes through (the
    context's, else the class's); None when it runs here."""
    api = getattr(context, 'indirection_api', None)
    return api or cls_or_obj.indirection_api


def indirection_api_for(obj):
    """The API obj's remotable methods go through (its context's, else
    its class's); None when they run here."""
    return indirection_api(obj, ovo_compat.context_of(obj))


def indirection_api_of(cls, context):
    """The API cls's remotable classmethods go through under context;
    None when they run here."""
    return indirection_api(cls, context)


def remotable_classmethod(fn):
    """A classmethod that runs on the conductor when indirection is set."""
    @functools.wraps(fn)
    def wrapper(cls, context, *args, **kwargs):
        api = indirection_api(cls, context)
        if api:
            result = api.object_class_action_versions(
                context, cls.obj_name(), fn.__name__,
                obj_tree_get_versions(cls.obj_name()), args, kwargs)
        else:
            result = fn(cls, context, *args, **kwargs)
            if isinstance(result, ovoo_base.VersionedObject):
                # As ovo's own remotable_classmethod does.
                ovo_compat.set_context(result, context)
        return result
    wrapper.remotable = True
    wrapper.original_fn = fn
    return classmethod(wrapper)


def remotable(fn):
    """An instance method that runs on the conductor under indirection."""
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        ctxt = ovo_compat.context_of(self)
        if ctxt is None:
            raise ovoo_exc.OrphanedObjectError(method=fn.__name__,
                                               objtype=self.obj_name())
        api = indirection_api(self, ctxt)
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


FastFieldsMixin = ovo_compat.FastFieldsMixin


class NovaLiteObject(FastFieldsMixin, ovoo_base.VersionedObject,
                     ovoo_base.ComparableVersionedObject):
    OBJ_SERIAL_NAMESPACE = 'nova_lite_object'
    OBJ_PROJECT_NAMESPACE = 'nova_lite'

    @property
    def context(self):
        """The request context the object was made or received with
        (None if none): the one its remotable methods run under."""
        return ovo_compat.context_of(self)

    @context.setter
    def context(self, value):
        ovo_compat.set_context(self, value)

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)

    @staticmethod
    def _from_db_object_fields(obj, db_obj, field_names):
        for name in field_names:
            setattr(obj, name, db_obj[name])


def _readable(primitive, namespace):
    """primitive, with every object in it that a newer release wrote at a
    newer minor version than this process knows read as the newest one it
    knows: a minor version only adds fields, so the ones this release does
    not know are dropped (with their entries in the changes)."""
    if isinstance(primitive, list):
        return [_readable(item, namespace) for item in primitive]
    if not isinstance(primitive, dict):
        return primitive
    name = primitive.get(namespace + '.name')
    if name is None:
        return {key: _readable(value, namespace)
                for key, value in primitive.items()}
    data = {key: _readable(value, namespace)
            for key, value in primitive.get(namespace + '.data', {}).items()}
    primitive = dict(primitive)
    primitive[namespace + '.data'] = data
    classes = ovoo_base.VersionedObjectRegistry.obj_classes().get(name)
    if not classes:
        return primitive
    ours = classes[0]
    theirs = primitive.get(namespace + '.version', ours.VERSION)
    mine = tuple(int(p) for p in ours.VERSION.split('.'))
    written = tuple(int(p) for p in theirs.split('.'))
    if written[0] != mine[0] or written <= mine:
        return primitive    # ours, older (backlevel is ovo's) or unknown
    primitive[namespace + '.version'] = ours.VERSION
    primitive[namespace + '.data'] = {
        key: value for key, value in data.items() if key in ours.fields}
    if namespace + '.changes' in primitive:
        primitive[namespace + '.changes'] = [
            key for key in primitive[namespace + '.changes']
            if key in ours.fields]
    return primitive


def from_stored(cls, primitive):
    """cls's object from a primitive stored in a database, which a newer
    release may have written while this one still runs (a rolling
    upgrade): see _readable."""
    return cls.obj_from_primitive(
        _readable(primitive, cls.OBJ_SERIAL_NAMESPACE))


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
