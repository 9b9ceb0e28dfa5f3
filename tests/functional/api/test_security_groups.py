"""Security groups on a running plane, as a user sees them: groups and
rules made through the network service's Neutron-shaped endpoint,
servers booted into them (an unknown one refused), groups added to and
removed from a server, and what its body, its os-security-groups and
its ports show."""
import requests

from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for


def _neutron(plane, method, path, body=None, token=MEMBER):
    return requests.request(
        method, plane.endpoint + '/networking/v2.0' + path, json=body,
        headers={'X-Auth-Token': token}, timeout=30)


def _action(client, uuid, name, group):
    return client('POST', '/servers/%s/action' % uuid, {name: {'name': group}})


def test_groups_rules_and_servers(plane, api):  # noqa: F811
    # The project's default group is there from its first look.
    groups = _neutron(plane, 'GET', '/security-groups').json()
    assert [g['name'] for g in groups['security_groups']] == ['default']
    default = groups['security_groups'][0]
    assert {(r['direction'], r['ethertype'], r['remote_group_id'])
            for r in default['security_group_rules']} == {
        ('egress', 'IPv4', None), ('egress', 'IPv6', None),
        ('ingress', 'IPv4', default['id']),
        ('ingress', 'IPv6', default['id'])}
    made = _neutron(plane, 'POST', '/security-groups',
                    {'security_group': {'name': 'web',
                                        'description': 'http'}})
    assert made.status_code == 201, made.text
    web = made.json()['security_group']
    rule = {'security_group_rule': {
        'security_group_id': web['id'], 'direction': 'ingress',
        'protocol': 'tcp', 'port_range_min': 80, 'port_range_max': 80,
        'remote_ip_prefix': '0.0.0.0/0'}}
    added = _neutron(plane, 'POST', '/security-group-rules', rule)
    assert added.status_code == 201, added.text
    assert _neutron(plane, 'POST', '/security-group-rules',
                    rule).status_code == 409
    bad = dict(rule['security_group_rule'], port_range_min=90)
    refused = _neutron(plane, 'POST', '/security-group-rules',
                       {'security_group_rule': bad})
    assert refused.status_code == 400, refused.text
    assert _neutron(plane, 'GET', '/security-groups/%s'
                    % web['id']).json()['security_group']['name'] == 'web'
    assert _neutron(plane, 'GET', '/security-groups?name=web').json()[
        'security_groups'][0]['id'] == web['id']
    # Another project sees none of them.
    assert _neutron(plane, 'GET', '/security-groups/%s' % web['id'],
                    token='eve:project-b').status_code == 404

    # Boot: an unknown group is a 400 naming it.
    unknown = api('POST', '/servers', _server(
        networks='auto', security_groups=[{'name': 'nosuch'}]),
        version='2.37')
    assert unknown.status_code == 400, unknown.text
    assert 'nosuch' in unknown.json()['badRequest']['message']
    created = api('POST', '/servers', _server(
        networks='auto', security_groups=[{'name': 'web'}]),
        version='2.37')
    assert created.status_code == 202, created.text
    assert created.json()['server']['security_groups'] == [{'name': 'web'}]
    uuid = created.json()['server']['id']
    body = _wait_status(api, uuid, 'ACTIVE')['server']
    assert body['security_groups'] == [{'name': 'web'}]
    ports = _neutron(plane, 'GET', '/ports?device_id=%s' % uuid).json()
    assert [p['security_groups'] for p in ports['ports']] == [[web['id']]]
    listed = api('GET', '/servers/%s/os-security-groups' % uuid).json()
    assert [g['name'] for g in listed['security_groups']] == ['web']
    assert listed['security_groups'][0]['rules'][0]['from_port'] == 80

    # Added and removed.
    assert _action(api, uuid, 'addSecurityGroup',
                   'default').status_code == 202
    assert _action(api, uuid, 'addSecurityGroup',
                   'nosuch').status_code == 404
    detail = api('GET', '/servers/detail').json()['servers']
    assert [s['security_groups'] for s in detail if s['id'] == uuid] == [
        [{'name': 'default'}, {'name': 'web'}]]
    assert _action(api, uuid, 'removeSecurityGroup',
                   'web').status_code == 202
    again = _action(api, uuid, 'removeSecurityGroup', 'web')
    assert again.status_code == 400, again.text
    assert api('GET', '/servers/%s' % uuid).json()['server'][
        'security_groups'] == [{'name': 'default'}]
    empty = api('POST', '/servers/%s/action' % uuid,
                {'addSecurityGroup': {'name': ' '}})
    assert empty.status_code == 400

    # A group in use stays; unused, it goes.
    assert _neutron(plane, 'DELETE', '/security-groups/%s'
                    % default['id']).status_code == 409
    assert _neutron(plane, 'DELETE', '/security-groups/%s'
                    % web['id']).status_code == 204

    # A server without ports has no group to take.
    bare = api('POST', '/servers', _server(), version='2.37').json()
    _wait_status(api, bare['server']['id'], 'ACTIVE')
    assert _action(api, bare['server']['id'], 'addSecurityGroup',
                   'default').status_code == 404
    assert api('GET', '/servers/%s/os-security-groups'
               % bare['server']['id']).json() == {'security_groups': []}

    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: not _neutron(plane, 'GET', '/ports?device_id=%s'
                                  % uuid).json()['ports'],
             timeout=30, message='ports freed')
