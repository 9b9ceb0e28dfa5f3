"""Differences from Nova 34 found by outside clients and a seeded
bad-input run (issue 31), replayed through the REST API with Nova's
status codes and fault messages."""
import pytest

from nova_lite import context as nova_context
from nova_lite.image import api as image_api
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import boot
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER

# webob's words for a 410, which Nova answers with (webob 1.8.11).
GONE = ('This resource is no longer available. No forwarding address is '
        'given.')
MISSING = 'ffffffff-0000-0000-0000-000000000000'


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def _servers(api):
    return api('GET', '/servers', token=ADMIN,
               version='2.1').json()['servers']


def _a_node(api):
    """(host, hypervisor_hostname) of a compute of the plane."""
    hyp = api('GET', '/os-hypervisors/detail', token=ADMIN,
              version='2.53').json()['hypervisors'][0]
    return hyp['service']['host'], hyp['hypervisor_hostname']


def _boot_at(api, **where):
    return api('POST', '/servers', _server(**where), version='2.74',
               token=ADMIN)


def _bad_request(resp, message):
    assert resp.status_code == 400, resp.text
    assert resp.json() == {'badRequest': {'code': 400, 'message': message}}


@pytest.mark.parametrize('where, named', [
    ({'host': 'no-such-host'}, 'no-such-host'),
    ({'hypervisor_hostname': 'no-such-node'}, 'no-such-node'),
    ({'host': 'no-such-host', 'hypervisor_hostname': 'no-such-node'},
     'no-such-host'),
])
def test_boot_at_an_unknown_host_or_node_is_400(api, where, named):
    _bad_request(_boot_at(api, **where),
                 'Compute host %s could not be found.' % named)
    assert _servers(api) == []


def test_boot_at_a_known_host_with_an_unknown_node_is_400(api):
    host, _node = _a_node(api)
    _bad_request(_boot_at(api, host=host, hypervisor_hostname='nowhere'),
                 'Compute host %s could not be found.' % host)
    assert _servers(api) == []


def test_boot_at_a_known_host_and_node_lands_there(api):
    host, node = _a_node(api)
    for where in ({'host': host}, {'hypervisor_hostname': node},
                  {'host': host, 'hypervisor_hostname': node}):
        resp = _boot_at(api, **where)
        assert resp.status_code == 202, resp.text


def test_requested_host_is_for_admins_before_it_is_looked_up(api):
    resp = api('POST', '/servers', _server(host='no-such-host'),
               version='2.74', token=MEMBER)
    assert resp.status_code == 403, resp.text


@pytest.mark.parametrize('version', ['2.1', '2.36', '2.74', '2.88',
                                     'latest'])
@pytest.mark.parametrize('token', [ADMIN, MEMBER, OTHER])
def test_reset_network_is_gone_at_every_version(api, version, token):
    for body in ({'resetNetwork': None}, {'resetNetwork': {}},
                 {'resetNetwork': {'x': 1}}):
        resp = api('POST', '/servers/%s/action' % MISSING, body,
                   token=token, version=version)
        assert resp.status_code == 410, resp.text
        assert resp.json() == {'computeFault': {'code': 410,
                                                'message': GONE}}


def test_reset_network_of_a_server_is_gone_and_leaves_it_alone(api):
    uuid = boot(api)
    for token in (ADMIN, MEMBER, OTHER):
        resp = act(api, uuid, {'resetNetwork': None}, token=token)
        assert resp.status_code == 410, resp.text
        assert resp.json()['computeFault']['message'] == GONE
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid).json()
    assert [a['action'] for a in actions['instanceActions']] == ['create']


TEMPEST_V6 = '0000:0000:0000:0000:0000:babe:220.12.22.2'


