"""The compute API for flavors: what the REST controllers call.

Flavors are global; the Flavor objects hide whether one still sits in the
legacy tables of the top-level cell database or already in the API
database. Writes go to the API DB: a legacy flavor is moved there first
(online_migrations.flavors.ensure_in_api). On top of them this module
keeps what the API promises: who sees which flavor (administrators every
one; everybody else public flavors and the private ones their project may
use), the checks and defaults of a new flavor, and the errors of extra
specs and access lists.
"""
from oslo_utils import uuidutils

from nova_lite import constants
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import flavor as flavor_obj
from nova_lite.online_migrations import flavors as flavor_migration

SQL_SP_FLOAT_MAX = 3.40282e+38
# The description is TEXT: 65535 bytes on MySQL/MariaDB.
MAX_DESCRIPTION_BYTES = 65535
MAX_EXTRA_SPEC_LENGTH = 255


def _visible(context, flavor):
    return (context.is_admin or flavor.is_public
            or context.project_id in flavor.projects)


def get(context, flavorid):
    """The flavor with this flavorid, as the caller may see it.

    A private flavor the caller's project has no access to does not exist
    for a non-administrator (FlavorNotFound, 404).
    """
    flavor = objects.Flavor.get_by_flavor_id(context, flavorid)
    if not _visible(context, flavor):
        raise exception.FlavorNotFound(flavor_id=flavorid)
    return flavor


def get_all(context, is_public=True, min_memory_mb=None, min_root_gb=None,
            sort_key='flavorid', sort_dir='asc', limit=None, marker=None,
            expected_attrs=None, name=None):
    """One page of the flavors the caller may see, across both
    generations.

    is_public (administrators only): True for public flavors and private
    ones the caller's project may use, False for private ones only, None
    for all. Everybody else gets enabled public flavors and the private
    ones their project may use. An unknown (or invisible) marker is
    MarkerNotFound (400). expected_attrs: which of extra_specs and
    projects to load (default both). name: only flavors whose name the
    regular expression matches somewhere (2.102, as Nova).

    The page is plain rows (objects.flavor.list_rows: dicts keyed by
    Flavor field names) for rendering, not Flavor objects.
    """
    filters = {'min_memory_mb': min_memory_mb, 'min_root_gb': min_root_gb,
               'name': name}
    if context.is_admin:
        filters['is_public'] = is_public
    else:
        filters.update(is_public=True, disabled=False)
        if marker is not None:
            try:
                get(context, marker)
            except exception.FlavorNotFound:
                raise exception.MarkerNotFound(marker=marker)
    return flavor_obj.list_rows(
        context, filters=filters, sort_key=sort_key,
        sort_dir=sort_dir.lower(), limit=limit, marker=marker,
        expected_attrs=expected_attrs)


def _integer(value, name, minimum):
    """value (an int or a string of digits) as an int in
    [minimum, constants.DB_MAX_INT]; InvalidInput (400) otherwise."""
    try:
        number = int(str(value))
    except (TypeError, ValueError):
        raise exception.InvalidInput(reason='%s must be an integer.' % name)
    if not minimum <= number <= constants.DB_MAX_INT:
        raise exception.InvalidInput(
            reason='%s must be >= %d and <= %d.' % (name, minimum,
                                                    constants.DB_MAX_INT))
    return number


def _check_description(description):
    if description is not None and len(
            description.encode('utf-8')) > MAX_DESCRIPTION_BYTES:
        raise exception.InvalidInput(
            reason='description must be at most %d bytes long.'
                   % MAX_DESCRIPTION_BYTES)


