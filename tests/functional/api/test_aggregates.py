"""os-aggregates and availability zones through the REST API on one
running plane (two cells, two computes each): create, list, show,
update, delete, add_host, remove_host, set_metadata, images (2.81);
Nova's rules (names, zones, hosts with servers); the zones listed and
used on boot; placement aggregates on the hosts' providers;
notifications."""
import os

import pytest

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.placement import aggregates as placement_aggregates
from nova_lite.virt import fake
from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for
from tests.functional import notification_fixtures

URL = '/os-aggregates'
H1, H2, H3 = 'cell1-compute1', 'cell1-compute2', 'cell2-compute1'


@pytest.fixture
def api(running):  # noqa: F811
    """The plane's client; every server and aggregate is gone after the
    test."""
    yield running.api
    for server in running.api('GET', '/servers?all_tenants=1',
                              token=ADMIN).json()['servers']:
        running.api('DELETE', '/servers/%s' % server['id'], token=ADMIN)
        running.gone(server['id'])
    for agg in running.api('GET', URL, token=ADMIN).json()['aggregates']:
        for host in agg['hosts']:
            running.api('POST', '%s/%d/action' % (URL, agg['id']),
                        {'remove_host': {'host': host}}, token=ADMIN)
        running.api('DELETE', '%s/%d' % (URL, agg['id']), token=ADMIN)


def _call(api, method, path, body=None, version='2.1', status=200):
    resp = api(method, path, body, version=version, token=ADMIN)
    assert resp.status_code == status, resp.text
    return resp.json() if resp.text else None


def _create(api, name, zone=None, version='2.1', status=200):
    body = {'name': name}
    if zone is not None:
        body['availability_zone'] = zone
    return _call(api, 'POST', URL, {'aggregate': body}, version, status)


def _act(api, agg_id, body, status=200, version='2.1'):
    return _call(api, 'POST', '%s/%d/action' % (URL, agg_id), body,
                 version, status)


def _fault(body):
    (_name, fault), = body.items()
    return fault['message']


def _node_uuids(running, host):  # noqa: F811
    ctxt = nova_context.get_admin_context()
    mapping = objects.HostMapping.get_by_host(ctxt, host)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return [n.uuid for n in
                objects.ComputeNodeList.get_all_by_host(cctxt, host)]


def test_create_show_list_update_delete(api):
    created = _create(api, 'agg1', 'az1')['aggregate']
    assert set(created) == {'availability_zone', 'created_at', 'deleted',
                            'deleted_at', 'id', 'name', 'updated_at'}
    assert created['availability_zone'] == 'az1'
    assert created['deleted'] is False and created['updated_at'] is None
    agg_id = created['id']
    shown = _call(api, 'GET', '%s/%d' % (URL, agg_id))['aggregate']
    assert shown['hosts'] == [] and shown['metadata'] == {
        'availability_zone': 'az1'}
    assert 'uuid' not in shown
    at_241 = _call(api, 'GET', '%s/%d' % (URL, agg_id),
                   version='2.41')['aggregate']
    assert len(at_241['uuid']) == 36
    listed = _call(api, 'GET', URL, version='2.41')['aggregates']
    assert [a['id'] for a in listed] == [agg_id]
    updated = _call(api, 'PUT', '%s/%d' % (URL, agg_id), {'aggregate': {
        'name': 'agg1b', 'availability_zone': 'az2'}})['aggregate']
    assert (updated['name'], updated['availability_zone']) == (
        'agg1b', 'az2')
    assert updated['metadata'] == {'availability_zone': 'az2'}
    assert updated['updated_at'] is not None
    meta = _act(api, agg_id, {'set_metadata': {'metadata': {
        'ssd': 'true', 'k': 'v'}}})['aggregate']['metadata']
    assert meta == {'availability_zone': 'az2', 'ssd': 'true', 'k': 'v'}
    meta = _act(api, agg_id, {'set_metadata': {'metadata': {
        'k': None}}})['aggregate']['metadata']
    assert meta == {'availability_zone': 'az2', 'ssd': 'true'}
    assert _call(api, 'DELETE', '%s/%d' % (URL, agg_id)) is None
    _call(api, 'GET', '%s/%d' % (URL, agg_id), status=404)


