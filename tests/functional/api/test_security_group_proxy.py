"""The security-group proxy below 2.36 (os-security-groups and
os-security-group-rules) on the embedded network service, with Nova's
bodies and refusals."""
import uuid

import pytest

from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER

V = '2.35'
GROUP_FIELDS = {'id', 'name', 'description', 'tenant_id', 'rules'}
RULE_FIELDS = {'id', 'parent_group_id', 'ip_protocol', 'from_port',
               'to_port', 'group', 'ip_range'}


@pytest.fixture
def api(running):
    return running.api


def _create(api, name, description='d', token=MEMBER, status=200):
    resp = api('POST', '/os-security-groups', {'security_group': {
        'name': name, 'description': description}}, token=token, version=V)
    assert resp.status_code == status, resp.text
    return resp.json().get('security_group')


def _rule(api, token=MEMBER, status=200, **rule):
    resp = api('POST', '/os-security-group-rules',
               {'security_group_rule': rule}, token=token, version=V)
    assert resp.status_code == status, resp.text
    return resp.json().get('security_group_rule')


def test_create_show_update_list_and_delete(api):
    name = 'web-%s' % uuid.uuid4().hex[:6]
    group = _create(api, name, 'front')
    assert set(group) == GROUP_FIELDS
    assert group['name'] == name and group['description'] == 'front'
    assert group['tenant_id'] == 'project-a'
    # Neutron's egress rules are not shown.
    assert group['rules'] == []
    shown = api('GET', '/os-security-groups/%s' % group['id'],
                token=MEMBER, version=V).json()['security_group']
    assert shown == group
    resp = api('PUT', '/os-security-groups/%s' % group['id'],
               {'security_group': {'name': name + '2',
                                   'description': 'back'}},
               token=MEMBER, version=V)
    assert resp.json()['security_group']['name'] == name + '2'
    listed = api('GET', '/os-security-groups', token=MEMBER,
                 version=V).json()['security_groups']
    names = {g['name'] for g in listed}
    assert {'default', name + '2'} <= names
    assert all(g['tenant_id'] == 'project-a' for g in listed)
    # Another project sees neither in its list nor by id.
    other = api('GET', '/os-security-groups', token=OTHER,
                version=V).json()['security_groups']
    assert name + '2' not in {g['name'] for g in other}
    assert api('GET', '/os-security-groups/%s' % group['id'], token=OTHER,
               version=V).status_code == 404
    everyone = api('GET', '/os-security-groups?all_tenants=1', token=ADMIN,
                   version=V).json()['security_groups']
    assert group['id'] in {g['id'] for g in everyone}
    resp = api('DELETE', '/os-security-groups/%s' % group['id'],
               token=MEMBER, version=V)
    assert resp.status_code == 202
    assert api('GET', '/os-security-groups/%s' % group['id'], token=MEMBER,
               version=V).status_code == 404


def test_rules_with_cidr_and_group(api):
    parent = _create(api, 'p-%s' % uuid.uuid4().hex[:6])
    source = _create(api, 's-%s' % uuid.uuid4().hex[:6])
    by_cidr = _rule(api, parent_group_id=parent['id'], ip_protocol='tcp',
                    from_port=22, to_port=22, cidr='10.0.0.0/24')
    assert set(by_cidr) == RULE_FIELDS
    assert by_cidr['parent_group_id'] == parent['id']
    assert (by_cidr['ip_protocol'], by_cidr['from_port'],
            by_cidr['to_port']) == ('tcp', 22, 22)
    assert by_cidr['ip_range'] == {'cidr': '10.0.0.0/24'}
    assert by_cidr['group'] == {}
    by_group = _rule(api, parent_group_id=parent['id'], ip_protocol='icmp',
                     from_port=-1, to_port=-1, group_id=source['id'])
    assert by_group['group'] == {'name': source['name'],
                                 'tenant_id': 'project-a'}
    assert (by_group['from_port'], by_group['to_port']) == (-1, -1)
    shown = api('GET', '/os-security-groups/%s' % parent['id'],
                token=MEMBER, version=V).json()['security_group']
    assert {r['id'] for r in shown['rules']} == {by_cidr['id'],
                                                  by_group['id']}
    # The same rule again is a 400.
    _rule(api, status=400, parent_group_id=parent['id'], ip_protocol='tcp',
          from_port=22, to_port=22, cidr='10.0.0.0/24')
    # A cidr is kept in the notation given, as Neutron keeps it.
    host_bits = _rule(api, parent_group_id=parent['id'], ip_protocol='udp',
                      from_port=53, to_port=53, cidr='10.2.3.124/24')
    assert host_bits['ip_range'] == {'cidr': '10.2.3.124/24'}
    # Deleting a group a rule names as its remote group deletes that
    # rule with it (Neutron's cascade), not the others.
    resp = api('DELETE', '/os-security-groups/%s' % source['id'],
               token=MEMBER, version=V)
    assert resp.status_code == 202, resp.text
    shown = api('GET', '/os-security-groups/%s' % parent['id'],
                token=MEMBER, version=V).json()['security_group']
    assert {r['id'] for r in shown['rules']} == {by_cidr['id'],
                                                  host_bits['id']}
    for rule in (by_cidr, host_bits):
        resp = api('DELETE', '/os-security-group-rules/%s' % rule['id'],
                   token=MEMBER, version=V)
        assert resp.status_code == 202
    resp = api('DELETE', '/os-security-group-rules/%s' % by_cidr['id'],
               token=MEMBER, version=V)
    assert resp.status_code == 404