def create(context, name, memory_mb, vcpus, root_gb, ephemeral_gb=0,
           flavorid=None, swap=0, rxtx_factor=1.0, is_public=True,
           description=None):
    """Create a flavor in the API database.

    Without flavorid a UUID is generated. Name and flavorid are unique
    across both generations: FlavorExists / FlavorIdExists (409), also
    against a flavor the online migration has not moved yet.
    """
    values = {
        'name': name,
        'memory_mb': _integer(memory_mb, 'ram', 1),
        'vcpus': _integer(vcpus, 'vcpus', 1),
        'root_gb': _integer(root_gb, 'disk', 0),
        'ephemeral_gb': _integer(ephemeral_gb, 'ephemeral', 0),
        'swap': _integer(swap, 'swap', 0),
        'is_public': bool(is_public),
        'flavorid': (str(flavorid) if flavorid not in (None, '')
                     else uuidutils.generate_uuid()),
        'description': description,
    }
    try:
        values['rxtx_factor'] = float(rxtx_factor)
    except (TypeError, ValueError):
        values['rxtx_factor'] = -1.0
    if not 0 < values['rxtx_factor'] <= SQL_SP_FLOAT_MAX:
        raise exception.InvalidInput(
            reason="'rxtx_factor' argument must be a float between 0 and "
                   "%g" % SQL_SP_FLOAT_MAX)
    _check_description(description)
    flavor = objects.Flavor(context, **values)
    flavor.create()
    return flavor


def update_description(context, flavorid, description):
    """Set a flavor's description (a legacy flavor moves to the API DB)."""
    _check_description(description)
    flavor = get(context, flavorid)
    flavor.description = description
    flavor_migration.ensure_in_api(context, flavorid)
    flavor.save()
    return flavor


def delete(context, flavorid):
    """Delete a flavor from whichever generation(s) hold it."""
    objects.Flavor(context=context, flavorid=flavorid).destroy()


# --- extra specs -----------------------------------------------------------

def _spec_value(value):
    """Extra spec values are strings; numbers are stored as such."""
    value = value if isinstance(value, str) else str(value)
    if len(value) > MAX_EXTRA_SPEC_LENGTH:
        raise exception.InvalidInput(
            reason='extra_specs value has more than %d characters.'
                   % MAX_EXTRA_SPEC_LENGTH)
    return value


def extra_specs_update(context, flavorid, specs):
    """Create or update extra specs (a legacy flavor moves first)."""
    values = {key: _spec_value(value) for key, value in specs.items()}
    flavor = get(context, flavorid)
    flavor.extra_specs = dict(flavor.extra_specs, **values)
    flavor_migration.ensure_in_api(context, flavorid)
    flavor.save()
    return flavor


def extra_spec_get(context, flavorid, key):
    flavor = get(context, flavorid)
    try:
        return flavor.extra_specs[key]
    except KeyError:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid,
                                                 extra_specs_key=key)


def extra_spec_delete(context, flavorid, key):
    """Delete one extra spec; FlavorExtraSpecsNotFound (404) if unset."""
    flavor = get(context, flavorid)
    if key not in flavor.extra_specs:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid,
                                                 extra_specs_key=key)
    specs = dict(flavor.extra_specs)
    del specs[key]
    flavor.extra_specs = specs
    flavor_migration.ensure_in_api(context, flavorid)
    flavor.save()


# --- access ----------------------------------------------------------------

def access_list(context, flavorid):
    """The flavor, whose projects may use it; public flavors have no list
    (FlavorAccessListPublic, 404)."""
    flavor = get(context, flavorid)
    if flavor.is_public:
        raise exception.FlavorAccessListPublic()
    return flavor


def add_access(context, flavorid, project_id, public_conflict=True):
    """Let project_id use the flavor: FlavorAccessExists (409) if it may
    already, FlavorAccessPublic (409) for a public flavor when
    public_conflict (microversion 2.7 and later)."""
    flavor = get(context, flavorid)
    if public_conflict and flavor.is_public:
        raise exception.FlavorAccessPublic()
    flavor_migration.ensure_in_api(context, flavorid)
    flavor.add_access(project_id)
    return flavor


def remove_access(context, flavorid, project_id):
    """FlavorAccessNotFound (404) if project_id had no access."""
    flavor = get(context, flavorid)
    flavor_migration.ensure_in_api(context, flavorid)
    flavor.remove_access(project_id)
    return flavor
