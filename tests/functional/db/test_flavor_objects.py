"""Flavor/FlavorList on a mixed deployment: some flavors only in the legacy
tables of the top-level cell DB, some in the API DB."""
import itertools

import pytest
import sqlalchemy as sa

from nova_lite.compute.api import flavors as flavors_api
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import flavor_queries
from nova_lite.db.main import api as main_db
from nova_lite.db import migration
from nova_lite import exception
from nova_lite import objects
from nova_lite.online_migrations import flavors as flavor_migration
from tests.functional.db.flavor_helpers import add_legacy
from tests.functional.db.flavor_helpers import api_flavor
from tests.functional.db.flavor_helpers import legacy_rows
from tests.functional.db.flavor_helpers import QueryCounter


@pytest.fixture
def mixed(cells_env):
    """API flavors a1..a3 and legacy flavors l1..l3 (l1 has specs and a
    project, l3 is private)."""
    ctxt = cells_env.ctxt
    api_flavor(ctxt, 'a1', memory_mb=256, extra_specs={'hw:cpu': '1'})
    api_flavor(ctxt, 'a2', memory_mb=2048, is_public=False,
               projects=['p-a'])
    api_flavor(ctxt, 'a3', memory_mb=4096, disabled=True)
    add_legacy([{'name': 'legacy-1', 'flavorid': 'l1', 'memory_mb': 128},
                {'name': 'legacy-2', 'flavorid': 'l2', 'memory_mb': 3072,
                 'root_gb': 40},
                {'name': 'legacy-3', 'flavorid': 'l3', 'memory_mb': 1024,
                 'is_public': False}],
               specs={'l1': {'quota:disk': '5', 'hw:mem': 'large'}},
               projects={'l3': ['p-l']})
    return cells_env


def _ids(flavors):
    return [f.flavorid for f in flavors]


def test_get_by_flavor_id_finds_api_then_legacy(mixed):
    ctxt = mixed.ctxt
    assert objects.Flavor.get_by_flavor_id(ctxt, 'a1').extra_specs == {
        'hw:cpu': '1'}
    legacy = objects.Flavor.get_by_flavor_id(ctxt, 'l1')
    assert legacy.name == 'legacy-1'
    assert legacy.extra_specs == {'quota:disk': '5', 'hw:mem': 'large'}
    assert objects.Flavor.get_by_name(ctxt, 'legacy-3').projects == ['p-l']
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, 'nope')
    with pytest.raises(exception.FlavorNotFoundByName):
        objects.Flavor.get_by_name(ctxt, 'nope')


def test_get_by_id_prefers_api_db_on_same_id(mixed):
    # Integer ids are per database: id 1 exists in both; the API one wins.
    assert objects.Flavor.get_by_id(mixed.ctxt, 1).flavorid == 'a1'


def test_api_copy_hides_legacy_row_with_same_flavorid(cells_env):
    ctxt = cells_env.ctxt
    add_legacy([{'name': 'old-name', 'flavorid': 'same'}])
    api_db_insert_only(ctxt, 'same', 'new-name')
    assert objects.Flavor.get_by_flavor_id(ctxt, 'same').name == 'new-name'
    assert _ids(objects.FlavorList.get_all(ctxt)) == ['same']


def api_db_insert_only(ctxt, flavorid, name):
    """Simulate a crash after the migration's API DB commit."""
    api_flavors.create(ctxt, {'name': name, 'flavorid': flavorid,
                             'memory_mb': 1, 'vcpus': 1, 'swap': 0})


def test_get_all_is_the_union(mixed):
    flavors = objects.FlavorList.get_all(mixed.ctxt)
    assert _ids(flavors) == ['a1', 'a2', 'a3', 'l1', 'l2', 'l3']
    assert flavors[3].extra_specs == {'quota:disk': '5', 'hw:mem': 'large'}
    assert flavors[5].projects == ['p-l']


@pytest.mark.parametrize('filters,expected', [
    ({'min_memory_mb': 1024}, ['a2', 'a3', 'l2', 'l3']),
    ({'min_root_gb': 11}, ['l2']),
    ({'disabled': True}, ['a3']),
    ({'disabled': False}, ['a1', 'a2', 'l1', 'l2', 'l3']),
    ({'is_public': False}, ['a2', 'l3']),
    ({'is_public': None}, ['a1', 'a2', 'a3', 'l1', 'l2', 'l3']),
])
def test_get_all_filters_both_generations(mixed, filters, expected):
    assert _ids(objects.FlavorList.get_all(mixed.ctxt,
                                           filters=filters)) == expected


