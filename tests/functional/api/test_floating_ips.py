"""The floating-IP proxy below 2.36 (os-floating-ips,
os-floating-ip-pools) and the addFloatingIp, removeFloatingIp,
addFixedIp and removeFixedIp server actions below 2.44, as Nova 34
answers them from Neutron, on the embedded network service's external
network 'public'."""
import pytest

from nova_lite.network import api as network_api
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

PUBLIC = network_api.PUBLIC_NETWORK_ID
PRIVATE = network_api.DEFAULT_NETWORK['id']
FIELDS = {'id', 'ip', 'pool', 'fixed_ip', 'instance_id'}


def _boot(api):  # noqa: F811
    uuid = api('POST', '/servers', _server(networks='auto'),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    return uuid


def _allocate(api, body=None, version='2.1'):  # noqa: F811
    resp = api('POST', '/os-floating-ips', body, version=version)
    assert resp.status_code == 200, resp.text
    return resp.json()['floating_ip']


def _action(api, uuid, body, version='2.1'):  # noqa: F811
    return api('POST', '/servers/%s/action' % uuid, body, version=version)


def _addresses(api, uuid, version='2.1'):  # noqa: F811
    body = api('GET', '/servers/%s' % uuid, version=version).json()
    return [(a['addr'], a['OS-EXT-IPS:type'])
            for a in body['server']['addresses'].get('private', [])]


@pytest.mark.parametrize('version', ['2.1', '2.35'])
def test_pools_are_the_external_networks(api, version):  # noqa: F811
    for token in (ADMIN, OTHER):
        resp = api('GET', '/os-floating-ip-pools', token=token,
                   version=version)
        assert resp.json() == {'floating_ip_pools': [{'name': 'public'}]}


@pytest.mark.parametrize('version', ['2.1', '2.35'])
def test_allocate_show_list_release(api, version):  # noqa: F811
    first = _allocate(api, version=version)
    assert set(first) == FIELDS
    assert first['pool'] == 'public' and first['ip'] == '172.24.4.2'
    assert first['fixed_ip'] is None and first['instance_id'] is None
    by_name = _allocate(api, {'pool': 'public'}, version)
    by_id = _allocate(api, {'pool': PUBLIC}, version)
    null = _allocate(api, {'pool': None}, version)
    assert len({f['ip'] for f in (first, by_name, by_id, null)}) == 4
    assert api('GET', '/os-floating-ips/%s' % first['id'],
               version=version).json() == {'floating_ip': first}
    listed = api('GET', '/os-floating-ips', version=version).json()
    assert [f['id'] for f in listed['floating_ips']] == [
        f['id'] for f in (first, by_name, by_id, null)]
    # Another project neither sees nor releases them.
    assert api('GET', '/os-floating-ips', token=OTHER).json() == {
        'floating_ips': []}
    assert api('GET', '/os-floating-ips/%s' % first['id'],
               token=OTHER).status_code == 404
    assert api('DELETE', '/os-floating-ips/%s' % first['id'],
               token=OTHER).status_code == 404
    for fip in (first, by_name, by_id, null):
        resp = api('DELETE', '/os-floating-ips/%s' % fip['id'],
                   version=version)
        assert resp.status_code == 202, resp.text
    gone = api('GET', '/os-floating-ips/%s' % first['id'])
    assert gone.status_code == 404
    assert gone.json() == {'itemNotFound': {
        'code': 404, 'message': 'Floating IP not found for ID %s'
                                % first['id']}}
    # A released address is allocated again.
    again = _allocate(api)
    assert again['ip'] == '172.24.4.2'


def test_allocate_errors(api):  # noqa: F811
    resp = api('POST', '/os-floating-ips', {'pool': 'nope'})
    assert resp.status_code == 404
    assert resp.json()['itemNotFound']['message'] == \
        'Floating IP pool not found.'
    assert api('POST', '/os-floating-ips', {'pool': 1}).status_code == 400
    assert api('DELETE', '/os-floating-ips/nope').status_code == 404


def test_associate_disassociate(api):  # noqa: F811
    uuid = _boot(api)
    fixed = _addresses(api, uuid)[0][0]
    fip = _allocate(api)
    resp = _action(api, uuid, {'addFloatingIp': {'address': fip['ip']}})
    assert resp.status_code == 202, resp.text
    assert _addresses(api, uuid) == [(fixed, 'fixed'),
                                     (fip['ip'], 'floating')]
    ips = api('GET', '/servers/%s/ips' % uuid).json()['addresses']
    assert [a['addr'] for a in ips['private']] == [fixed, fip['ip']]
    shown = api('GET', '/os-floating-ips/%s' % fip['id']).json()
    assert shown['floating_ip']['instance_id'] == uuid
    assert shown['floating_ip']['fixed_ip'] == fixed

    # A second floating IP on the same fixed IP: 400 (Neutron's 409).
    other = _allocate(api)
    resp = _action(api, uuid, {'addFloatingIp': {
        'address': other['ip'], 'fixed_address': fixed}})
    assert resp.status_code == 400, resp.text
    # A fixed address the server does not have; an unknown floating IP.
    resp = _action(api, uuid, {'addFloatingIp': {
        'address': other['ip'], 'fixed_address': '10.9.9.9'}})
    assert resp.status_code == 400
    resp = _action(api, uuid, {'addFloatingIp': {'address': '0.0.0.0'}})
    assert resp.status_code == 404
    assert resp.json()['itemNotFound']['message'] == 'floating IP not found'
    assert _action(api, uuid, {'addFloatingIp': {'address': ''}}) \
        .status_code == 400
    # Another project's server does not exist for the caller.
    assert _action(api, uuid, {'addFloatingIp': {'address': fip['ip']}},
                   ) .status_code == 202
    assert api('POST', '/servers/%s/action' % uuid,
               {'addFloatingIp': {'address': fip['ip']}},
               token=OTHER).status_code == 404

    # Disassociate; again: 409 (not associated with this server).
    resp = _action(api, uuid, {'removeFloatingIp': {'address': fip['ip']}},
                   version='2.43')
    assert resp.status_code == 202, resp.text
    assert _addresses(api, uuid) == [(fixed, 'fixed')]
    shown = api('GET', '/os-floating-ips/%s' % fip['id']).json()
    assert shown['floating_ip']['instance_id'] is None
    assert shown['floating_ip']['fixed_ip'] is None
    # Not associated: the policy target is no project (admins only, as
    # Nova); an administrator gets the 409.
    assert _action(api, uuid, {'removeFloatingIp': {
        'address': fip['ip']}}).status_code == 403
    resp = api('POST', '/servers/%s/action' % uuid, {'removeFloatingIp': {
        'address': fip['ip']}}, token=ADMIN)
    assert resp.status_code == 409, resp.text
    assert _action(api, uuid, {'removeFloatingIp': {
        'address': '0.0.0.0'}}).status_code == 404


def test_associated_elsewhere_moves(api):  # noqa: F811
    first, second = _boot(api), _boot(api)
    fip = _allocate(api)
    for uuid in (first, second):
        assert _action(api, uuid, {'addFloatingIp': {
            'address': fip['ip']}}).status_code == 202
    assert (fip['ip'], 'floating') in _addresses(api, second)
    assert (fip['ip'], 'floating') not in _addresses(api, first)
    resp = _action(api, first, {'removeFloatingIp': {'address': fip['ip']}})
    assert resp.status_code == 409, resp.text
    # Released while associated: disassociated, the server refreshed.
    assert api('DELETE', '/os-floating-ips/%s' % fip['id']) \
        .status_code == 202
    assert all(kind == 'fixed' for _, kind in _addresses(api, second))


def test_server_deleted_keeps_the_floating_ip(api):  # noqa: F811
    uuid = _boot(api)
    fip = _allocate(api)
    assert _action(api, uuid, {'addFloatingIp': {
        'address': fip['ip']}}).status_code == 202
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % uuid).status_code == 404,
             timeout=30, message='deleted')
    shown = api('GET', '/os-floating-ips/%s' % fip['id']).json()
    assert shown['floating_ip']['instance_id'] is None
    assert shown['floating_ip']['fixed_ip'] is None


