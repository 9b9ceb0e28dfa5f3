"""Versioned notifications, received by a listener on the plane's
transport while a user boots and deletes servers through the REST API:
instance.create.start/end/error, instance.update, instance.delete.*,
shaped as Nova documents them."""
import types

import pytest

from nova_lite import context as nova_context
from nova_lite import objects
from tests.functional.api import server_fixtures
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.conftest import wait_for


@pytest.fixture
def api(plane):
    return client_with_flavor(plane)


def _boot(api, name='vm', networks='auto', **extra):
    body = {'server': dict({'name': name, 'flavorRef': 'small',
                            'imageRef': IMAGE, 'networks': networks},
                           **extra)}
    created = api('POST', '/servers', body, version='2.37')
    assert created.status_code == 202, created.text
    return created.json()['server']['id']


def _status(api, uuid):
    resp = api('GET', '/servers/%s' % uuid)
    return resp.json()['server']['status'] if resp.status_code == 200 \
        else resp.status_code


def _data(notification):
    return notification['payload']['nova_object.data']


def test_boot_sends_create_start_end_and_state_updates(api, notifications):
    uuid = _boot(api, metadata={'role': 'web'})
    end, = notifications.wait_for(uuid, 'instance.create.end')
    start, = notifications.about(uuid, 'instance.create.start')
    assert notifications.received.index(start) < \
        notifications.received.index(end)
    for sent in (start, end):
        assert sent['priority'] == 'INFO'
        payload = sent['payload']
        assert payload['nova_object.name'] == 'InstanceCreatePayload'
        assert payload['nova_object.version'] == '1.0'
        assert payload['nova_object.namespace'] == 'nova'
    data = _data(end)
    host = data['host']
    assert end['publisher_id'] == 'nova-compute:%s' % host
    assert host.startswith(('cell1-', 'cell2-'))
    assert data['state'] == 'active' and data['task_state'] is None
    assert data['power_state'] == 'running'
    assert data['tenant_id'] == 'project-a' and data['user_id'] == 'bob'
    assert data['display_name'] == 'vm' and data['image_uuid'] == IMAGE
    assert data['metadata'] == {'role': 'web'} and data['locked'] is False
    assert data['launched_at'] and data['created_at'].endswith('Z')
    assert data['fault'] is None
    flavor = data['flavor']
    assert flavor['nova_object.name'] == 'FlavorPayload'
    assert flavor['nova_object.version'] == '1.0'
    assert {k: flavor['nova_object.data'][k] for k in
            ('flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb')} == {
        'flavorid': 'small', 'name': 'small', 'memory_mb': 512,
        'vcpus': 1, 'root_gb': 1}
    ip, = data['ip_addresses']
    assert ip['nova_object.name'] == 'IpPayload'
    assert ip['nova_object.data']['label'] == 'private'
    assert ip['nova_object.data']['version'] == 4
    assert _data(start)['state'] == 'building'
    # vm_state/task_state changes, old and new, in the order they were
    # made: scheduling -> networking -> spawning -> active.
    updates = [_data(n) for n in notifications.about(uuid,
                                                     'instance.update')]
    changes = [(u['state_update']['nova_object.data']['old_state'],
                u['state_update']['nova_object.data']['old_task_state'],
                u['state_update']['nova_object.data']['state'],
                u['state_update']['nova_object.data']['new_task_state'])
               for u in updates]
    assert changes == [
        ('building', 'scheduling', 'building', 'networking'),
        ('building', 'networking', 'building', 'spawning'),
        ('building', 'spawning', 'active', None)]
    update = notifications.about(uuid, 'instance.update')[-1]
    assert update['payload']['nova_object.name'] == 'InstanceUpdatePayload'
    assert update['payload']['nova_object.version'] == '1.0'
    assert _data(update)['audit_period']['nova_object.name'] == \
        'AuditPeriodPayload'


def test_failed_build_sends_create_error_with_the_fault(
        api, notifications, conf):
    conf.set_override('fail_spawn_for_names', ['doomed'],
                      group='fake_driver')
    uuid = _boot(api, name='doomed')
    wait_for(lambda: _status(api, uuid) == 'ERROR', timeout=30,
             message='ERROR')
    errors = notifications.wait_for(uuid, 'instance.create.error')
    error = errors[0]
    assert error['priority'] == 'ERROR'
    fault = _data(error)['fault']
    assert fault['nova_object.name'] == 'ExceptionPayload'
    assert fault['nova_object.data']['exception_message']
    assert fault['nova_object.data']['exception']
    # One start and one error per host tried; never an end.
    starts = notifications.about(uuid, 'instance.create.start')
    assert len(starts) == len(notifications.about(
        uuid, 'instance.create.error')) >= 1
    assert notifications.about(uuid, 'instance.create.end') == []
    last = wait_for(lambda: [
        n for n in notifications.about(uuid, 'instance.update')
        if _data(n)['state'] == 'error'], message='update to error')[-1]
    assert _data(last)['state_update']['nova_object.data'][
        'old_task_state'] == 'scheduling'


