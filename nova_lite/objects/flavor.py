"""Flavor and FlavorList: flavors as versioned objects.

Where a flavor lives (API DB, or the legacy tables of an upgraded
deployment) is db.flavor_union's business: reads and lists see both
generations, create and destroy cover both. Writes to an existing flavor
(save, add_access, remove_access) touch the API DB only: a flavor still in
the legacy tables must be moved first (online_migrations.flavors.
ensure_in_api, as compute.api.flavors does), else FlavorNotFound.

list_rows() is the documented fast path for rendering large pages: the
same page as FlavorList.get_all, as plain dicts, no objects built.
"""
from oslo_utils import uuidutils
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields

from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import flavor_queries as queries
from nova_lite.db import flavor_union
from nova_lite import exception
from nova_lite.objects import base

MUTABLE = ('description', 'extra_specs', 'projects')
# What lists may leave out (expected_attrs); a Flavor without one loads it
# on first use.
RELATED = queries.RELATED
_ZERO_WHEN_NULL = ('root_gb', 'ephemeral_gb', 'swap')


def _normalise(row):
    """row with the Flavor's value types: NULL sizes are 0, deleted a
    bool."""
    for name in _ZERO_WHEN_NULL:
        if row[name] is None:
            row[name] = 0
    row['deleted'] = bool(row['deleted'])
    return row


def _related(expected_attrs):
    if expected_attrs is None:
        return RELATED
    unknown = set(expected_attrs) - set(RELATED)
    if unknown:
        raise exception.ObjectActionError(
            action='get_all',
            reason='unknown expected_attrs %s' % sorted(unknown))
    return tuple(a for a in RELATED if a in expected_attrs)


