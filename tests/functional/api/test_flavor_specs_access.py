"""Flavor extra specs and access lists through the WSGI app on a mixed
deployment (see flavor_fixtures.mixed): writes to a legacy flavor move it
to the API DB; reads leave it where it is."""
import json

import pytest

from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api.flavor_fixtures import get
from tests.functional.api.flavor_fixtures import in_api_db
from tests.functional.api.flavor_fixtures import MEMBER_PROJECT
from tests.functional.db.flavor_helpers import legacy_rows

L1_SPECS = {'quota:disk_read_bytes_sec': '5', 'hw:mem_page_size': 'large'}


@pytest.fixture
def app(flavor_app):
    return flavor_app


def _send(app, method, path, body=None, v=None, token=ADMIN, status=200):
    return app.request(
        '/v2.1' + path, method=method,
        headers=dict(headers(v, token),
                     **{'Content-Type': 'application/json'}),
        body=None if body is None else json.dumps(body).encode(),
        status=status)


def _ids(app, token):
    return [f['id'] for f in get(app, '/flavors', token=token)['flavors']]


# --- extra specs: reads ------------------------------------------------------

def test_list_and_show_extra_specs_of_both_generations(app, mixed):
    for token in (ADMIN, MEMBER):
        assert get(app, '/flavors/l1/os-extra_specs', token=token) == {
            'extra_specs': L1_SPECS}
        assert get(app, '/flavors/a1/os-extra_specs/hw:cpu_policy',
                   token=token) == {'hw:cpu_policy': 'shared'}
        assert get(app, '/flavors/l1/os-extra_specs/hw:mem_page_size',
                   token=token) == {'hw:mem_page_size': 'large'}
        assert get(app, '/flavors/l3/os-extra_specs', token=token) == {
            'extra_specs': {}}
    # Reading does not move a legacy flavor.
    assert 'l1' in legacy_rows() and not in_api_db(mixed.ctxt, 'l1')


def test_extra_spec_reads_not_found(app, mixed):
    resp = get(app, '/flavors/l1/os-extra_specs/nope', status=404)
    assert resp['itemNotFound']['message'] == \
        'Flavor l1 has no extra specs with key nope.'
    get(app, '/flavors/nope/os-extra_specs', status=404)
    get(app, '/flavors/nope/os-extra_specs/k', status=404)
    # A private flavor without access does not exist for a member.
    get(app, '/flavors/l4/os-extra_specs', token=MEMBER, status=404)
    get(app, '/flavors/l4/os-extra_specs/k', token=MEMBER, status=404)


# --- extra specs: writes -----------------------------------------------------

def test_create_extra_specs_moves_a_legacy_flavor(app, mixed):
    body = {'extra_specs': {'hw:cpu_policy': 'dedicated', 'n': 5,
                            'f': 1.5, 'hw:mem_page_size': 'small'}}
    assert _send(app, 'POST', '/flavors/l1/os-extra_specs', body).json == \
        body
    assert 'l1' not in legacy_rows() and in_api_db(mixed.ctxt, 'l1')
    assert get(app, '/flavors/l1/os-extra_specs') == {'extra_specs': {
        'quota:disk_read_bytes_sec': '5', 'hw:mem_page_size': 'small',
        'hw:cpu_policy': 'dedicated', 'n': '5', 'f': '1.5'}}
    assert get(app, '/flavors/l1', v='2.61')['flavor']['extra_specs'][
        'n'] == '5'
    assert [f['id'] for f in get(app, '/flavors?is_public=None')[
        'flavors']].count('l1') == 1


def test_update_one_extra_spec_moves_a_legacy_flavor(app, mixed):
    path = '/flavors/l1/os-extra_specs/hw:mem_page_size'
    assert _send(app, 'PUT', path, {'hw:mem_page_size': 2048}).json == {
        'hw:mem_page_size': 2048}
    assert 'l1' not in legacy_rows()
    assert get(app, path) == {'hw:mem_page_size': '2048'}
    # A new key through PUT.
    _send(app, 'PUT', '/flavors/a1/os-extra_specs/new', {'new': 'v'})
    assert get(app, '/flavors/a1/os-extra_specs')['extra_specs'] == {
        'hw:cpu_policy': 'shared', 'new': 'v'}


