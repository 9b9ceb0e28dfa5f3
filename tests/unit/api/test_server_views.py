"""Server bodies from server records, at the microversion boundaries: the
keys each version adds, the status map, and the 2.47 flavor."""
import datetime

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import servers as views
from nova_lite.compute.api import server_records

URL = 'http://nova.example/v2.1'
NOW = datetime.datetime(2026, 11, 25, 12, 0, 0, 123456)
RECORD = {
    'id': 7, 'uuid': 'f5b3a0a4-0d1e-4c35-9a61-3f3f0e0c1a11',
    'display_name': 'web', 'display_description': 'the web server',
    'user_id': 'bob', 'project_id': 'project-a', 'created_at': NOW,
    'updated_at': NOW, 'launched_at': NOW, 'terminated_at': None,
    'host': 'c1-host1', 'node': 'c1-host1.example.org', 'hostname': 'web',
    'vm_state': 'active', 'task_state': None, 'power_state': 1,
    'image_ref': '155d900f-4e14-4e4c-a73d-069cbf4541e6', 'key_name': None,
    'user_data': None, 'availability_zone': None, 'locked': False,
    'locked_by': None, 'access_ip_v4': None, 'access_ip_v6': None,
    'config_drive': '', 'progress': 0, 'reservation_id': 'r-abc',
    'launch_index': 0, 'root_device_name': '/dev/vda',
    'metadata': {'k': 'v'}, 'system_metadata': {}, 'tags': ['a'],
    'fault': None, 'cell_down': False, 'build_request': False,
    'flavor': {'id': 1, 'flavorid': 'small', 'name': 'm1.small',
               'memory_mb': 512, 'vcpus': 1, 'root_gb': 1,
               'ephemeral_gb': 0, 'swap': 0,
               'extra_specs': {'hw:cpu_policy': 'dedicated'}},
    'network_info': [{'id': 'p1', 'address': 'fa:16:3e:00:00:01',
                      'network': {'id': 'n1', 'label': 'private',
                                  'subnets': [{'cidr': '10.0.0.0/24',
                                               'ips': [{
                                                   'address': '10.0.0.5',
                                                   'type': 'fixed',
                                                   'version': 4}]}]}}],
}


def _body(version, **flags):
    builder = views.Builder(URL, av.APIVersion(version), **flags)
    return builder.show(_record())['server']


def _record(**changes):
    return server_records.record(dict(RECORD, **changes))


def test_keys_appear_at_their_versions():
    assert 'locked' not in _body('2.8')
    assert _body('2.9')['locked'] is False
    assert 'description' not in _body('2.18')
    assert _body('2.19')['description'] == 'the web server'
    assert 'tags' not in _body('2.25')
    assert _body('2.26')['tags'] == ['a']
    assert _body('2.63')['trusted_image_certificates'] is None
    assert 'server_groups' not in _body('2.70')
    assert _body('2.71')['server_groups'] == []
    assert 'locked_reason' not in _body('2.72')
    assert _body('2.73')['locked_reason'] is None


def test_extended_attributes_for_administrators_only():
    assert not any(k.startswith('OS-EXT-SRV-ATTR') for k in _body('2.88'))
    v21 = _body('2.1', extended_attrs=True)
    assert v21['OS-EXT-SRV-ATTR:host'] == 'c1-host1'
    assert v21['OS-EXT-SRV-ATTR:instance_name'] == 'instance-00000007'
    assert 'OS-EXT-SRV-ATTR:reservation_id' not in v21
    v23 = _body('2.3', extended_attrs=True)
    assert v23['OS-EXT-SRV-ATTR:reservation_id'] == 'r-abc'
    assert v23['OS-EXT-SRV-ATTR:user_data'] is None


def test_flavor_before_and_from_247():
    assert _body('2.46')['flavor'] == {'id': 'small', 'links': [
        {'rel': 'bookmark', 'href': 'http://nova.example/flavors/small'}]}
    assert _body('2.47')['flavor'] == {
        'vcpus': 1, 'ram': 512, 'disk': 1, 'ephemeral': 0, 'swap': 0,
        'original_name': 'm1.small'}
    assert _body('2.47', extra_specs=True)['flavor']['extra_specs'] == {
        'hw:cpu_policy': 'dedicated'}


def test_status_map():
    assert views.status('active', None) == 'ACTIVE'
    assert views.status('active', 'rebooting') == 'REBOOT'
    assert views.status('building', 'scheduling') == 'BUILD'
    assert views.status('stopped', None) == 'SHUTOFF'
    assert views.status('resized', None) == 'VERIFY_RESIZE'
    assert views.status('error', None) == 'ERROR'
    assert views.status('nonsense', None) == 'UNKNOWN'
    assert views.states_of_statuses(['shutoff']) == (['stopped'],
                                                     ['default'])
    assert views.states_of_statuses(['bogus']) == ([], [])


def test_addresses_and_times():
    body = _body('2.1')
    assert body['addresses'] == {'private': [{
        'version': 4, 'addr': '10.0.0.5', 'OS-EXT-IPS:type': 'fixed',
        'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'}]}
    assert body['created'] == '2026-11-25T12:00:00Z'
    assert body['OS-SRV-USG:launched_at'] == '2026-11-25T12:00:00.123456'
    assert body['status'] == 'ACTIVE' and body['progress'] == 0
    assert body['hostId'] and 'security_groups' not in body
    # The groups of the server's ports, when it has some.
    grouped = views.Builder(URL, av.APIVersion('2.1')).show(_record(
        security_groups=[{'name': 'default', 'id': 'x'}]))['server']
    assert grouped['security_groups'] == [{'name': 'default'}]


def test_update_body_is_full_from_275():
    builder = views.Builder(URL, av.APIVersion('2.74'), extended_attrs=True)
    short = builder.updated(_record())['server']
    assert 'OS-EXT-STS:vm_state' not in short
    assert 'OS-EXT-SRV-ATTR:host' not in short
    assert 'OS-EXT-IPS:type' not in short['addresses']['private'][0]
    builder = views.Builder(URL, av.APIVersion('2.75'), extended_attrs=True)
    full = builder.updated(_record())['server']
    shown = views.Builder(URL, av.APIVersion('2.75'),
                          extended_attrs=True).show(_record())['server']
    assert full == shown


def test_down_cell_minimal_constructs():
    rec = server_records.record({
        'uuid': RECORD['uuid'], 'project_id': 'project-a',
        'created_at': NOW, 'cell_down': True})
    builder = views.Builder(URL, av.APIVersion('2.69'))
    assert builder.summary(rec) == {'id': rec.uuid, 'status': 'UNKNOWN',
                                    'links': builder.links(rec.uuid)}
    assert set(builder.detail(rec)) == {'id', 'status', 'tenant_id',
                                        'created', 'links'}


def test_a_build_request_has_typed_extended_attributes():
    """A server not yet scheduled has no launch index or hostname
    stored; the 2.3 fields still carry their types (integer, string)."""
    rec = _record(launch_index=None, hostname=None, id=None, host=None,
                  node=None)
    body = views.Builder(URL, av.APIVersion('2.3'), extended_attrs=True)\
        .show(rec)['server']
    assert body['OS-EXT-SRV-ATTR:launch_index'] == 0
    assert body['OS-EXT-SRV-ATTR:hostname'] == ''
    assert body['OS-EXT-SRV-ATTR:instance_name'] == ''
