"""The embedded image and network services as Glance's and Neutron's APIs
show them (read only), at /image and /networking."""
import json
import uuid

import pytest

from nova_lite import context as nova_context
from nova_lite.image import api as image_api
from nova_lite.network import api as network_api
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import MEMBER

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
PRIVATE = network_api.DEFAULT_NETWORK['id']
OTHER = {'X-Auth-Token': 'carol:project-b'}


def test_image_version_document_then_images(app):
    versions = app.get('/image', headers=MEMBER).json['versions']
    assert versions[0]['status'] == 'CURRENT'
    assert versions[0]['links'][0]['href'].endswith('/image/v2/')
    images = app.get('/image/v2/images', headers=MEMBER).json
    assert images['first'] == '/v2/images'
    assert {i['name'] for i in images['images']} == {
        i['name'] for i in image_api.DEFAULT_IMAGES}
    cirros = app.get('/image/v2/images/' + CIRROS, headers=MEMBER).json
    assert (cirros['status'], cirros['visibility'], cirros['min_ram'],
            cirros['disk_format'], cirros['os_distro']) == (
        'active', 'public', 0, 'qcow2', 'cirros')
    assert cirros['created_at'] == '2026-01-01T00:00:00Z'
    assert cirros['self'] == '/v2/images/' + CIRROS


def test_image_filters_paging_and_errors(app):
    named = app.get('/image/v2/images?name=cirros-0.6.2-x86_64-disk',
                    headers=MEMBER).json['images']
    assert [i['id'] for i in named] == [CIRROS]
    page = app.get('/image/v2/images?limit=2', headers=MEMBER).json
    assert len(page['images']) == 2
    assert page['next'] == '/v2/images?limit=2&marker=%s' % (
        page['images'][-1]['id'])
    rest = app.get('/image/v2/images?marker=%s' % page['images'][-1]['id'],
                   headers=MEMBER).json
    assert len(rest['images']) == 1 and 'next' not in rest
    missing = app.get('/image/v2/images/cirros', headers=MEMBER,
                      status=404)
    assert missing.json['itemNotFound']['code'] == 404
    assert app.get('/image/v2/images', status=401).status_int == 401
    assert app.post_json('/image/v2/images/x', {}, headers=MEMBER,
                         status=405).status_int == 405
    assert app.get('/image/v2/images?limit=x', headers=MEMBER,
                   status=400).status_int == 400