@pytest.mark.parametrize('project,expected', [
    ('p-a', ['a1', 'a2', 'a3', 'l1', 'l2']),
    ('p-l', ['a1', 'a3', 'l1', 'l2', 'l3']),
    ('other', ['a1', 'a3', 'l1', 'l2']),
])
def test_is_public_honors_project_access_on_both_generations(
        mixed, project, expected):
    ctxt = nova_context.RequestContext(user_id='u', project_id=project)
    assert _ids(objects.FlavorList.get_all(
        ctxt, filters={'is_public': True})) == expected


def _all_pages(ctxt, limit, **kw):
    pages, marker = [], None
    while True:
        page = _ids(objects.FlavorList.get_all(ctxt, limit=limit,
                                               marker=marker, **kw))
        if not page:
            return pages
        pages.append(page)
        marker = page[-1]


@pytest.mark.parametrize('sort_key', ['flavorid', 'memory_mb', 'name',
                                      'vcpu_weight', 'description', 'id',
                                      'is_public'])
@pytest.mark.parametrize('sort_dir', ['asc', 'desc'])
def test_pagination_across_the_union_sees_every_flavor_once(
        cells_env, sort_key, sort_dir):
    ctxt = cells_env.ctxt
    # Interleaved values, duplicates and NULLs in nullable keys.
    for i in range(7):
        api_flavor(ctxt, 'a%02d' % i, name='n%02d' % (i * 2),
                   memory_mb=100 * (i % 3), vcpu_weight=(i if i % 2 else
                                                         None),
                   description=None if i % 3 == 0 else 'd%d' % (i % 2))
    add_legacy([{'name': 'n%02d' % (i * 2 + 1), 'flavorid': 'l%02d' % i,
                 'memory_mb': 100 * (i % 4), 'is_public': bool(i % 2),
                 'vcpu_weight': i if i % 3 else None,
                 'description': None if i % 2 else 'd%d' % (i % 3)}
                for i in range(8)])
    everything = objects.FlavorList.get_all(ctxt, sort_key=sort_key,
                                            sort_dir=sort_dir)
    key = flavor_queries.sort_tuple(sort_key)
    expected = sorted(everything, key=lambda f: key(
        {sort_key: getattr(f, sort_key), 'flavorid': f.flavorid}),
        reverse=sort_dir == 'desc')
    assert _ids(everything) == _ids(expected)
    for limit in (1, 3, 4):
        pages = _all_pages(ctxt, limit, sort_key=sort_key,
                           sort_dir=sort_dir)
        assert list(itertools.chain(*pages)) == _ids(everything)
        assert all(len(p) == limit for p in pages[:-1])


def test_marker_may_name_a_legacy_flavor(mixed):
    assert _ids(objects.FlavorList.get_all(mixed.ctxt, marker='l1',
                                           limit=1)) == ['l2']
    with pytest.raises(exception.MarkerNotFound):
        objects.FlavorList.get_all(mixed.ctxt, marker='nope')
    with pytest.raises(exception.InvalidSortKey):
        objects.FlavorList.get_all(mixed.ctxt, sort_key='extra_specs')


def test_create_writes_api_db_only(mixed):
    flavor = api_flavor(mixed.ctxt, 'new', projects=['p1'],
                        extra_specs={'k': 'v'})
    assert flavor.id and flavor.projects == ['p1']
    assert 'new' not in legacy_rows()
    assert api_flavors.flavorids_present(mixed.ctxt, ['new']) == {'new'}


@pytest.mark.parametrize('name,flavorid,error', [
    ('legacy-1', 'fresh', exception.FlavorExists),
    ('fresh', 'l2', exception.FlavorIdExists),
    ('api-a1', 'fresh', exception.FlavorExists),
    ('fresh', 'a1', exception.FlavorIdExists),
])
def test_create_duplicate_across_generations_raises_conflict(
        mixed, name, flavorid, error):
    with pytest.raises(error) as e:
        api_flavor(mixed.ctxt, flavorid, name=name)
    assert e.value.code == 409


def test_create_generates_flavorid(cells_env):
    flavor = objects.Flavor(cells_env.ctxt, name='x', memory_mb=1, vcpus=1)
    flavor.create()
    assert len(flavor.flavorid) == 36 and flavor.swap == 0


def test_description_update_moves_legacy_flavor(mixed):
    ctxt = mixed.ctxt
    flavors_api.update_description(ctxt, 'l1', 'moved')
    assert 'l1' not in legacy_rows()
    assert api_flavors.flavorids_present(ctxt, ['l1']) == {'l1'}
    again = objects.Flavor.get_by_flavor_id(ctxt, 'l1')
    assert again.description == 'moved'
    assert again.extra_specs == {'quota:disk': '5', 'hw:mem': 'large'}
    assert _ids(objects.FlavorList.get_all(ctxt)).count('l1') == 1