def test_add_and_remove_fixed_ip(api):  # noqa: F811
    uuid = _boot(api)
    before = _addresses(api, uuid)
    resp = _action(api, uuid, {'addFixedIp': {'networkId': PRIVATE}},
                   version='2.43')
    assert resp.status_code == 202, resp.text
    after = _addresses(api, uuid)
    assert len(after) == 2 and after[0] == before[0]
    added = after[1][0]
    ports = api('GET', '/servers/%s/os-interface' % uuid).json()
    assert len(ports['interfaceAttachments']) == 2
    actions = [a['action'] for a in api(
        'GET', '/servers/%s/os-instance-actions' % uuid).json()[
        'instanceActions']]
    assert 'addFixedIp' in actions
    # Errors: a network the caller cannot use, an address it lacks.
    assert _action(api, uuid, {'addFixedIp': {
        'networkId': 'nope'}}).status_code == 400
    assert _action(api, uuid, {'addFixedIp': {}}).status_code == 400
    resp = _action(api, uuid, {'removeFixedIp': {'address': '10.9.9.9'}})
    assert resp.status_code == 400, resp.text
    assert _action(api, uuid, {'removeFixedIp': {
        'address': 'x'}}).status_code == 400
    resp = _action(api, uuid, {'removeFixedIp': {'address': added}})
    assert resp.status_code == 202, resp.text
    wait_for(lambda: _addresses(api, uuid) == before, timeout=30,
             message='fixed IP removed')
    # Locked: 409 for its owner.
    assert _action(api, uuid, {'lock': None}).status_code == 202
    assert _action(api, uuid, {'addFixedIp': {
        'networkId': PRIVATE}}).status_code == 409


@pytest.mark.parametrize('name, body', [
    ('addFloatingIp', {'address': '172.24.4.2'}),
    ('removeFloatingIp', {'address': '172.24.4.2'}),
    ('addFixedIp', {'networkId': PRIVATE}),
    ('removeFixedIp', {'address': '10.0.0.2'}),
])
def test_actions_gone_from_2_44(api, name, body):  # noqa: F811
    uuid = _boot(api)
    for version in ('2.44', 'latest'):
        resp = _action(api, uuid, {name: body}, version=version)
        assert resp.status_code == 404, (version, resp.text)


@pytest.mark.parametrize('path', ['/os-floating-ips',
                                  '/os-floating-ips/x',
                                  '/os-floating-ip-pools'])
def test_proxy_gone_from_2_36(api, path):  # noqa: F811
    for version in ('2.36', 'latest'):
        resp = api('GET', path, version=version)
        assert resp.status_code == 404, (path, version, resp.text)
    assert api('POST', '/os-floating-ips', None,
               version='2.36').status_code == 404
