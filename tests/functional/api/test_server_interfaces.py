"""/servers/{id}/os-interface on a running plane: a port attached to a
running server (by network, with a fixed address and a tag; and a
port the user made), shown, listed, reflected in the server's
addresses, detached; refused where Nova refuses."""
from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

NET = network_api.DEFAULT_NETWORK['id']
MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'


def _path(uuid, port=None):
    return '/servers/%s/os-interface' % uuid + ('/%s' % port if port
                                                 else '')


def _addresses(api, uuid):  # noqa: F811
    return api('GET', '/servers/%s' % uuid).json()['server']['addresses']


def test_attach_show_list_detach(api):  # noqa: F811
    uuid = api('POST', '/servers', _server(networks='auto'),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    listed = api('GET', _path(uuid)).json()['interfaceAttachments']
    assert len(listed) == 1 and listed[0]['net_id'] == NET
    # Bad input and refusals.
    both = api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': NET, 'port_id': MISSING}})
    assert both.status_code == 400, both.text
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'port_id': MISSING}}).status_code == 404
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': MISSING}}).status_code == 404
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': NET, 'tag': 't'}}, version='2.48').status_code == 400
    assert api('GET', _path(uuid), token=OTHER).status_code == 404
    assert api('DELETE', _path(uuid, MISSING)).status_code == 404

    # By network, with an address and a tag.
    made = api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': NET, 'fixed_ips': [{'ip_address': '10.0.0.200'}],
        'tag': 'data'}}, version='2.70')
    assert made.status_code == 200, made.text
    attached = made.json()['interfaceAttachment']
    assert attached['fixed_ips'][0]['ip_address'] == '10.0.0.200'
    assert attached['tag'] == 'data'
    port_id = attached['port_id']
    taken = api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': NET, 'fixed_ips': [{'ip_address': '10.0.0.200'}]}})
    assert taken.status_code == 409, taken.text
    shown = api('GET', _path(uuid, port_id), version='2.70').json()
    assert shown['interfaceAttachment']['tag'] == 'data'
    assert 'tag' not in api('GET', _path(uuid, port_id),
                            version='2.69').json()['interfaceAttachment']
    addresses = [a['addr'] for a in _addresses(api, uuid)['private']]
    assert '10.0.0.200' in addresses and len(addresses) == 2
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid).json()
    assert 'attach_interface' in [a['action']
                                  for a in actions['instanceActions']]

    # A port the user made is attached, and unbound (kept) on detach.
    ctxt = nova_context.RequestContext('bob', 'project-a')
    own = network_api.API().create_port(ctxt, NET)
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'port_id': own['id']}}).status_code == 200
    assert len(api('GET', _path(uuid)).json()[
        'interfaceAttachments']) == 3
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'port_id': own['id']}}).status_code == 409
    for port in (port_id, own['id']):
        assert api('DELETE', _path(uuid, port)).status_code == 202
    wait_for(lambda: len(api('GET', _path(uuid)).json()[
        'interfaceAttachments']) == 1, timeout=30, message='detached')
    wait_for(lambda: len(_addresses(api, uuid)['private']) == 1,
             timeout=30, message='addresses follow')
    kept = network_api.API().get_ports(ctxt, port_ids=[own['id']])
    assert kept[0]['device_id'] == ''
    assert not network_api.API().get_ports(ctxt, port_ids=[port_id])

    # Refused while paused? No: allowed. Refused while locked (member).
    assert api('POST', '/servers/%s/action' % uuid,
               {'lock': None}, token='admin:admin').status_code == 202
    assert api('POST', _path(uuid), {}).status_code == 409


def test_refusals_the_compute_reports(api):  # noqa: F811
    """The compute checks the network or port as it takes it, as in
    Nova: a full network is a 400, a network the caller cannot see a
    404, an address taken a 409; none leaves a port behind, and the
    action's event records each refusal."""
    uuid = api('POST', '/servers', _server(networks='auto'),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    admin = nova_context.get_admin_context()
    nets = network_api.API()
    full = nets.create_network(admin, 'tiny', '10.9.0.0/30',
                               project_id='project-a')
    hidden = nets.create_network(admin, 'hidden', '10.8.0.0/24',
                                 project_id='someone-else')
    # A /30 has one address besides its gateway.
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': full['id']}}).status_code == 200
    refused = api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': full['id']}})
    assert refused.status_code == 400, refused.text
    assert 'No fixed IP addresses available' in \
        refused.json()['badRequest']['message']
    assert api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': hidden['id']}}).status_code == 404
    taken = api('POST', _path(uuid), {'interfaceAttachment': {
        'net_id': full['id'], 'fixed_ips': [{'ip_address': '10.9.0.2'}]}})
    assert taken.status_code == 409, taken.text
    assert len(api('GET', _path(uuid)).json()['interfaceAttachments']) == 2
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  version='2.51').json()['instanceActions']
    attaches = [a for a in actions if a['action'] == 'attach_interface']
    assert len(attaches) == 4
    events = [api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, a['request_id']), version='2.51').json()['instanceAction'][
            'events'] for a in attaches]
    assert sorted(e[0]['result'] for e in events) == [
        'Error', 'Error', 'Error', 'Success']