def test_delete_sends_delete_start_and_end_from_the_compute(
        api, notifications):
    uuid = _boot(api)
    end, = notifications.wait_for(uuid, 'instance.create.end')
    host = _data(end)['host']
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    done, = notifications.wait_for(uuid, 'instance.delete.end')
    started, = notifications.about(uuid, 'instance.delete.start')
    assert started['publisher_id'] == done['publisher_id'] == \
        'nova-compute:%s' % host
    assert done['payload']['nova_object.name'] == 'InstanceActionPayload'
    assert done['payload']['nova_object.version'] == '1.0'
    assert _data(started)['task_state'] == 'deleting'
    assert _data(done)['state'] == 'deleted'
    assert _data(done)['deleted_at'] and _data(done)['terminated_at']
    deleting = [n for n in notifications.about(uuid, 'instance.update')
                if _data(n)['task_state'] == 'deleting']
    assert len(deleting) == 1


def test_deleting_a_server_in_cell0_notifies_from_the_api(
        api, notifications):
    huge = {'flavor': {'name': 'huge', 'id': 'huge', 'ram': 10 ** 7,
                       'vcpus': 1, 'disk': 1}}
    assert api('POST', '/flavors', huge, token=ADMIN).status_code == 200
    uuid = _boot(api, name='big', networks='none', flavorRef='huge')
    wait_for(lambda: _status(api, uuid) == 'ERROR', timeout=30,
             message='ERROR')
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    done, = notifications.wait_for(uuid, 'instance.delete.end')
    started, = notifications.about(uuid, 'instance.delete.start')
    assert started['publisher_id'].startswith('nova-api:')
    assert _data(done)['state'] == 'deleted'
    assert notifications.about(uuid, 'instance.create.start') == []


def test_deleting_a_server_not_yet_scheduled_notifies_from_the_api(
        api, notifications):
    # A build request as the API writes it, caught before the super
    # conductor took it.
    admin = nova_context.get_admin_context()
    uuid = server_fixtures.add_build_request(
        types.SimpleNamespace(ctxt=admin),
        objects.Flavor.get_by_flavor_id(admin, 'small'), name='early')
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    done, = notifications.wait_for(uuid, 'instance.delete.end')
    started, = notifications.about(uuid, 'instance.delete.start')
    assert started['publisher_id'] == done['publisher_id']
    assert done['publisher_id'].startswith('nova-api:')
    assert _data(done)['display_name'] == 'early'
    assert _data(done)['state'] == 'building'


def test_no_driver_configured_sends_nothing(api, notifications, conf):
    conf.set_override('driver', [], group='oslo_messaging_notifications')
    uuid = _boot(api)
    wait_for(lambda: _status(api, uuid) == 'ACTIVE', timeout=30,
             message='ACTIVE')
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: _status(api, uuid) == 404, timeout=30,
             message='deleted')
    assert notifications.received == []


def _act_and_settle(api, uuid, body, status):
    response = api('POST', '/servers/%s/action' % uuid, body)
    assert response.status_code == 202, response.text

    def settled():
        server = api('GET', '/servers/%s' % uuid).json()['server']
        return server['status'] == status and \
            server['OS-EXT-STS:task_state'] is None
    wait_for(settled, timeout=30, message=status)