def list_rows(context, filters=None, sort_key='flavorid', sort_dir='asc',
              limit=None, marker=None, expected_attrs=None):
    """The page FlavorList.get_all returns, as plain dicts keyed by the
    Flavor's field names (plus created_at & co. as stored, naive UTC):
    extra_specs and projects only when named in expected_attrs (default
    both). For read-only rendering of large pages, where building a
    thousand objects costs more than the rest of the request; no lazy
    loading, no change tracking."""
    return [_normalise(r) for r in flavor_union.list_page(
        context, filters, sort_key, sort_dir, limit, marker,
        _related(expected_attrs))]


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial (API DB first, legacy cell tables second)
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True, default=1.0),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'disabled': fields.BooleanField(),
        'is_public': fields.BooleanField(),
        'extra_specs': fields.DictOfStringsField(),
        'projects': fields.ListOfStringsField(),
        'description': fields.StringField(nullable=True),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._orig_extra_specs = {}
        self._orig_projects = []

    @staticmethod
    def _from_db_object(context, flavor, db):
        """db may lack extra_specs and projects (a list that did not load
        them): the Flavor then loads them on first use."""
        _normalise(db)
        for name in queries.COLUMNS:
            setattr(flavor, name, db[name])
        for name in RELATED:
            if name in db:
                setattr(flavor, name, db[name])
            elif flavor.obj_attr_is_set(name):
                # Whatever an earlier load held is stale now.
                delattr(flavor, name)
        flavor._orig_extra_specs = (dict(db['extra_specs'])
                                    if 'extra_specs' in db else None)
        flavor._orig_projects = list(db.get('projects', ()))
        flavor.context = context
        flavor.obj_reset_changes()
        return flavor

    def obj_load_attr(self, attrname):
        """Load extra_specs and projects (both, those not set yet) of a
        flavor listed without them."""
        if attrname not in RELATED:
            return super().obj_load_attr(attrname)
        if self.context is None:
            raise ovoo_exc.OrphanedObjectError(method='obj_load_attr',
                                               objtype=self.obj_name())
        if not self.obj_attr_is_set('flavorid'):
            raise exception.ObjectActionError(
                action='obj_load_attr', reason='no flavorid to load by')
        db = flavor_union.get(self.context, 'flavorid', self.flavorid)
        if db is None:
            raise exception.FlavorNotFound(flavor_id=self.flavorid)
        missing = [n for n in RELATED if not self.obj_attr_is_set(n)]
        for name in missing:
            setattr(self, name, db[name])
        if 'extra_specs' in missing:
            self._orig_extra_specs = dict(db['extra_specs'])
        if 'projects' in missing:
            self._orig_projects = list(db['projects'])
        self.obj_reset_changes(missing)

    @classmethod
    def _get(cls, context, column, value, exc):
        db = flavor_union.get(context, column, value)
        if db is None:
            raise exc
        return cls._from_db_object(context, cls(), db)

    @base.remotable_classmethod
    def get_by_id(cls, context, id):
        return cls._get(context, 'id', id,
                        exception.FlavorNotFound(flavor_id=id))

    @base.remotable_classmethod
    def get_by_flavor_id(cls, context, flavor_id):
        return cls._get(context, 'flavorid', flavor_id,
                        exception.FlavorNotFound(flavor_id=flavor_id))

    @base.remotable_classmethod
    def get_by_name(cls, context, name):
        return cls._get(context, 'name', name,
                        exception.FlavorNotFoundByName(flavor_name=name))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        specs = updates.pop('extra_specs', None) or {}
        projects = updates.pop('projects', None) or []
        if not updates.get('flavorid'):
            updates['flavorid'] = uuidutils.generate_uuid()
        updates.setdefault('swap', 0)
        updates.setdefault('rxtx_factor', 1.0)
        updates.setdefault('root_gb', 0)
        updates.setdefault('ephemeral_gb', 0)
        updates.setdefault('disabled', False)
        updates.setdefault('is_public', True)
        self._from_db_object(self.context, self, flavor_union.create(
            self.context, updates, specs, projects))

    @base.remotable
    def save(self):
        """Write description, extra spec and access changes (API DB
        only)."""
        changes = self.obj_get_changes()
        read_only = set(changes) - set(MUTABLE)
        if read_only:
            raise exception.ObjectActionError(
                action='save',
                reason='read-only fields changed: %s' % sorted(read_only))
        if not changes:
            return
        add_specs = delete_specs = None
        if 'extra_specs' in changes:
            if self._orig_extra_specs is None:
                # Listed without specs, then set without reading them:
                # what is stored decides what to add and delete.
                self._orig_extra_specs = dict(flavor_union.get(
                    self.context, 'flavorid', self.flavorid)['extra_specs'])
            add_specs = {k: v for k, v in self.extra_specs.items()
                         if self._orig_extra_specs.get(k) != v}
            delete_specs = set(self._orig_extra_specs) - set(
                self.extra_specs)
        values = ({'description': self.description}
                  if 'description' in changes else {})
        db = api_flavors.update(self.context, self.flavorid, values,
                                add_specs, delete_specs)
        if 'projects' in changes:
            wanted = set(self.projects)
            for project in wanted - set(db['projects']):
                db = api_flavors.add_project(self.context, self.flavorid,
                                             project)
            for project in set(db['projects']) - wanted:
                db = api_flavors.remove_project(self.context,
                                                self.flavorid, project)
        self._from_db_object(self.context, self, db)

    def _check_projects_unchanged(self, action):
        if 'projects' in self.obj_what_changed():
            raise exception.ObjectActionError(
                action=action, reason='projects modified')

    @base.remotable
    def add_access(self, project_id):
        self._check_projects_unchanged('add_access')
        self._from_db_object(self.context, self, api_flavors.add_project(
            self.context, self.flavorid, project_id))

    @base.remotable
    def remove_access(self, project_id):
        self._check_projects_unchanged('remove_access')
        self._from_db_object(self.context, self, api_flavors.remove_project(
            self.context, self.flavorid, project_id))

    @base.remotable
    def destroy(self):
        flavor_union.destroy(self.context, self.flavorid)


@base.NovaLiteObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: get_all(expected_attrs): which of extra_specs and projects to
    #      load (default both); the Flavors load the others on first use
    VERSION = '1.1'
    fields = {'objects': fields.ListOfObjectsField('Flavor')}

    @base.remotable_classmethod
    def get_all(cls, context, inactive=False, filters=None,
                sort_key='flavorid', sort_dir='asc', limit=None,
                marker=None, expected_attrs=None):
        rows = list_rows(context, filters, sort_key, sort_dir, limit,
                         marker, expected_attrs)
        return base.obj_make_list(context, cls(context), Flavor, rows)