def test_names_and_bad_input(api):
    _create(api, 'dup')
    assert _fault(_create(api, 'dup', status=409)) == \
        'Aggregate dup already exists.'
    other = _create(api, 'other')['aggregate']['id']
    _call(api, 'PUT', '%s/%d' % (URL, other),
          {'aggregate': {'name': 'dup'}}, status=409)
    _create(api, 'colon', 'a:b', status=400)
    _create(api, '', status=400)
    _call(api, 'POST', URL, {'aggregate': {'name': 'x', 'bogus': 1}},
          status=400)
    _call(api, 'PUT', '%s/%d' % (URL, other), {'aggregate': {}}, status=400)
    _call(api, 'GET', URL + '/abc', status=400)
    _call(api, 'GET', URL + '/999999', status=404)
    _act(api, other, {'set_metadata': {'metadata': {'k' * 256: 'v'}}},
         status=400)
    _act(api, other, {'add_host': {'host': 'no-such-host'}}, status=404)
    _act(api, other, {'remove_host': {'host': H1}}, status=404)
    # A zone may not take the name of an aggregate outside it.
    _call(api, 'PUT', '%s/%d' % (URL, other),
          {'aggregate': {'availability_zone': 'dup'}}, status=400)
    # Members may not touch aggregates.
    resp = api('GET', URL, token=MEMBER)
    assert resp.status_code == 403


def test_hosts_zones_and_placement_aggregates(api, running):  # noqa: F811
    agg = _create(api, 'zone-a', 'az-a', version='2.41')['aggregate']
    agg_id = agg['id']
    body = _act(api, agg_id, {'add_host': {'host': H1}}, version='2.41')
    assert body['aggregate']['hosts'] == [H1]
    uuid = body['aggregate']['uuid']
    assert _fault(_act(api, agg_id, {'add_host': {'host': H1}},
                       status=409)) == \
        'Aggregate %d already has host %s.' % (agg_id, H1)
    # The host's providers are in the placement aggregate.
    ctxt = nova_context.get_admin_context()
    for node in _node_uuids(running, H1):
        assert uuid in placement_aggregates.aggregates_of(ctxt, node)
    # A host is in one zone at most.
    other = _create(api, 'zone-b', 'az-b')['aggregate']['id']
    message = _fault(_act(api, other, {'add_host': {'host': H1}},
                          status=409))
    assert message.startswith('Cannot add host to aggregate %d.' % other)
    # Non-zone aggregates take any host.
    plain = _create(api, 'plain')['aggregate']['id']
    _act(api, plain, {'add_host': {'host': H1}})
    # The zones, with their hosts.
    zones = api('GET', '/os-availability-zone', token=MEMBER).json()[
        'availabilityZoneInfo']
    assert {z['zoneName'] for z in zones} == {'az-a', 'nova'}
    detail = api('GET', '/os-availability-zone/detail', token=ADMIN).json()[
        'availabilityZoneInfo']
    hosts = {z['zoneName']: set(z['hosts'] or ()) for z in detail}
    assert hosts['az-a'] == {H1}
    assert H1 not in hosts['nova'] and H2 in hosts['nova']
    # A non-empty aggregate cannot be deleted.
    _call(api, 'DELETE', '%s/%d' % (URL, agg_id), status=400)
    body = _act(api, agg_id, {'remove_host': {'host': H1}})
    assert body['aggregate']['hosts'] == []
    for node in _node_uuids(running, H1):
        assert uuid not in placement_aggregates.aggregates_of(ctxt, node)
    _call(api, 'DELETE', '%s/%d' % (URL, agg_id))


def test_boot_in_a_zone_and_hosts_with_servers_keep_their_zone(
        api, running):  # noqa: F811
    agg_id = _create(api, 'boot-zone', 'az-boot')['aggregate']['id']
    _act(api, agg_id, {'add_host': {'host': H3}})
    uuid = running.boot(availability_zone='az-boot')
    body = api('GET', '/servers/%s' % uuid, token=ADMIN).json()['server']
    assert body['OS-EXT-SRV-ATTR:host'] == H3
    assert body['OS-EXT-AZ:availability_zone'] == 'az-boot'
    # An unknown zone is a 400, as Nova answers.
    resp = api('POST', '/servers', _server(availability_zone='no-such-az'),
               version='2.37', token=MEMBER)
    assert resp.status_code == 400, resp.text
    # H3 has a server: it can neither leave its zone nor change it.
    message = _fault(_act(api, agg_id, {'remove_host': {'host': H3}},
                          status=409))
    assert 'the availability zone of the host would change' in message
    _call(api, 'PUT', '%s/%d' % (URL, agg_id),
          {'aggregate': {'availability_zone': 'az-renamed'}}, status=400)
    _act(api, agg_id, {'set_metadata': {'metadata': {
        'availability_zone': 'az-renamed'}}}, status=400)
    other = _create(api, 'boot-zone-2', 'az-two')['aggregate']['id']
    message = _fault(_act(api, other, {'add_host': {'host': H3}},
                          status=409))
    assert message.startswith('Cannot add host to aggregate %d.' % other)
    # A server with no zone asked for shows its host's zone.
    uuid2 = running.boot(cell='cell2')
    shown = api('GET', '/servers/%s' % uuid2, token=ADMIN).json()['server']
    expected = 'az-boot' if shown['OS-EXT-SRV-ATTR:host'] == H3 else 'nova'
    assert shown['OS-EXT-AZ:availability_zone'] == expected
    for server in (uuid, uuid2):
        assert api('DELETE', '/servers/%s' % server,
                   token=MEMBER).status_code == 204
        running.gone(server)


