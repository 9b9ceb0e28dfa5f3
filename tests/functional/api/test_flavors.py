"""Flavors through the WSGI app on a mixed deployment: a1..a3 in the API
DB, l1..l4 only in the legacy tables of the top-level cell DB (see
flavor_fixtures.mixed)."""
import itertools
import json
from urllib import parse

import pytest

from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api.flavor_fixtures import ALL_IDS
from tests.functional.api.flavor_fixtures import get
from tests.functional.api.flavor_fixtures import in_api_db
from tests.functional.db.flavor_helpers import add_legacy
from tests.functional.db.flavor_helpers import legacy_rows
from tests.functional.db.flavor_helpers import QueryCounter

DETAIL_FIELDS = {'id', 'name', 'ram', 'disk', 'swap', 'vcpus', 'links',
                 'OS-FLV-EXT-DATA:ephemeral', 'OS-FLV-DISABLED:disabled',
                 'os-flavor-access:is_public', 'rxtx_factor'}


def _ids(body):
    return [f['id'] for f in body['flavors']]


def _create(app, flavor, v=None, status=200, token=ADMIN):
    return app.post_json('/v2.1/flavors', {'flavor': flavor},
                         headers=headers(v, token), status=status).json


def _flavor(**kw):
    return dict({'name': 'new', 'ram': 512, 'vcpus': 1, 'disk': 1}, **kw)


@pytest.fixture
def app(flavor_app):
    # No services or compute nodes are needed here: a lighter app.
    return flavor_app


# --- list ------------------------------------------------------------------

def test_list_is_the_union_of_both_generations(app, mixed):
    body = get(app, '/flavors?is_public=None')
    assert _ids(body) == ALL_IDS
    l1 = body['flavors'][3]
    assert l1 == {'id': 'l1', 'name': 'legacy-1', 'links': [
        {'rel': 'self', 'href': 'http://localhost/v2.1/flavors/l1'},
        {'rel': 'bookmark', 'href': 'http://localhost/flavors/l1'}]}
    assert 'flavors_links' not in body


def test_admin_is_public_filter(app, mixed):
    # Default: public flavors (and private ones of the admin's project).
    assert _ids(get(app, '/flavors')) == ['a1', 'a3', 'l1', 'l2']
    assert _ids(get(app, '/flavors?is_public=true')) == [
        'a1', 'a3', 'l1', 'l2']
    assert _ids(get(app, '/flavors?is_public=false')) == ['a2', 'l3', 'l4']
    assert _ids(get(app, '/flavors/detail?is_public=none')) == ALL_IDS


def test_member_sees_enabled_public_and_own_private_flavors(app, mixed):
    expected = ['a1', 'a2', 'l1', 'l2', 'l3']
    assert _ids(get(app, '/flavors', token=MEMBER)) == expected
    # is_public is an administrator's filter: ignored for members.
    for value in ('None', 'false', 'bogus'):
        assert _ids(get(app, '/flavors/detail?is_public=' + value,
                        token=MEMBER)) == expected


def test_min_ram_and_min_disk_filter_both_generations(app, mixed):
    assert _ids(get(app, '/flavors?is_public=None&minRam=1024')) == [
        'a2', 'a3', 'l2', 'l3', 'l4']
    assert _ids(get(app, '/flavors?is_public=None&minDisk=11')) == ['l2']
    assert _ids(get(app, '/flavors?is_public=None&minRam=-5')) == ALL_IDS
    assert _ids(get(app, '/flavors?minRam=99999999999999999999')) == []


def test_sort_key_and_dir_across_generations(app, mixed):
    body = get(app, '/flavors/detail?is_public=None&sort_key=memory_mb'
                    '&sort_dir=desc')
    # as Nova: the direction is lower case ('DESC' is a 400).
    app.get('/v2.1/flavors/detail?sort_dir=DESC', headers=headers(),
            status=400)
    ram = [f['ram'] for f in body['flavors']]
    assert ram == sorted(ram, reverse=True)
    assert _ids(body)[:2] == ['a3', 'l2']
    assert _ids(get(app, '/flavors?is_public=None&sort_key=name')) == \
        ALL_IDS