def test_server_actions_send_their_start_and_end(api, notifications):
    uuid = _boot(api, networks='none')
    end, = notifications.wait_for(uuid, 'instance.create.end')
    host = _data(end)['host']
    steps = [({'os-stop': None}, 'SHUTOFF', 'power_off', 'shutdown'),
             ({'os-start': None}, 'ACTIVE', 'power_on', 'running'),
             ({'reboot': {'type': 'SOFT'}}, 'ACTIVE', 'reboot', 'running'),
             ({'pause': None}, 'PAUSED', 'pause', 'paused'),
             ({'unpause': None}, 'ACTIVE', 'unpause', 'running'),
             ({'suspend': None}, 'SUSPENDED', 'suspend', 'suspended'),
             ({'resume': None}, 'ACTIVE', 'resume', 'running')]
    for body, status, action, power_state in steps:
        _act_and_settle(api, uuid, body, status)
        done, = notifications.wait_for(uuid, 'instance.%s.end' % action)
        started, = notifications.about(uuid, 'instance.%s.start' % action)
        assert started['publisher_id'] == done['publisher_id'] == \
            'nova-compute:%s' % host
        assert done['payload']['nova_object.name'] == \
            'InstanceActionPayload'
        assert _data(done)['power_state'] == power_state, action
        assert _data(done)['task_state'] is None
        assert _data(started)['task_state'] is not None
    # Lock and unlock are the API's: one notification each, no phase.
    for body, event, locked in (({'lock': None}, 'instance.lock', True),
                                ({'unlock': None}, 'instance.unlock',
                                 False)):
        response = api('POST', '/servers/%s/action' % uuid, body)
        assert response.status_code == 202, response.text
        sent, = notifications.wait_for(uuid, event)
        assert sent['publisher_id'].startswith('nova-api:')
        assert _data(sent)['locked'] is locked


def test_rebuild_sends_start_and_end_or_error_with_the_fault(
        api, notifications, conf):
    uuid = _boot(api, networks='none')
    end, = notifications.wait_for(uuid, 'instance.create.end')
    host = _data(end)['host']
    _act_and_settle(api, uuid, {'rebuild': {'imageRef': IMAGE,
                                            'name': 'rebuilt'}}, 'ACTIVE')
    done, = notifications.wait_for(uuid, 'instance.rebuild.end')
    started, = notifications.about(uuid, 'instance.rebuild.start')
    assert started['publisher_id'] == done['publisher_id'] == \
        'nova-compute:%s' % host
    assert _data(started)['task_state'] == 'rebuilding'
    assert _data(done)['task_state'] is None
    assert _data(done)['image_uuid'] == IMAGE
    assert _data(done)['display_name'] == 'rebuilt'
    conf.set_override('fail_methods', ['rebuild'], group='fake_driver')
    _act_and_settle(api, uuid, {'rebuild': {'imageRef': IMAGE}}, 'ERROR')
    error, = notifications.wait_for(uuid, 'instance.rebuild.error')
    assert error['priority'] == 'ERROR'
    assert _data(error)['fault']['nova_object.data']['exception_message']
    assert len(notifications.about(uuid, 'instance.rebuild.start')) == 2
    assert len(notifications.about(uuid, 'instance.rebuild.end')) == 1


def _ips(notification):
    return [(ip['nova_object.name'], ip['nova_object.data']['port_uuid'])
            for ip in _data(notification)['ip_addresses']]


def test_interface_attach_and_detach_carry_the_ip_payloads(
        api, notifications):
    """As Nova's samples: instance.interface_attach/detach.start/.end
    are InstanceActionPayloads whose ip_addresses (IpPayload 1.0) show
    the server's ports before and after the change."""
    uuid = _boot(api)
    wait_for(lambda: _status(api, uuid) == 'ACTIVE', timeout=30)
    path = '/servers/%s/os-interface' % uuid
    first = api('GET', path).json()['interfaceAttachments'][0]['port_id']
    attached = api('POST', path, {'interfaceAttachment': {
        'net_id': '3cb9bc59-5699-4588-a4b1-b87f96708bc6'}})
    assert attached.status_code == 200, attached.text
    port = attached.json()['interfaceAttachment']
    start, = notifications.wait_for(uuid, 'instance.interface_attach.start')
    end, = notifications.wait_for(uuid, 'instance.interface_attach.end')
    assert end['payload']['nova_object.name'] == 'InstanceActionPayload'
    assert _ips(start) == [('IpPayload', first)]
    assert _ips(end) == [('IpPayload', first),
                         ('IpPayload', port['port_id'])]
    ip = _data(end)['ip_addresses'][1]
    assert ip['nova_object.version'] == '1.0'
    assert ip['nova_object.data'] == {
        'label': 'private', 'mac': port['mac_addr'],
        'address': port['fixed_ips'][0]['ip_address'], 'version': 4,
        'port_uuid': port['port_id'],
        'device_name': ('tap' + port['port_id'])[:14], 'meta': {}}
    assert api('DELETE', path + '/' + port['port_id']).status_code == 202
    start, = notifications.wait_for(uuid, 'instance.interface_detach.start')
    end, = notifications.wait_for(uuid, 'instance.interface_detach.end')
    assert _ips(start) == [('IpPayload', first),
                           ('IpPayload', port['port_id'])]
    assert _ips(end) == [('IpPayload', first)]