def test_image_created_uploaded_patched(app):
    """Glance's create, upload and property patch, as Tempest's compute
    tests use them."""
    made = app.post_json('/image/v2/images', {
        'name': 'up', 'container_format': 'bare', 'disk_format': 'raw',
        'min_ram': 64, 'hw_rescue_bus': 'virtio'}, headers=MEMBER,
        status=201).json
    assert (made['status'], made['visibility'], made['min_ram'],
            made['hw_rescue_bus'], made['size']) == (
        'queued', 'private', 64, 'virtio', None)
    path = '/image/v2/images/' + made['id']
    # Refusals: a read-only field, a public image by a member (403), a
    # property that is no string (400), another project's upload (404).
    app.post_json('/image/v2/images', {'status': 'active'},
                  headers=MEMBER, status=403)
    app.post_json('/image/v2/images', {'visibility': 'public'},
                  headers=MEMBER, status=403)
    app.post_json('/image/v2/images', {'k': 1}, headers=MEMBER,
                  status=400)
    app.put(path + '/file', b'x', headers=dict(
        OTHER, **{'Content-Type': 'application/octet-stream'}), status=404)
    app.put(path + '/file', b'0123456789', headers=dict(
        MEMBER, **{'Content-Type': 'application/octet-stream'}),
        status=204)
    shown = app.get(path, headers=MEMBER).json
    assert (shown['status'], shown['size'], shown['checksum']) == (
        'active', 10, '781e5e245d69b566979b86e28d23f2c7')
    app.put(path + '/file', b'y', headers=dict(
        MEMBER, **{'Content-Type': 'application/octet-stream'}),
        status=409)
    # Downloaded as uploaded (Glance's GET .../file).
    got = app.get(path + '/file', headers=MEMBER)
    assert (got.status_int, got.body, got.content_type,
            got.headers['Content-MD5']) == (
        200, b'0123456789', 'application/octet-stream',
        '781e5e245d69b566979b86e28d23f2c7')
    app.get(path + '/file', headers=OTHER, status=404)
    patch = {'Content-Type':
             'application/openstack-images-v2.1-json-patch'}
    patched = app.patch(path, json.dumps([
        {'op': 'add', 'path': '/hw_rescue_device', 'value': 'disk'},
        {'op': 'remove', 'path': '/hw_rescue_bus'}]),
        headers=dict(MEMBER, **patch)).json
    assert patched['hw_rescue_device'] == 'disk'
    assert 'hw_rescue_bus' not in patched
    # Glance's v2.0 draft form, as Tempest's images client sends it.
    assert app.patch(path, json.dumps([{'add': '/hw_rescue_bus',
                                        'value': 'scsi'}]),
                     headers=dict(MEMBER, **patch)).json[
        'hw_rescue_bus'] == 'scsi'
    app.patch(path, json.dumps([{'op': 'replace', 'path': '/status',
                                 'value': 'x'}]),
              headers=dict(MEMBER, **patch), status=403)
    # Filtered by a property, oldest first (Tempest's backup listing).
    other = app.post_json('/image/v2/images', {
        'name': 'up2', 'hw_rescue_device': 'disk'}, headers=MEMBER,
        status=201).json
    query = '/image/v2/images?hw_rescue_device=disk&sort_key=created_at'
    newest = [i['id'] for i in app.get(query, headers=MEMBER).json[
        'images']]
    assert sorted(newest) == sorted([made['id'], other['id']])
    assert [i['id'] for i in app.get(
        query + '&sort_dir=asc', headers=MEMBER).json['images']] == \
        newest[::-1]
    assert [i['id'] for i in app.get(
        query + '&limit=1', headers=MEMBER).json['images']] == newest[:1]
    app.get('/image/v2/images?sort_dir=up', headers=MEMBER, status=400)
    app.delete(path, headers=MEMBER, status=204)


def test_private_image_only_for_its_project(app, api_env):
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    image = image_api.API().create(ctxt, 'mine')
    assert app.get('/image/v2/images/' + image['id'],
                   headers=MEMBER).json['visibility'] == 'private'
    app.get('/image/v2/images/' + image['id'], headers=OTHER, status=404)
    assert image['id'] not in [i['id'] for i in app.get(
        '/image/v2/images', headers=OTHER).json['images']]
    # Its tasks (none run here), then deleted by its project only.
    path = '/image/v2/images/' + image['id']
    assert app.get(path + '/tasks', headers=MEMBER).json == {'tasks': []}
    app.get(path + '/tasks', headers=OTHER, status=404)
    app.delete(path, headers=OTHER, status=404)
    app.delete('/image/v2/images/' + CIRROS, headers=MEMBER, status=403)
    app.delete('/image/v2/images', headers=MEMBER, status=405)
    app.delete(path, headers=MEMBER, status=204)
    app.get(path, headers=MEMBER, status=404)