BAD_QUERIES = [
    ('minRam=abc', 'minRam'), ('minDisk=1.5', 'minDisk'),
    ('is_public=maybe', 'is_public'), ('sort_key=extra_specs', 'sort_key'),
    ('sort_dir=up', 'sort_dir'), ('limit=-1', 'limit'),
    ('limit=abc', 'limit'), ('marker=nope', 'nope'),
]


def test_bad_query_values_are_400(app, mixed):
    for query, field in BAD_QUERIES:
        for path in ('/v2.1/flavors?', '/v2.1/flavors/detail?'):
            resp = app.get(path + query, headers=headers(), status=400)
            assert field in resp.json['badRequest']['message'], query


def test_unknown_query_parameter_is_400_from_2_75(app, mixed):
    assert _ids(get(app, '/flavors?foo=bar', v='2.74')) == [
        'a1', 'a3', 'l1', 'l2']
    resp = app.get('/v2.1/flavors/detail?foo=bar', headers=headers('2.75'),
                   status=400)
    assert 'foo' in resp.json['badRequest']['message']


def _follow(app, path, token=ADMIN):
    """Every page, following the next links the API gives."""
    pages = []
    while path:
        body = get(app, path, token=token)
        pages.append(_ids(body))
        links = body.get('flavors_links')
        path = None
        if links:
            assert links[0]['rel'] == 'next'
            url = parse.urlsplit(links[0]['href'])
            assert url.path in ('/v2.1/flavors', '/v2.1/flavors/detail')
            path = url.path[len('/v2.1'):] + '?' + url.query
    return pages


def test_pagination_across_the_union_with_next_links(app, mixed):
    for detail in ('', '/detail'):
        pages = _follow(app, '/flavors%s?is_public=None&limit=2' % detail)
        assert pages == [['a1', 'a2'], ['a3', 'l1'], ['l2', 'l3'], ['l4']]
        pages = _follow(app, '/flavors%s?is_public=None&limit=3'
                             '&sort_key=name&sort_dir=desc' % detail)
        assert list(itertools.chain(*pages)) == ALL_IDS[::-1]


def test_next_link_keeps_the_query_and_replaces_the_marker(app, mixed):
    body = get(app, '/flavors/detail?is_public=None&marker=a1&limit=2'
                    '&minRam=100')
    href = body['flavors_links'][0]['href']
    url = parse.urlsplit(href)
    assert url.path == '/v2.1/flavors/detail'
    assert dict(parse.parse_qsl(url.query)) == {
        'is_public': 'None', 'limit': '2', 'marker': 'a3', 'minRam': '100'}


def test_legacy_marker(app, mixed):
    assert _ids(get(app, '/flavors?is_public=None&marker=l1&limit=2')) == [
        'l2', 'l3']
    assert _ids(get(app, '/flavors?is_public=None&marker=l4')) == []


def test_member_marker_must_be_visible(app, mixed):
    assert _ids(get(app, '/flavors?marker=l2', token=MEMBER)) == ['l3']
    resp = app.get('/v2.1/flavors?marker=l4', headers=MEMBER, status=400)
    assert 'l4' in resp.json['badRequest']['message']


def test_limit_is_capped_by_max_limit(app, mixed, conf):
    conf.set_override('max_limit', 3, group='api')
    try:
        pages = _follow(app, '/flavors?is_public=None&limit=50')
    finally:
        conf.clear_override('max_limit', group='api')
    assert pages == [['a1', 'a2', 'a3'], ['l1', 'l2', 'l3'], ['l4']]


def test_limit_zero_is_an_empty_page(app, mixed):
    assert get(app, '/flavors?limit=0') == {'flavors': []}


# --- fields per microversion ----------------------------------------------