def test_delete_one_extra_spec_moves_a_legacy_flavor(app, mixed):
    path = '/flavors/l1/os-extra_specs/hw:mem_page_size'
    # An unknown key is 404 and moves nothing.
    _send(app, 'DELETE', '/flavors/l1/os-extra_specs/nope', status=404)
    assert 'l1' in legacy_rows()
    resp = _send(app, 'DELETE', path)
    assert resp.status_int == 200 and resp.body == b''
    assert 'l1' not in legacy_rows()
    get(app, path, status=404)
    assert get(app, '/flavors/l1/os-extra_specs') == {'extra_specs': {
        'quota:disk_read_bytes_sec': '5'}}
    _send(app, 'DELETE', path, status=404)
    _send(app, 'DELETE', '/flavors/nope/os-extra_specs/k', status=404)


BAD_SPECS = [
    ({}, 'extra_specs'),
    ({'extra_specs': []}, 'extra_specs'),
    ({'extra_specs': {'bad/key': 'v'}}, 'bad/key'),
    ({'extra_specs': {'': 'v'}}, 'extra_specs'),
    ({'extra_specs': {'k' * 256: 'v'}}, 'extra_specs'),
    ({'extra_specs': {'k': True}}, 'extra_specs/k'),
    ({'extra_specs': {'k': None}}, 'extra_specs/k'),
    ({'extra_specs': {'k': 'v' * 256}}, 'extra_specs/k'),
    ({'extra_specs': {'k': {'a': 'b'}}}, 'extra_specs/k'),
    ({'extra_specs': {'k': 10 ** 300}}, 'extra_specs value'),
    ({'extra_specs': {'k': 'v'}, 'x': 1}, 'x'),
]


def test_bad_extra_spec_bodies_are_400(app, mixed):
    for body, field in BAD_SPECS:
        resp = _send(app, 'POST', '/flavors/l1/os-extra_specs', body,
                     status=400)
        assert field in resp.json['badRequest']['message'], body
    path = '/flavors/l1/os-extra_specs/k'
    for body, message in [({'other': 'v'}, 'mismatch'),
                          ({'k': 'v', 'j': 'w'}, 'body'),
                          ({}, 'body'), ({'k': False}, 'k')]:
        resp = _send(app, 'PUT', path, body, status=400)
        assert message in resp.json['badRequest']['message'], body
    assert 'l1' in legacy_rows()
    assert get(app, '/flavors/l1/os-extra_specs') == {
        'extra_specs': L1_SPECS}


def test_member_may_read_but_not_write_extra_specs(app, mixed):
    for method, path, body in [
            ('POST', '/flavors/l1/os-extra_specs',
             {'extra_specs': {'k': 'v'}}),
            ('PUT', '/flavors/l1/os-extra_specs/k', {'k': 'v'}),
            ('DELETE', '/flavors/l1/os-extra_specs/hw:mem_page_size', None)]:
        resp = _send(app, method, path, body, token=MEMBER, status=403)
        assert resp.json['forbidden']['code'] == 403
    assert get(app, '/flavors/l1/os-extra_specs') == {
        'extra_specs': L1_SPECS}
    assert 'l1' in legacy_rows()


# --- access ------------------------------------------------------------------

def _action(app, flavorid, name, tenant, v=None, token=ADMIN, status=200):
    return _send(app, 'POST', '/flavors/%s/action' % flavorid,
                 {name: {'tenant': tenant}}, v=v, token=token,
                 status=status).json


def test_access_list_of_private_flavors(app, mixed):
    assert get(app, '/flavors/l3/os-flavor-access') == {'flavor_access': [
        {'flavor_id': 'l3', 'tenant_id': MEMBER_PROJECT}]}
    assert get(app, '/flavors/a2/os-flavor-access') == {'flavor_access': [
        {'flavor_id': 'a2', 'tenant_id': MEMBER_PROJECT}]}
    resp = get(app, '/flavors/l1/os-flavor-access', status=404)
    assert 'public' in resp['itemNotFound']['message']
    get(app, '/flavors/nope/os-flavor-access', status=404)


def test_members_read_the_access_lists_of_flavors_they_may_use(app, mixed):
    assert get(app, '/flavors/l3/os-flavor-access', token=MEMBER) == {
        'flavor_access': [{'flavor_id': 'l3', 'tenant_id': MEMBER_PROJECT}]}
    assert get(app, '/flavors/a2/os-flavor-access', token=MEMBER) == {
        'flavor_access': [{'flavor_id': 'a2', 'tenant_id': MEMBER_PROJECT}]}
    # l4 is private to another project: it does not exist for this one.
    resp = get(app, '/flavors/l4/os-flavor-access', token=MEMBER,
               status=404)
    assert resp == {'itemNotFound': {
        'code': 404, 'message': 'Flavor l4 could not be found.'}}
    resp = get(app, '/flavors/l1/os-flavor-access', token=MEMBER,
               status=404)
    assert 'public' in resp['itemNotFound']['message']
    _action(app, 'l3', 'removeTenantAccess', MEMBER_PROJECT, token=MEMBER,
            status=403)
    _action(app, 'l4', 'addTenantAccess', MEMBER_PROJECT, token=MEMBER,
            status=403)
    assert 'l4' in legacy_rows()


