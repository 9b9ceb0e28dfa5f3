"""Every route under /v2.1/{project_id}/... (older Keystone catalogs),
and /extensions."""
from nova_lite.api.openstack.compute import extensions
from tests.conftest import set_override
from tests.functional.api.fixtures import ADMIN

PROJECT = '0a1b2c3d-4e5f'
OWNER = {'X-Auth-Token': 'bob:' + PROJECT}


def test_routes_answer_under_the_project_and_links_carry_it(app):
    app.post_json('/v2.1/flavors', {'flavor': {
        'name': 'f', 'id': 'f', 'ram': 512, 'vcpus': 1, 'disk': 1}},
        headers=ADMIN)
    body = app.get('/v2.1/%s/flavors' % PROJECT, headers=OWNER).json
    assert body['flavors']
    href = body['flavors'][0]['links'][0]['href']
    assert href.startswith('http://localhost/v2.1/%s/flavors/' % PROJECT)
    # The same resources as without the project, and its version document.
    plain = app.get('/v2.1/flavors', headers=OWNER).json
    assert [f['id'] for f in body['flavors']] == [
        f['id'] for f in plain['flavors']]
    version = app.get('/v2.1/%s' % PROJECT, headers=OWNER).json
    assert version['version']['id'] == 'v2.1'
    resp = app.get('/v2.1/%s/os-nothing' % PROJECT, headers=OWNER,
                   status=404)
    assert resp.json['itemNotFound']['code'] == 404


def test_another_project_in_the_url_is_400_for_everyone(app):
    for token in (OWNER, ADMIN):
        resp = app.get('/v2.1/ffff/flavors', headers=token, status=400)
        assert "URL's project_id 'ffff'" in resp.json['badRequest'][
            'message']


def test_project_id_regex(app):
    # Not hex: a resource name, 404.
    app.get('/v2.1/project-a/os-keypairs',
            headers={'X-Auth-Token': 'bob:project-a'}, status=404)
    set_override('project_id_regex', r'project-[a-z]', group='api')
    resp = app.get('/v2.1/project-a/os-keypairs',
                   headers={'X-Auth-Token': 'bob:project-a'})
    assert resp.json == {'keypairs': []}


def test_extensions(app):
    body = app.get('/v2.1/extensions', headers=OWNER).json
    aliases = [e['alias'] for e in body['extensions']]
    assert len(aliases) == len(extensions.EXTENSIONS) == 99
    assert 'os-simple-tenant-usage' in aliases
    shown = app.get('/v2.1/%s/extensions/os-rescue' % PROJECT,
                    headers=OWNER).json['extension']
    assert shown == {'alias': 'os-rescue', 'name': 'Rescue',
                     'description': 'Instance rescue mode.', 'links': [],
                     'namespace':
                         'http://docs.openstack.org/compute/ext/fake_xml',
                     'updated': '2014-12-03T00:00:00Z'}
    app.get('/v2.1/extensions/os-nothing', headers=OWNER, status=404)
