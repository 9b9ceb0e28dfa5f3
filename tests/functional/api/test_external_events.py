"""POST /os-server-external-events on a running plane: per-event codes
and the overall status as Nova gives them, events reaching the server's
compute (power-update stops and starts it, network-vif-deleted takes a
port out of its addresses), names gated by microversion, admins only."""
from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.conftest import wait_for

MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'


def _events(client, events, version='2.1', token=ADMIN):
    return client('POST', '/os-server-external-events',
                  {'events': events}, version=version, token=token)


def test_events_codes_and_effects(api):  # noqa: F811
    uuid = api('POST', '/servers', _server(networks='auto'),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    changed = {'name': 'network-changed', 'server_uuid': uuid}
    assert _events(api, [changed], token='bob:project-a').status_code == 403
    ok = _events(api, [changed])
    assert ok.status_code == 200, ok.text
    assert ok.json()['events'] == [dict(changed, code=200,
                                        status='completed')]
    mixed = _events(api, [changed, {'name': 'network-vif-plugged',
                                    'server_uuid': MISSING, 'tag': 'p'}])
    assert mixed.status_code == 207, mixed.text
    assert [(e['code'], e['status']) for e in mixed.json()['events']] == [
        (200, 'completed'), (404, 'failed')]
    none = _events(api, [{'name': 'network-changed',
                          'server_uuid': MISSING}])
    assert none.status_code == 404
    # Names by microversion.
    power_off = {'name': 'power-update', 'server_uuid': uuid,
                 'tag': 'POWER_OFF'}
    assert _events(api, [power_off], version='2.75').status_code == 400
    assert _events(api, [{'name': 'volume-extended', 'server_uuid': uuid,
                          'tag': MISSING}], version='2.50').status_code == 400
    assert _events(api, [{'name': 'accelerator-request-bound',
                          'server_uuid': uuid, 'tag': 'x'}],
                   version='2.82').status_code == 200
    # power-update stops and starts the server.
    assert _events(api, [power_off], version='2.76').status_code == 200
    _wait_status(api, uuid, 'SHUTOFF')
    assert _events(api, [dict(power_off, tag='POWER_ON')],
                   version='2.76').status_code == 200
    _wait_status(api, uuid, 'ACTIVE')
    # network-vif-deleted: the port the network service deleted leaves
    # the server's addresses.
    ctxt = nova_context.RequestContext('bob', 'project-a')
    port = network_api.API().get_ports(ctxt, device_id=uuid)[0]
    network_api.API().deallocate_port_for_instance(ctxt, uuid, port['id'])
    assert _events(api, [{'name': 'network-vif-deleted',
                          'server_uuid': uuid,
                          'tag': port['id']}]).status_code == 200
    wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
        'addresses'] == {}, timeout=30, message='addresses follow')