def test_detail_fields_before_2_55(app, mixed):
    body = get(app, '/flavors/detail?is_public=None', v='2.54')
    flavors = {f['id']: f for f in body['flavors']}
    assert all(set(f) == DETAIL_FIELDS for f in flavors.values())
    assert flavors['l2'] == {
        'id': 'l2', 'name': 'legacy-2', 'ram': 3072, 'disk': 40,
        'swap': 512, 'vcpus': 4, 'OS-FLV-EXT-DATA:ephemeral': 5,
        'OS-FLV-DISABLED:disabled': False,
        'os-flavor-access:is_public': True, 'rxtx_factor': 2.0,
        'links': flavors['l2']['links']}
    # No swap is "" before 2.75.
    assert flavors['l1']['swap'] == ''
    assert flavors['a3']['OS-FLV-DISABLED:disabled'] is True
    assert flavors['a2']['os-flavor-access:is_public'] is False


def test_description_from_2_55(app, mixed):
    body = get(app, '/flavors/detail?is_public=None', v='2.55')
    flavors = {f['id']: f for f in body['flavors']}
    assert flavors['l2']['description'] == 'big one'
    assert flavors['a1']['description'] is None
    assert 'extra_specs' not in flavors['l1']
    summary = get(app, '/flavors', v='2.55')['flavors'][0]
    assert set(summary) == {'id', 'name', 'links', 'description'}
    assert 'description' not in get(app, '/flavors/l2', v='2.54')['flavor']
    assert get(app, '/flavors/l2', v='2.55')['flavor'][
        'description'] == 'big one'


def test_extra_specs_in_flavor_bodies_from_2_61(app, mixed):
    assert 'extra_specs' not in get(app, '/flavors/l1', v='2.60')['flavor']
    for token in (ADMIN, MEMBER):
        flavors = {f['id']: f for f in get(
            app, '/flavors/detail', v='2.61', token=token)['flavors']}
        assert flavors['l1']['extra_specs'] == {
            'quota:disk_read_bytes_sec': '5', 'hw:mem_page_size': 'large'}
        assert flavors['a1']['extra_specs'] == {'hw:cpu_policy': 'shared'}
        assert flavors['l2']['extra_specs'] == {}
    assert get(app, '/flavors/a1', v='2.61', token=MEMBER)['flavor'][
        'extra_specs'] == {'hw:cpu_policy': 'shared'}
    # GET /flavors (not detail) never carries them.
    assert 'extra_specs' not in get(app, '/flavors', v='2.61')['flavors'][0]


def test_extra_specs_left_out_when_policy_denies_them(app, mixed, tmp_path,
                                                      conf):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(
        '"os_compute_api:os-flavor-extra-specs:index": "role:admin"\n')
    conf.set_override('policy_file', str(policy_file), group='oslo_policy')
    from nova_lite import policy
    policy.reset()
    try:
        member = get(app, '/flavors/l1', v='2.61', token=MEMBER)['flavor']
        admin = get(app, '/flavors/l1', v='2.61')['flavor']
    finally:
        conf.clear_override('policy_file', group='oslo_policy')
        policy.reset()
    assert 'extra_specs' not in member
    assert admin['extra_specs']['hw:mem_page_size'] == 'large'


def test_swap_is_zero_from_2_75(app, mixed):
    assert get(app, '/flavors/l1', v='2.74')['flavor']['swap'] == ''
    assert get(app, '/flavors/l1', v='2.75')['flavor']['swap'] == 0
    assert get(app, '/flavors/l2', v='2.75')['flavor']['swap'] == 512


def test_detail_queries_do_not_grow_with_the_flavors(app, mixed):
    def count():
        with QueryCounter(*api_db.get_engines(), *main_db.get_engines()) as q:
            body = get(app, '/flavors/detail?is_public=None', v='2.61')
        return q.count, len(body['flavors'])

    few, n = count()
    add_legacy([{'name': 'bulk-%d' % i, 'flavorid': 'bulk-%d' % i}
                for i in range(40)],
               specs={'bulk-%d' % i: {'k': 'v'} for i in range(40)})
    many, m = count()
    assert (n, m) == (7, 47)
    assert many == few


# --- show ------------------------------------------------------------------

def test_show_either_generation(app, mixed):
    for flavorid in ('a1', 'l1'):
        flavor = get(app, '/flavors/%s' % flavorid)['flavor']
        assert flavor['id'] == flavorid and set(flavor) == DETAIL_FIELDS
        assert flavor['links'][0]['href'].endswith(
            '/v2.1/flavors/' + flavorid)