def test_save_rejects_read_only_fields(mixed):
    flavor = objects.Flavor.get_by_flavor_id(mixed.ctxt, 'a1')
    flavor.memory_mb = 1
    with pytest.raises(exception.ObjectActionError):
        flavor.save()


def test_object_writes_need_a_legacy_flavor_moved_first(mixed):
    """Flavor writes touch the API DB only; the compute API moves a
    legacy flavor before writing (test above)."""
    ctxt = mixed.ctxt
    flavor = objects.Flavor.get_by_flavor_id(ctxt, 'l3')
    flavor.description = 'x'
    with pytest.raises(exception.FlavorNotFound):
        flavor.save()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, 'l3').add_access('p')
    assert 'l3' in legacy_rows()
    flavor_migration.ensure_in_api(ctxt, 'l3')
    flavor_migration.ensure_in_api(ctxt, 'l3')  # idempotent
    assert 'l3' not in legacy_rows()
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(ctxt, 'l3').description == 'x'
    with pytest.raises(exception.FlavorNotFound):
        flavor_migration.ensure_in_api(ctxt, 'nope')


def _writable(ctxt, flavorid):
    """The flavor, moved to the API DB first if it is a legacy one."""
    flavor_migration.ensure_in_api(ctxt, flavorid)
    return objects.Flavor.get_by_flavor_id(ctxt, flavorid)


@pytest.mark.parametrize('flavorid', ['a1', 'l1'])
def test_extra_specs_save_changes_only_changed_keys(mixed, flavorid):
    ctxt = mixed.ctxt
    flavor = _writable(ctxt, flavorid)
    specs = dict(flavor.extra_specs)
    first = sorted(specs)[0]
    specs.pop(first)
    specs.update({'new': 'yes'})
    flavor.extra_specs = specs
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(ctxt, flavorid).extra_specs == \
        specs
    flavor.extra_specs = dict(specs, new='changed')
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(
        ctxt, flavorid).extra_specs['new'] == 'changed'


@pytest.mark.parametrize('flavorid', ['a2', 'l3'])
def test_access_add_and_remove_on_both_generations(mixed, flavorid):
    ctxt = mixed.ctxt
    before = list(objects.Flavor.get_by_flavor_id(ctxt, flavorid).projects)
    flavors_api.add_access(ctxt, flavorid, 'p-new')
    assert objects.Flavor.get_by_flavor_id(ctxt, flavorid).projects == \
        before + ['p-new']
    with pytest.raises(exception.FlavorAccessExists):
        flavors_api.add_access(ctxt, flavorid, 'p-new')
    flavors_api.remove_access(ctxt, flavorid, before[0])
    assert objects.Flavor.get_by_flavor_id(ctxt, flavorid).projects == \
        ['p-new']
    with pytest.raises(exception.FlavorAccessNotFound):
        flavors_api.remove_access(ctxt, flavorid, before[0])
    assert flavorid not in legacy_rows()


def test_projects_save_on_moved_legacy_flavor(mixed):
    flavor = _writable(mixed.ctxt, 'l3')
    flavor.projects = ['p-x', 'p-y']
    flavor.save()
    assert sorted(objects.Flavor.get_by_flavor_id(
        mixed.ctxt, 'l3').projects) == ['p-x', 'p-y']


@pytest.mark.parametrize('flavorid', ['a1', 'l1'])
def test_destroy_removes_from_both(mixed, flavorid):
    ctxt = mixed.ctxt
    objects.Flavor.get_by_flavor_id(ctxt, flavorid).destroy()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, flavorid)
    assert flavorid not in _ids(objects.FlavorList.get_all(ctxt))
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, 'a2').__class__(
            ctxt, flavorid=flavorid).destroy()


def test_destroy_flavor_in_both_generations(cells_env):
    ctxt = cells_env.ctxt
    add_legacy([{'name': 'old', 'flavorid': 'both'}])
    api_db_insert_only(ctxt, 'both', 'old')
    objects.Flavor(ctxt, flavorid='both').destroy()
    assert legacy_rows() == []
    assert objects.FlavorList.get_all(ctxt).objects == []
    # The name is free again in both generations.
    api_flavor(ctxt, 'both', name='old')


def test_destroyed_legacy_name_may_be_reused(mixed):
    objects.Flavor.get_by_flavor_id(mixed.ctxt, 'l2').destroy()
    assert api_flavor(mixed.ctxt, 'l2', name='legacy-2').flavorid == 'l2'