def test_add_and_remove_access_on_a_legacy_flavor(app, mixed):
    assert 'l4' not in _ids(app, MEMBER)
    body = _action(app, 'l4', 'addTenantAccess', MEMBER_PROJECT)
    assert body == {'flavor_access': [
        {'flavor_id': 'l4', 'tenant_id': 'other'},
        {'flavor_id': 'l4', 'tenant_id': MEMBER_PROJECT}]}
    assert 'l4' not in legacy_rows() and in_api_db(mixed.ctxt, 'l4')
    assert 'l4' in _ids(app, MEMBER)
    get(app, '/flavors/l4', token=MEMBER)
    resp = _action(app, 'l4', 'addTenantAccess', MEMBER_PROJECT,
                   status=409)
    assert 'already exists' in resp['conflictingRequest']['message']
    body = _action(app, 'l4', 'removeTenantAccess', 'other')
    assert body == {'flavor_access': [
        {'flavor_id': 'l4', 'tenant_id': MEMBER_PROJECT}]}
    _action(app, 'l4', 'removeTenantAccess', MEMBER_PROJECT)
    assert 'l4' not in _ids(app, MEMBER)
    get(app, '/flavors/l4', token=MEMBER, status=404)
    resp = _action(app, 'l4', 'removeTenantAccess', MEMBER_PROJECT,
                   status=404)
    assert resp['itemNotFound']['code'] == 404


def test_remove_access_from_a_legacy_flavor(app, mixed):
    assert _action(app, 'l3', 'removeTenantAccess', MEMBER_PROJECT) == {
        'flavor_access': []}
    assert 'l3' not in legacy_rows()
    assert 'l3' not in _ids(app, MEMBER)


def test_access_to_a_public_flavor_is_409_from_2_7(app, mixed):
    resp = _action(app, 'l1', 'addTenantAccess', 'p1', v='2.7', status=409)
    assert 'public' in resp['conflictingRequest']['message']
    assert 'l1' in legacy_rows()
    assert _action(app, 'l1', 'addTenantAccess', 'p1', v='2.6') == {
        'flavor_access': [{'flavor_id': 'l1', 'tenant_id': 'p1'}]}


def test_access_action_errors(app, mixed):
    _action(app, 'nope', 'addTenantAccess', 'p', status=404)
    _action(app, 'nope', 'removeTenantAccess', 'p', status=404)
    path = '/flavors/l3/action'
    for body, message in [
            ({}, 'Malformed'),
            ({'addTenantAccess': {'tenant': 'p'},
              'removeTenantAccess': {'tenant': 'p'}}, 'Malformed'),
            (['addTenantAccess'], 'Malformed'),
            ({'reboot': {}}, 'no such action: reboot'),
            ({'addTenantAccess': {}}, 'tenant'),
            ({'addTenantAccess': {'tenant': ''}}, 'tenant'),
            ({'addTenantAccess': {'tenant': 'x' * 256}}, 'tenant'),
            ({'addTenantAccess': {'tenant': 'p', 'x': 1}}, 'x'),
            ({'removeTenantAccess': {'tenant': 5}}, 'tenant'),
            ({'addTenantAccess': 'p'}, 'addTenantAccess')]:
        resp = _send(app, 'POST', path, body, status=400)
        assert message in resp.json['badRequest']['message'], body
    resp = _send(app, 'GET', path, status=405)
    assert resp.headers['Allow'] == 'POST'
    assert 'l3' in legacy_rows()


def test_member_may_not_change_access(app, mixed):
    for name in ('addTenantAccess', 'removeTenantAccess'):
        resp = _action(app, 'l3', name, MEMBER_PROJECT, token=MEMBER,
                       status=403)
        assert resp['forbidden']['code'] == 403
    assert get(app, '/flavors/l3/os-flavor-access')['flavor_access'] == [
        {'flavor_id': 'l3', 'tenant_id': MEMBER_PROJECT}]