def test_show_unknown_is_404(app, mixed):
    resp = get(app, '/flavors/nope', status=404)
    assert resp['itemNotFound']['message'] == \
        'Flavor nope could not be found.'


def test_member_sees_private_flavors_only_with_access(app, mixed):
    for flavorid, status in (('a2', 200), ('l3', 200), ('l4', 404),
                             ('a3', 200)):
        get(app, '/flavors/%s' % flavorid, token=MEMBER, status=status)
        get(app, '/flavors/%s' % flavorid, status=200)


def test_ids_with_spaces_and_dots_are_quoted_in_links(app, mixed):
    _create(app, _flavor(id='m1.big one'))
    flavor = get(app, '/flavors/m1.big%20one')['flavor']
    assert flavor['links'][0]['href'] == \
        'http://localhost/v2.1/flavors/m1.big%20one'


# --- create ----------------------------------------------------------------

def test_create_with_every_field(app, mixed):
    flavor = _create(app, {
        'name': 'full', 'id': 'full-1', 'ram': '1024', 'vcpus': 2,
        'disk': 20, 'OS-FLV-EXT-DATA:ephemeral': 5, 'swap': 256,
        'rxtx_factor': '1.5', 'os-flavor-access:is_public': 'false',
        'description': 'all of it'}, v='2.55')['flavor']
    assert flavor == {
        'id': 'full-1', 'name': 'full', 'ram': 1024, 'vcpus': 2,
        'disk': 20, 'OS-FLV-EXT-DATA:ephemeral': 5, 'swap': 256,
        'rxtx_factor': 1.5, 'os-flavor-access:is_public': False,
        'OS-FLV-DISABLED:disabled': False, 'description': 'all of it',
        'links': flavor['links']}
    assert get(app, '/flavors/full-1', v='2.55')['flavor'] == flavor
    assert 'full-1' in _ids(get(app, '/flavors?is_public=false'))
    assert 'full-1' not in legacy_rows()
    assert in_api_db(mixed.ctxt, 'full-1')


def test_create_defaults_and_generated_id(app, mixed):
    flavor = _create(app, _flavor(), v='2.61')['flavor']
    assert len(flavor['id']) == 36
    assert flavor['swap'] == '' and flavor['rxtx_factor'] == 1.0
    assert flavor['OS-FLV-EXT-DATA:ephemeral'] == 0
    assert flavor['os-flavor-access:is_public'] is True
    assert flavor['extra_specs'] == {} and flavor['description'] is None
    assert get(app, '/flavors/%s' % flavor['id'])['flavor']['name'] == 'new'


def test_create_with_numeric_and_null_id(app, mixed):
    assert _create(app, _flavor(id=42))['flavor']['id'] == '42'
    assert len(_create(app, _flavor(name='n2', id=None))['flavor'][
        'id']) == 36


def test_create_description_needs_2_55(app, mixed):
    resp = _create(app, _flavor(description='x'), v='2.54', status=400)
    assert 'description' in resp['badRequest']['message']


def test_create_duplicate_across_generations_is_409(app, mixed):
    for name, flavorid in [
            ('legacy-1', 'fresh'),      # name of a not-yet-migrated flavor
            ('fresh', 'l2'),            # id of a not-yet-migrated flavor
            ('api-1', 'fresh'),
            ('fresh', 'a1'),
            ('legacy-4', 'fresh')]:     # private legacy flavors count too
        resp = _create(app, _flavor(name=name, id=flavorid), status=409)
        message = resp['conflictingRequest']['message']
        assert (name in message) or (flavorid in message)
    assert 'fresh' not in _ids(get(app, '/flavors?is_public=None'))
    assert legacy_rows() == ['l1', 'l2', 'l3', 'l4']