def _add_mixed(ctxt, start, stop):
    for i in range(start, stop):
        api_flavor(ctxt, 'a%03d' % i, extra_specs={'k%d' % j: 'v'
                                                    for j in range(3)},
                   projects=['p1', 'p2'])
    add_legacy([{'name': 'l%03d' % i, 'flavorid': 'l%03d' % i}
                for i in range(start, stop)],
               specs={'l%03d' % i: {'a': '1', 'b': '2'}
                      for i in range(start, stop)},
               projects={'l%03d' % i: ['p3'] for i in range(start, stop)})


def _count_get_all(ctxt, n):
    with QueryCounter(*api_db.get_engines(),
                      *main_db.get_engines()) as queries:
        flavors = objects.FlavorList.get_all(ctxt)
    assert len(flavors) == n
    assert all(len(f.extra_specs) in (2, 3) and f.projects for f in flavors)
    return queries.count


def test_get_all_loads_specs_and_projects_in_bulk(cells_env):
    ctxt = cells_env.ctxt
    _add_mixed(ctxt, 0, 2)
    few = _count_get_all(ctxt, 4)
    _add_mixed(ctxt, 2, 60)
    # API: flavors + specs + projects; legacy: flavors + "already in the
    # API DB?" + specs + projects (plus connection setup statements):
    # the same for 4 flavors as for 120.
    assert _count_get_all(ctxt, 120) == few <= 10


def test_alembic_schemas_match_between_generations(tmp_path):
    api_url = 'sqlite:///%s/api.sqlite' % tmp_path
    cell_url = 'sqlite:///%s/cell.sqlite' % tmp_path
    migration.db_sync('api', api_url)
    migration.db_sync('main', cell_url)

    def describe(url, table):
        engine = sa.create_engine(url)
        try:
            insp = sa.inspect(engine)
            columns = {c['name']: (str(c['type']), c['nullable'])
                       for c in insp.get_columns(table)}
            uniques = sorted(tuple(u['column_names'])
                             for u in insp.get_unique_constraints(table))
            indexes = sorted(tuple(i['column_names'])
                             for i in insp.get_indexes(table))
            return columns, uniques, indexes
        finally:
            engine.dispose()

    for legacy, api in [('instance_types', 'flavors'),
                        ('instance_type_extra_specs', 'flavor_extra_specs'),
                        ('instance_type_projects', 'flavor_projects')]:
        assert describe(cell_url, legacy) == describe(api_url, api)


def test_get_all_without_related_rows_loads_them_on_use(cells_env):
    ctxt = cells_env.ctxt
    _add_mixed(ctxt, 0, 30)
    full = _count_get_all(ctxt, 60)
    with QueryCounter(*api_db.get_engines(),
                      *main_db.get_engines()) as queries:
        bare = objects.FlavorList.get_all(ctxt, expected_attrs=[])
    # Neither specs nor projects read: two queries fewer per generation.
    assert queries.count == full - 4
    assert not any(f.obj_attr_is_set('extra_specs') or
                   f.obj_attr_is_set('projects') for f in bare)
    with QueryCounter(*api_db.get_engines(),
                      *main_db.get_engines()) as queries:
        specs_only = objects.FlavorList.get_all(
            ctxt, expected_attrs=['extra_specs'])
    assert queries.count == full - 2
    assert all(f.obj_attr_is_set('extra_specs') and
               not f.obj_attr_is_set('projects') for f in specs_only)
    loaded = {f.flavorid: (f.extra_specs, f.projects)
              for f in objects.FlavorList.get_all(ctxt)}
    # First use loads both (the same values as a full list).
    for flavor in list(bare)[:3] + list(bare)[-3:]:
        assert (flavor.extra_specs, flavor.projects) == loaded[
            flavor.flavorid]
        assert flavor.obj_what_changed() == set()
    with pytest.raises(exception.ObjectActionError):
        objects.FlavorList.get_all(ctxt, expected_attrs=['nope'])


@pytest.mark.parametrize('flavorid', ['a1', 'l1'])
def test_save_specs_of_flavor_listed_without_them(mixed, flavorid):
    """Setting extra_specs without reading them first replaces what is
    stored, as it does on a fully loaded flavor."""
    ctxt = mixed.ctxt
    flavor_migration.ensure_in_api(ctxt, flavorid)
    [flavor] = [f for f in objects.FlavorList.get_all(ctxt,
                                                      expected_attrs=[])
                if f.flavorid == flavorid]
    flavor.extra_specs = {'only': 'this'}
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(ctxt, flavorid).extra_specs == {
        'only': 'this'}
    assert flavor.extra_specs == {'only': 'this'}