def test_access_ips_are_stored_normalized(api):
    """Tempest's ServersTestJSON boots with an IPv6 address spelt long,
    with an IPv4 tail: Nova stores (and shows) it normalized, which
    fits its column on MariaDB."""
    created = api('POST', '/servers', _server(
        accessIPv4='1.1.1.1', accessIPv6=TEMPEST_V6), version='2.37')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    shown = api('GET', '/servers/%s' % uuid).json()['server']
    assert (shown['accessIPv4'], shown['accessIPv6']) == (
        '1.1.1.1', '::babe:dc0c:1602')
    updated = api('PUT', '/servers/%s' % uuid, {'server': {
        'accessIPv6': '2001:0DB8:0000:0000:0000:0000:0000:0001'}})
    assert updated.json()['server']['accessIPv6'] == '2001:db8::1'
    _wait_status(api, uuid, 'ACTIVE')
    rebuilt = act(api, uuid, {'rebuild': {
        'imageRef': IMAGE, 'accessIPv6': TEMPEST_V6}})
    assert rebuilt.status_code == 202, rebuilt.text
    assert rebuilt.json()['server']['accessIPv6'] == '::babe:dc0c:1602'
    shown = _wait_status(api, uuid, 'ACTIVE')['server']
    assert shown['accessIPv6'] == '::babe:dc0c:1602'


DCF = 'OS-DCF:diskConfig'


def _disk_config(api, uuid):
    return api('GET', '/servers/%s' % uuid).json()['server'][DCF]


def test_disk_config_is_kept_on_create_update_rebuild_and_resize(api):
    for name, ram, disk in (('medium', 1024, 2), ('large', 1536, 3)):
        assert api('POST', '/flavors', {'flavor': {
            'name': name, 'id': name, 'ram': ram, 'vcpus': 1,
            'disk': disk}}, token=ADMIN).status_code == 200
    created = api('POST', '/servers', _server(**{DCF: 'AUTO'}),
                  version='2.37')
    assert created.status_code == 202, created.text
    assert created.json()['server'][DCF] == 'AUTO'
    uuid = created.json()['server']['id']
    assert _disk_config(api, uuid) == 'AUTO'       # still building
    _wait_status(api, uuid, 'ACTIVE')
    assert _disk_config(api, uuid) == 'AUTO'
    # Update (PUT) sets it.
    updated = api('PUT', '/servers/%s' % uuid, {'server': {DCF: 'MANUAL'}})
    assert updated.json()['server'][DCF] == 'MANUAL'
    assert _disk_config(api, uuid) == 'MANUAL'
    # Rebuild with AUTO, then without (the image's default: MANUAL).
    rebuilt = act(api, uuid, {'rebuild': {'imageRef': IMAGE, DCF: 'AUTO'}})
    assert rebuilt.json()['server'][DCF] == 'AUTO'
    _wait_status(api, uuid, 'ACTIVE')
    assert _disk_config(api, uuid) == 'AUTO'
    rebuilt = act(api, uuid, {'rebuild': {'imageRef': IMAGE}})
    assert rebuilt.json()['server'][DCF] == 'MANUAL'
    _wait_status(api, uuid, 'ACTIVE')
    # Resize with AUTO keeps it through the move.
    assert act(api, uuid, {'resize': {'flavorRef': 'medium', DCF: 'AUTO'}}
               ).status_code == 202
    _wait_status(api, uuid, 'VERIFY_RESIZE')
    assert _disk_config(api, uuid) == 'AUTO'
    assert act(api, uuid, {'confirmResize': None}).status_code == 204
    _wait_status(api, uuid, 'ACTIVE')
    assert _disk_config(api, uuid) == 'AUTO'
    # A resize that does not say: MANUAL, as Nova.
    assert act(api, uuid, {'resize': {'flavorRef': 'large'}}
               ).status_code == 202
    _wait_status(api, uuid, 'VERIFY_RESIZE')
    assert _disk_config(api, uuid) == 'MANUAL'


def test_disk_config_defaults_to_the_images_property(api, plane):
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    auto = image_api.API().create(ctxt, 'auto', properties={
        'auto_disk_config': 'True'})
    disabled = image_api.API().create(ctxt, 'disabled', properties={
        'auto_disk_config': 'Disabled'})
    created = api('POST', '/servers', _server(imageRef=auto['id']),
                  version='2.37').json()['server']
    assert created[DCF] == 'AUTO'
    plain = api('POST', '/servers', _server(), version='2.37')
    assert plain.json()['server'][DCF] == 'MANUAL'
    refused = api('POST', '/servers', _server(imageRef=disabled['id'],
                                              **{DCF: 'AUTO'}),
                  version='2.37')
    _bad_request(refused, 'Requested image %s has automatic disk resize '
                          'disabled.' % disabled['id'])
    manual = api('POST', '/servers', _server(imageRef=disabled['id'],
                                             **{DCF: 'MANUAL'}),
                 version='2.37')
    assert manual.status_code == 202, manual.text