def test_networks_subnets_and_ports(app, api_env):
    versions = app.get('/networking', headers=MEMBER).json['versions']
    assert versions[0]['id'] == 'v2.0'
    nets = app.get('/networking/v2.0/networks?name=private',
                   headers=MEMBER).json['networks']
    assert [(n['id'], n['shared'], n['status']) for n in nets] == [
        (PRIVATE, True, 'ACTIVE')]
    shown = app.get('/networking/v2.0/networks/' + PRIVATE,
                    headers=MEMBER).json['network']
    assert shown['subnets'] == [network_api.DEFAULT_NETWORK['subnet_id']]
    app.get('/networking/v2.0/networks/private', headers=MEMBER, status=404)
    assert app.get('/networking/v2.0/networks?name=nope',
                   headers=MEMBER).json == {'networks': []}
    assert app.get('/networking/v2.0/networks?shared=True',
                   headers=MEMBER).json['networks'][0]['id'] == PRIVATE
    subnet, = app.get('/networking/v2.0/subnets',
                      headers=MEMBER).json['subnets']
    assert (subnet['cidr'], subnet['gateway_ip'],
            subnet['allocation_pools']) == (
        '10.0.0.0/24', '10.0.0.1',
        [{'start': '10.0.0.2', 'end': '10.0.0.254'}])
    instance = str(uuid.uuid4())
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    info = network_api.API().allocate_for_instance(
        ctxt, instance, 'project-a', 'auto', 'host1')
    ports = app.get('/networking/v2.0/ports?device_id=' + instance,
                    headers=MEMBER).json['ports']
    assert [(p['id'], p['fixed_ips'][0]['ip_address'], p['status'],
             p['binding:host_id']) for p in ports] == [
        (info[0]['id'], '10.0.0.2', 'ACTIVE', 'host1')]
    assert app.get('/networking/v2.0/ports/' + info[0]['id'],
                   headers=MEMBER).json['port']['device_id'] == instance
    # Another project sees neither the port nor its list entry; an
    # administrator sees both.
    app.get('/networking/v2.0/ports/' + info[0]['id'], headers=OTHER,
            status=404)
    assert app.get('/networking/v2.0/ports', headers=OTHER).json == {
        'ports': []}
    assert len(app.get('/networking/v2.0/ports',
                       headers=ADMIN).json['ports']) == 1


def test_project_network_is_hidden_from_other_projects(app, api_env):
    network_api.API().create_network(api_env.ctxt, 'a-net',
                                     '192.168.3.0/24',
                                     project_id='project-a')
    names = {n['name'] for n in app.get('/networking/v2.0/networks',
                                        headers=MEMBER).json['networks']}
    assert names == {'private', 'a-net'}
    names = {n['name'] for n in app.get('/networking/v2.0/networks',
                                        headers=OTHER).json['networks']}
    assert names == {'private'}


@pytest.mark.parametrize('path', ['/networking/v2.0/routers',
                                  '/networking/v2.0/networks/x/y',
                                  '/image/v2/schemas/image'])
def test_unknown_paths_are_404(app, path):
    assert app.get(path, headers=MEMBER, status=404).json[
        'itemNotFound']['code'] == 404


def test_networks_and_subnets_created_and_deleted(app, api_env):
    """Neutron's network and subnet create/delete, as Tempest's compute
    tests use them (ServersTestMultiNic)."""
    base = '/networking/v2.0/'
    net = app.post_json(base + 'networks', {'network': {'name': 'n1'}},
                        headers=MEMBER, status=201).json['network']
    assert (net['name'], net['subnets'], net['shared'],
            net['project_id']) == ('n1', [], False, 'project-a')
    # Refusals: shared by a member (403), an unknown attribute, an IPv6
    # or malformed cidr, a gateway outside it (400), another project's
    # network (404), an overlapping cidr (400).
    app.post_json(base + 'networks', {'network': {'shared': True}},
                  headers=MEMBER, status=403)
    app.post_json(base + 'networks', {'network': {'mtu': 9000}},
                  headers=MEMBER, status=400)
    for bad in ({'cidr': 'fd00::/64', 'ip_version': 6},
                {'cidr': 'nope', 'ip_version': 4},
                {'cidr': '19.80.0.0/24', 'ip_version': 4,
                 'gateway_ip': '10.0.0.1'}):
        app.post_json(base + 'subnets', {'subnet': dict(
            bad, network_id=net['id'])}, headers=MEMBER, status=400)
    spec = {'network_id': net['id'], 'cidr': '19.80.0.0/24',
            'ip_version': 4}
    app.post_json(base + 'subnets', {'subnet': spec}, headers=OTHER,
                  status=404)
    subnet = app.post_json(base + 'subnets', {'subnet': spec},
                           headers=MEMBER, status=201).json['subnet']
    assert (subnet['cidr'], subnet['gateway_ip'], subnet['network_id'],
            subnet['allocation_pools']) == (
        '19.80.0.0/24', '19.80.0.1', net['id'],
        [{'start': '19.80.0.2', 'end': '19.80.0.254'}])
    app.post_json(base + 'subnets', {'subnet': dict(
        spec, cidr='19.80.0.128/25')}, headers=MEMBER, status=400)
    assert app.get(base + 'networks/' + net['id'], headers=MEMBER).json[
        'network']['subnets'] == [subnet['id']]
    # A port with an address from it: neither can go (409).
    port = network_api.API().create_port(api_env.ctxt, net['id'],
                                         project_id='project-a')
    assert port['fixed_ips'][0]['ip_address'] == '19.80.0.2'
    app.delete(base + 'subnets/' + subnet['id'], headers=MEMBER,
               status=409)
    app.delete(base + 'networks/' + net['id'], headers=MEMBER, status=409)
    app.delete(base + 'ports/' + port['id'], headers=OTHER, status=404)
    app.delete(base + 'ports/' + port['id'], headers=MEMBER, status=204)
    app.delete(base + 'networks/' + net['id'], headers=OTHER, status=404)
    app.delete(base + 'subnets/' + subnet['id'], headers=MEMBER,
               status=204)
    app.delete(base + 'subnets/' + subnet['id'], headers=MEMBER,
               status=404)
    app.delete(base + 'networks/' + net['id'], headers=MEMBER, status=204)
    app.get(base + 'networks/' + net['id'], headers=MEMBER, status=404)


