"""The embedded image and network services as Glance's and Neutron's APIs
show them (read only), at /image and /networking."""
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
    assert app.post_json('/image/v2/images', {}, headers=MEMBER,
                         status=405).status_int == 405
    assert app.get('/image/v2/images?limit=x', headers=MEMBER,
                   status=400).status_int == 400


def test_private_image_only_for_its_project(app, api_env):
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    image = image_api.API().create(ctxt, 'mine')
    assert app.get('/image/v2/images/' + image['id'],
                   headers=MEMBER).json['visibility'] == 'private'
    app.get('/image/v2/images/' + image['id'], headers=OTHER, status=404)
    assert image['id'] not in [i['id'] for i in app.get(
        '/image/v2/images', headers=OTHER).json['images']]


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