def test_names_are_kept_as_given(api):
    """Spaces around a name stay (Nova checks there is more than
    spaces and passes the name on as it came)."""
    name = ' spaced %s ' % uuid.uuid4().hex[:6]
    group = _create(api, name)
    assert group['name'] == name
    assert api('GET', '/os-security-groups/%s' % group['id'], token=MEMBER,
               version=V).json()['security_group']['name'] == name
    resp = api('PUT', '/os-security-groups/%s' % group['id'],
               {'security_group': {'name': name + ' ', 'description': ''}},
               token=MEMBER, version=V)
    assert resp.json()['security_group']['name'] == name + ' '
    assert api('POST', '/os-security-groups', {'security_group': {
        'name': '   ', 'description': ''}}, token=MEMBER,
        version=V).status_code == 400


@pytest.mark.parametrize('rule', [
    {'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 21},
    {'ip_protocol': 'tcp', 'from_port': 0, 'to_port': 22},
    {'ip_protocol': 'tcp', 'from_port': 'x', 'to_port': 22},
    {'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 65536},
    {'ip_protocol': 'gre', 'from_port': 1, 'to_port': 2},
    {'ip_protocol': 'icmp', 'from_port': 256, 'to_port': 0},
    {'ip_protocol': 'tcp', 'from_port': 1, 'to_port': 2, 'cidr': 'nope'},
])
def test_bad_rules_are_400(api, rule):
    parent = _create(api, 'b-%s' % uuid.uuid4().hex[:6])
    _rule(api, status=400, parent_group_id=parent['id'], **rule)


def test_unknown_and_invalid_ids(api):
    missing = str(uuid.uuid4())
    assert api('GET', '/os-security-groups/%s' % missing, token=MEMBER,
               version=V).status_code == 404
    assert api('DELETE', '/os-security-groups/%s' % missing, token=MEMBER,
               version=V).status_code == 404
    assert api('GET', '/os-security-groups/not-a-uuid', token=MEMBER,
               version=V).status_code == 400
    _rule(api, status=404, parent_group_id=missing, ip_protocol='tcp',
          from_port=1, to_port=2)
    _rule(api, status=400, parent_group_id='not-a-uuid', ip_protocol='tcp',
          from_port=1, to_port=2)
    assert api('DELETE', '/os-security-group-rules/%s' % missing,
               token=MEMBER, version=V).status_code == 404


@pytest.mark.parametrize('body', [
    {}, {'security_group': {}}, {'security_group': {'name': ''}},
    {'security_group': {'name': 'x' * 256}},
    {'security_group': {'name': 'a', 'description': 'd' * 256}},
    {'security_group': {'name': 'a', 'x': 1}}])
def test_bad_groups_are_400(api, body):
    resp = api('POST', '/os-security-groups', body, token=MEMBER,
               version=V)
    assert resp.status_code == 400, resp.text


def test_default_group_cannot_be_deleted(api):
    groups = api('GET', '/os-security-groups', token=MEMBER,
                 version=V).json()['security_groups']
    default = next(g for g in groups if g['name'] == 'default')
    resp = api('DELETE', '/os-security-groups/%s' % default['id'],
               token=MEMBER, version=V)
    assert resp.status_code == 400, resp.text


def test_2_36_removed_it(api):
    for version in ('2.36', 'latest'):
        assert api('GET', '/os-security-groups', token=MEMBER,
                   version=version).status_code == 404
        assert api('POST', '/os-security-group-rules', {},
                   token=MEMBER, version=version).status_code == 404