def test_admin_boots_on_zone_host(api, running):  # noqa: F811
    agg_id = _create(api, 'forced', 'az-f')['aggregate']['id']
    _act(api, agg_id, {'add_host': {'host': H2}})
    uuid = running.boot(token=ADMIN, availability_zone='az-f:%s' % H2)
    assert running.host(uuid) == H2
    resp = api('POST', '/servers', _server(
        availability_zone='az-f:%s' % H2), version='2.37', token=MEMBER)
    assert resp.status_code == 403, resp.text
    assert api('DELETE', '/servers/%s' % uuid, token=ADMIN).status_code \
        == 204
    running.gone(uuid)


def test_cache_images(api, running):  # noqa: F811
    agg_id = _create(api, 'cache')['aggregate']['id']
    _act(api, agg_id, {'add_host': {'host': H1}})
    path = '%s/%d/images' % (URL, agg_id)
    body = {'cache': [{'id': IMAGE}]}
    _call(api, 'POST', path, body, version='2.80', status=404)
    _call(api, 'POST', path, {'cache': []}, version='2.81', status=400)
    _call(api, 'POST', path, {'cache': [{'id': IMAGE}, {'id': IMAGE}]},
          version='2.81', status=400)
    _call(api, 'POST', path, {'cache': [
        {'id': '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'}]}, version='2.81',
        status=400)
    assert _call(api, 'POST', path, body, version='2.81',
                 status=202) is None
    directory = os.path.join(CONF.state_path, 'fake-hypervisor')
    wait_for(lambda: IMAGE in fake.cached_images(directory, H1),
             timeout=30, message='image cached on %s' % H1)


def test_notifications(api, running):  # noqa: F811
    collector = notification_fixtures.Collector().start()
    try:
        created = _create(api, 'noisy', version='2.41')['aggregate']
        _act(api, created['id'], {'add_host': {'host': H2}})
        _act(api, created['id'], {'set_metadata': {'metadata': {'a': 'b'}}})
        _act(api, created['id'], {'remove_host': {'host': H2}})
        _call(api, 'DELETE', '%s/%d' % (URL, created['id']))
        wanted = ['aggregate.%s.%s' % (action, phase) for action in (
            'create', 'add_host', 'update_metadata', 'remove_host',
            'delete') for phase in ('start', 'end')]

        def arrived():
            got = [n['event_type'] for n in collector.received
                   if n['event_type'].startswith('aggregate.')]
            return got if len(got) >= len(wanted) else None
        assert wait_for(arrived, timeout=30, message='aggregate.*') == \
            wanted
        end = [n for n in collector.received
               if n['event_type'] == 'aggregate.add_host.end'][0]
        data = end['payload']['nova_object.data']
        assert end['payload']['nova_object.name'] == 'AggregatePayload'
        assert data['hosts'] == [H2] and data['uuid'] == created['uuid']
    finally:
        collector.stop()


def test_aggregate_names_and_zone_names_do_not_clash(api):
    _create(api, 'zoned', 'az-clash')
    # An aggregate may not be named as a zone it is not in ...
    _create(api, 'az-clash', status=400)
    plain = _create(api, 'plain-name')['aggregate']['id']
    _call(api, 'PUT', '%s/%d' % (URL, plain),
          {'aggregate': {'name': 'az-clash'}}, status=400)
    # ... but may be named as the zone it makes.
    _create(api, 'az-own', 'az-own')
    # An empty zone name is refused.
    _act(api, plain, {'set_metadata': {'metadata': {
        'availability_zone': ''}}}, status=400)