BAD_FLAVORS = [
    ({'ram': 1, 'vcpus': 1, 'disk': 0}, 'name'),
    (_flavor(name=''), 'name'),
    (_flavor(name=' lead'), 'name'),
    (_flavor(name='trail '), 'name'),
    (_flavor(name='x' * 256), 'name'),
    (_flavor(name='new\nline'), 'name'),
    (_flavor(id=' x'), 'id'),
    (_flavor(id='a/b'), 'id'),
    (_flavor(id=''), 'id'),
    (_flavor(id=True), 'id'),
    (_flavor(ram=0), 'ram'),
    (_flavor(ram='0'), 'ram'),
    (_flavor(ram=-1), 'ram'),
    (_flavor(ram='1.5'), 'ram'),
    (_flavor(ram=2 ** 31), 'ram'),
    (_flavor(ram='99999999999'), 'ram'),
    (_flavor(ram=1.5), 'ram'),
    (_flavor(vcpus=0), 'vcpus'),
    (_flavor(disk=-1), 'disk'),
    (_flavor(swap='x'), 'swap'),
    (_flavor(**{'OS-FLV-EXT-DATA:ephemeral': -1}), 'ephemeral'),
    (_flavor(rxtx_factor=0), 'rxtx_factor'),
    (_flavor(rxtx_factor='-1'), 'rxtx_factor'),
    (_flavor(rxtx_factor=1e39), 'rxtx_factor'),
    (_flavor(rxtx_factor='9' * 40), 'rxtx_factor'),
    (_flavor(**{'os-flavor-access:is_public': 'maybe'}), 'is_public'),
    (_flavor(bogus=1), 'bogus'),
]


def test_create_bad_bodies_are_400_naming_the_field(app, mixed):
    for flavor, field in BAD_FLAVORS:
        resp = _create(app, flavor, status=400)
        assert field in resp['badRequest']['message'], (flavor, resp)
    for body in ({}, [], 'flavor', {'flavor': 'x'},
                 {'flavor': _flavor(), 'extra': 1}):
        app.post_json('/v2.1/flavors', body, headers=headers(), status=400)
    # 80,000 bytes of UTF-8 do not fit the description column.
    resp = app.post('/v2.1/flavors', json.dumps(
        {'flavor': _flavor(description='\u00e9' * 40000)},
        ensure_ascii=False).encode('utf-8'), headers=dict(
            headers('2.55'), **{'Content-Type': 'application/json'}),
        status=400)
    assert 'description' in resp.json['badRequest']['message']
    assert 'new' not in [f['name'] for f in get(
        app, '/flavors?is_public=None')['flavors']]


# --- update (2.55) -------------------------------------------------------

def test_update_description_moves_a_legacy_flavor(app, mixed):
    assert 'l2' in legacy_rows()
    flavor = app.put_json('/v2.1/flavors/l2',
                          {'flavor': {'description': 'moved'}},
                          headers=headers('2.61')).json['flavor']
    assert flavor['description'] == 'moved' and flavor['ram'] == 3072
    assert flavor['extra_specs'] == {}
    assert 'l2' not in legacy_rows() and in_api_db(mixed.ctxt, 'l2')
    assert get(app, '/flavors/l2', v='2.55')['flavor'][
        'description'] == 'moved'
    assert _ids(get(app, '/flavors?is_public=None')).count('l2') == 1
    app.put_json('/v2.1/flavors/l2', {'flavor': {'description': None}},
                 headers=headers('2.55'))
    assert get(app, '/flavors/l2', v='2.55')['flavor'][
        'description'] is None


def test_update_errors(app, mixed):
    body = {'flavor': {'description': 'x'}}
    app.put_json('/v2.1/flavors/a1', body, headers=headers('2.54'),
                 status=404)
    app.put_json('/v2.1/flavors/nope', body, headers=headers('2.55'),
                 status=404)
    for bad in ({'flavor': {}}, {'flavor': {'name': 'x'}},
                {'flavor': {'description': 5}}, {'description': 'x'},
                {'flavor': {'description': 'bell\x07'}}):
        resp = app.put_json('/v2.1/flavors/a1', bad, headers=headers('2.55'),
                            status=400)
        assert resp.json['badRequest']['code'] == 400


# --- delete ----------------------------------------------------------------