def test_image_without_data_downloads_as_204(app):
    """A shipped image is a record only: its download is Glance's answer
    for an image without data, a 204 (Tempest then uploads what it got
    into a new image); a deleted image's is a 404."""
    empty = app.get('/image/v2/images/%s/file' % CIRROS, headers=MEMBER)
    assert empty.status_int == 204
    assert empty.headers['Content-Type'] == 'application/octet-stream'
    assert empty.body == b''
    made = app.post_json('/image/v2/images', {'name': 'gone'},
                         headers=MEMBER, status=201).json
    path = '/image/v2/images/%s' % made['id']
    assert app.get(path + '/file', headers=MEMBER).status_int == 204
    app.put(path + '/file', b'', headers=dict(
        MEMBER, **{'Content-Type': 'application/octet-stream'}),
        status=204)
    assert app.get(path, headers=MEMBER).json['status'] == 'active'
    assert app.get(path + '/file', headers=MEMBER).body == b''
    app.delete(path, headers=MEMBER, status=204)
    app.get(path + '/file', headers=MEMBER, status=404)


def test_port_created_unbound_then_deleted(app, api_env):
    """Neutron's port create, as Tempest's interface attach tests make
    one to attach (AttachInterfacesTestJSON)."""
    base = '/networking/v2.0/'
    net = app.post_json(base + 'networks', {'network': {'name': 'p1'}},
                        headers=MEMBER, status=201).json['network']
    app.post_json(base + 'subnets', {'subnet': {
        'network_id': net['id'], 'cidr': '19.81.0.0/24', 'ip_version': 4}},
        headers=MEMBER, status=201)
    port = app.post_json(base + 'ports', {'port': {
        'network_id': net['id'], 'name': 'tempest-port'}},
        headers=MEMBER, status=201).json['port']
    assert (port['network_id'], port['device_id'], port['project_id'],
            port['fixed_ips'][0]['ip_address']) == (
        net['id'], '', 'project-a', '19.81.0.2')
    assert app.get(base + 'ports/' + port['id'], headers=MEMBER).json[
        'port']['id'] == port['id']
    chosen = app.post_json(base + 'ports', {'port': {
        'network_id': net['id'],
        'fixed_ips': [{'ip_address': '19.81.0.9'}]}},
        headers=MEMBER, status=201).json['port']
    assert chosen['fixed_ips'][0]['ip_address'] == '19.81.0.9'
    # Another project's network (404), an unknown attribute (400).
    app.post_json(base + 'ports', {'port': {'network_id': net['id']}},
                  headers=OTHER, status=404)
    app.post_json(base + 'ports', {'port': {
        'network_id': net['id'], 'mtu': 1}}, headers=MEMBER, status=400)
    for made in (port, chosen):
        app.delete(base + 'ports/' + made['id'], headers=MEMBER, status=204)
    app.get(base + 'ports/' + port['id'], headers=MEMBER, status=404)
