"""Interfaces, volumes and external events on a real deployment
(tests/real/conftest.py shared_deployment: MariaDB, RabbitMQ, 2 cells x
2 computes, every service its own process): an interface and a volume
are attached to and detached from a server by its compute process over
its cell's RabbitMQ vhost, and /os-server-external-events reaches that
compute across processes (power-update stops and starts the server,
network-changed is answered 200). Leaves the deployment as it found it.
"""
import pytest

from tests.functional.conftest import wait_for
from tests.real.test_deployment import api

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
NETWORK = '3cb9bc59-5699-4588-a4b1-b87f96708bc6'


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    yield shared_deployment


def _volumes(dep, method, path, body=None):
    return api(dep, method, path, body, prefix='/volume/v3/admin')


def _volume_status(dep, volume_id):
    return _volumes(dep, 'GET', '/volumes/%s' % volume_id)[1]['volume'][
        'status']


def _status(dep, uuid):
    return api(dep, 'GET', '/servers/%s' % uuid)[1]['server']['status']


def test_attach_detach_and_events_across_processes(deployment):
    dep = deployment
    api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'att.tiny', 'id': 'att.tiny', 'ram': 64, 'vcpus': 1,
        'disk': 0}})
    status, body = api(dep, 'POST', '/servers', {'server': {
        'name': 'att', 'flavorRef': 'att.tiny', 'imageRef': IMAGE,
        'networks': 'auto'}}, version='2.37')
    assert status == 202, body
    uuid = body['server']['id']
    wait_for(lambda: _status(dep, uuid) == 'ACTIVE', timeout=60,
             message='ACTIVE')
    ifaces = '/servers/%s/os-interface' % uuid

    # An interface: attached by the compute (an RPC call), then detached.
    status, body = api(dep, 'POST', ifaces, {'interfaceAttachment': {
        'net_id': NETWORK}})
    assert status == 200, body
    port = body['interfaceAttachment']
    assert port['port_state'] == 'ACTIVE' and port['net_id'] == NETWORK
    listed = api(dep, 'GET', ifaces)[1]['interfaceAttachments']
    assert port['port_id'] in [i['port_id'] for i in listed]
    assert len(listed) == 2
    assert api(dep, 'DELETE', '%s/%s' % (ifaces, port['port_id']))[0] == 202
    wait_for(lambda: len(api(dep, 'GET', ifaces)[1][
        'interfaceAttachments']) == 1, timeout=30, message='detached')

    # A volume: attached and detached by the compute (casts).
    status, body = _volumes(dep, 'POST', '/volumes', {'volume': {
        'size': 1, 'name': 'att-vol'}})
    assert status == 202, body
    volume_id = body['volume']['id']
    attachments = '/servers/%s/os-volume_attachments' % uuid
    status, body = api(dep, 'POST', attachments, {'volumeAttachment': {
        'volumeId': volume_id}})
    assert status == 200, body
    wait_for(lambda: _volume_status(dep, volume_id) == 'in-use',
             timeout=30, message='in-use')
    assert api(dep, 'DELETE', '%s/%s' % (attachments, volume_id))[0] == 202
    wait_for(lambda: _volume_status(dep, volume_id) == 'available',
             timeout=30, message='available')

    # External events routed to the server's compute in its cell.
    status, body = api(dep, 'POST', '/os-server-external-events', {
        'events': [{'name': 'network-changed', 'server_uuid': uuid}]})
    assert status == 200 and body['events'][0]['code'] == 200, body
    power = {'name': 'power-update', 'server_uuid': uuid,
             'tag': 'POWER_OFF'}
    status, body = api(dep, 'POST', '/os-server-external-events',
                       {'events': [power]}, version='2.76')
    assert status == 200, body
    wait_for(lambda: _status(dep, uuid) == 'SHUTOFF', timeout=30,
             message='SHUTOFF by power-update')
    api(dep, 'POST', '/os-server-external-events',
        {'events': [dict(power, tag='POWER_ON')]}, version='2.76')
    wait_for(lambda: _status(dep, uuid) == 'ACTIVE', timeout=30,
             message='ACTIVE by power-update')

    assert api(dep, 'DELETE', '/servers/%s' % uuid)[0] == 204
    wait_for(lambda: api(dep, 'GET', '/servers/%s' % uuid)[0] == 404,
             timeout=60, message='deleted')
    assert _volumes(dep, 'DELETE', '/volumes/%s' % volume_id)[0] == 202
    api(dep, 'DELETE', '/flavors/att.tiny')