def test_delete_either_generation(app, mixed):
    for flavorid in ('a1', 'l1'):
        app.delete('/v2.1/flavors/%s' % flavorid, headers=headers(),
                   status=202)
        get(app, '/flavors/%s' % flavorid, status=404)
        assert flavorid not in _ids(get(app, '/flavors?is_public=None'))
        assert flavorid not in legacy_rows()
        app.delete('/v2.1/flavors/%s' % flavorid, headers=headers(),
                   status=404)


def test_deleted_legacy_name_and_id_may_be_reused(app, mixed):
    app.delete('/v2.1/flavors/l2', headers=headers(), status=202)
    assert _create(app, _flavor(name='legacy-2', id='l2'))['flavor'][
        'id'] == 'l2'


# --- policy ----------------------------------------------------------------

def test_member_may_not_manage_flavors(app, mixed):
    for method, path, body, v in [
            ('POST', '/flavors', {'flavor': _flavor()}, None),
            ('PUT', '/flavors/l1', {'flavor': {'description': 'x'}}, '2.55'),
            ('DELETE', '/flavors/l1', None, None)]:
        resp = app.request(
            '/v2.1' + path, method=method,
            headers=dict(headers(v, MEMBER),
                         **{'Content-Type': 'application/json'}),
            body=None if body is None else json.dumps(body).encode(),
            status=403)
        assert resp.json['forbidden']['code'] == 403
    assert 'l1' in legacy_rows()
    assert 'new' not in [f['name'] for f in get(
        app, '/flavors?is_public=None')['flavors']]
    assert get(app, '/flavors/l1', v='2.55')['flavor']['description'] is None


def test_name_filter_and_fields_from_2_102(app, mixed):
    """2.102: name filters both generations (as Nova 34: a regular
    expression searched in the name; an empty one matches all; one that
    is not a regular expression is a 400 naming the filter); an unknown
    parameter is 400 on the list; rxtx_factor and
    OS-FLV-DISABLED:disabled leave the bodies and the create schema."""
    for path in ('/flavors', '/flavors/detail'):
        assert _ids(get(app, path + '?name=legacy-1&is_public=None',
                        v='2.102')) == ['l1']
        assert _ids(get(app, path + '?name=api-1', v='2.102')) == ['a1']
        assert _ids(get(app, path + '?name=%5Eapi-1%24',
                        v='2.102')) == ['a1']
        assert 'a1' in _ids(get(app, path + '?name=api', v='2.102'))
        assert 'a1' in _ids(get(app, path + '?name=pi-', v='2.102'))
        assert _ids(get(app, path + '?name=%5Epi-', v='2.102')) == []
        assert _ids(get(app, path + '?name=API-1', v='2.102')) == []
        everything = _ids(get(app, path + '?is_public=None', v='2.102'))
        assert _ids(get(app, path + '?name=&is_public=None',
                        v='2.102')) == everything
        refused = app.get('/v2.1' + path + '?name=%5B', status=400,
                          headers=headers('2.102'))
        assert 'name filter' in refused.json['badRequest']['message']
        # Below 2.102 name is unknown: a 400 from 2.75 as every unknown.
        resp = app.get('/v2.1' + path + '?name=api-1',
                       headers=headers('2.101'), status=400)
        assert 'name' in resp.json['badRequest']['message']
    shown = get(app, '/flavors/a1', v='2.102')['flavor']
    assert 'rxtx_factor' not in shown
    assert 'OS-FLV-DISABLED:disabled' not in shown
    older = get(app, '/flavors/a1', v='2.101')['flavor']
    assert older['rxtx_factor'] == 1.0
    assert older['OS-FLV-DISABLED:disabled'] is False
    body = {'flavor': {'name': 'rx', 'ram': 64, 'vcpus': 1, 'disk': 1,
                       'rxtx_factor': 2.0}}
    refused = app.post_json('/v2.1/flavors', body,
                            headers=headers('2.102', ADMIN), status=400)
    assert 'rxtx_factor' in refused.json['badRequest']['message']
    app.post_json('/v2.1/flavors', body, headers=headers('2.101', ADMIN),
                  status=200)
