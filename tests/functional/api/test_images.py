"""The image proxy through the REST API: /images below 2.36 (bodies as the
Compute API reference shows them), 404 in the fault format from 2.36."""
import pytest

from nova_lite import context as nova_context
from nova_lite.image import api as image_api
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
OTHER = {'X-Auth-Token': 'carol:project-b'}
SHIPPED = [i['id'] for i in image_api.DEFAULT_IMAGES]


def get(app, path, version=None, token=MEMBER):
    return app.get('/v2.1' + path, headers=headers(version, token),
                   status='*')


def test_show_cirros_at_2_1(app):
    resp = get(app, '/images/' + CIRROS)
    assert resp.status_int == 200
    image = resp.json['image']
    assert sorted(image) == ['OS-EXT-IMG-SIZE:size', 'created', 'id',
                             'links', 'metadata', 'minDisk', 'minRam',
                             'name', 'progress', 'status', 'updated']
    assert image['name'] == 'cirros-0.6.2-x86_64-disk'
    assert (image['status'], image['progress']) == ('ACTIVE', 100)
    assert (image['minDisk'], image['minRam']) == (0, 0)
    assert image['OS-EXT-IMG-SIZE:size'] == 21430272
    assert image['created'] == '2026-01-01T00:00:00Z'
    assert image['metadata']['os_distro'] == 'cirros'
    rels = [(link['rel'], link['href'].split('//', 1)[1].split('/', 1)[1])
            for link in image['links']]
    assert rels == [('self', 'v2.1/images/' + CIRROS),
                    ('bookmark', 'images/' + CIRROS),
                    ('alternate', 'images/' + CIRROS)]
    assert image['links'][2]['type'] == 'application/vnd.openstack.image'


def test_list_and_detail(app):
    listed = get(app, '/images', '2.35').json['images']
    assert sorted(i['id'] for i in listed) == sorted(SHIPPED)
    assert sorted(listed[0]) == ['id', 'links', 'name']
    detailed = get(app, '/images/detail').json['images']
    assert {i['id']: i['minRam'] for i in detailed} == {
        SHIPPED[0]: 0, SHIPPED[1]: 512, SHIPPED[2]: 256}


def test_shipped_images_list_cirros_first(app):
    """Each shipped image has a creation time of its own (newest first
    lists cirros, the small one, first as a devstack does), and the
    bigger images keep their minimums."""
    detailed = get(app, '/images/detail').json['images']
    assert [i['name'] for i in detailed] == [
        'cirros-0.6.2-x86_64-disk', 'ubuntu-24.04-server-cloudimg-amd64',
        'debian-12-generic-amd64']
    assert len({i['created'] for i in detailed}) == 3
    assert [(i['minRam'], i['minDisk']) for i in detailed] == [
        (0, 0), (512, 3), (256, 2)]


def test_filters_and_paging(app):
    names = [i['name'] for i in get(
        app, '/images/detail?minRam=300').json['images']]
    assert names == ['ubuntu-24.04-server-cloudimg-amd64']
    assert [i['id'] for i in get(
        app, '/images?name=cirros-0.6.2-x86_64-disk').json['images']] == [
        CIRROS]
    assert get(app, '/images?status=ACTIVE').json['images']
    assert get(app, '/images?status=SAVING').json['images'] == []
    page = get(app, '/images?limit=2').json
    assert len(page['images']) == 2
    link = page['images_links'][0]
    assert link['rel'] == 'next' and 'marker=' in link['href']
    rest = get(app, '/images?marker=%s' % page['images'][-1]['id']).json
    assert len(rest['images']) == 1 and 'images_links' not in rest
    assert get(app, '/images?changes-since=2027-01-01T00:00:00Z'
               ).json['images'] == []


def test_server_and_type_filters(app, api_env):
    """As Nova's proxy: server (an id or a server URL) and type match the
    image properties instance_uuid and image_type; paged after the
    match."""
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    api = image_api.API()
    snaps = [api.create(ctxt, 'snap%d' % i, properties={
        'instance_uuid': 'server-1', 'image_type': 'snapshot'})
        for i in range(3)]
    backup = api.create(ctxt, 'backup', properties={
        'instance_uuid': 'server-1', 'image_type': 'backup'})
    other = api.create(ctxt, 'other', properties={
        'instance_uuid': 'server-2', 'image_type': 'snapshot'})

    def ids(query):
        return [i['id'] for i in get(app, '/images/detail?' + query
                                     ).json['images']]

    newest_first = [i['id'] for i in reversed(snaps)]
    assert ids('server=server-1') == [backup['id']] + newest_first
    assert ids('server=http://localhost/v2.1/servers/server-2') == [
        other['id']]
    assert ids('type=snapshot') == [other['id']] + newest_first
    assert CIRROS not in ids('type=snapshot')
    assert ids('server=server-1&type=snapshot') == newest_first
    assert ids('server=server-1&type=snapshot&limit=2') == newest_first[:2]
    assert ids('server=server-1&type=snapshot&marker=%s'
               % newest_first[0]) == newest_first[1:]
    assert ids('server=no-such-server') == []


@pytest.mark.parametrize('query', ['minRam=x', 'minDisk=1.5', 'limit=-1',
                                   'changes-since=yesterday',
                                   'marker=no-such-image'])
def test_bad_filters_are_400(app, query):
    resp = get(app, '/images?' + query)
    assert resp.status_int == 400
    assert resp.json['badRequest']['code'] == 400


def test_private_image_only_for_its_project(app, api_env):
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    image = image_api.API().create(ctxt, 'mine', size=5,
                                   properties={'instance_uuid': 'abc'})
    shown = get(app, '/images/' + image['id']).json['image']
    assert shown['server']['id'] == 'abc'
    assert get(app, '/images/' + image['id'], token=ADMIN).status_int == 200
    resp = get(app, '/images/' + image['id'], token=OTHER)
    assert resp.json['itemNotFound']['message'] == (
        'Image %s could not be found.' % image['id'])
    assert image['id'] not in [i['id'] for i in get(
        app, '/images', token=OTHER).json['images']]
    assert app.delete('/v2.1/images/' + image['id'], headers=OTHER,
                      status='*').status_int == 404
    assert app.delete('/v2.1/images/' + image['id'],
                      headers=MEMBER).status_int == 204
    assert get(app, '/images/' + image['id']).status_int == 404


@pytest.mark.parametrize('path', ['/images', '/images/detail',
                                  '/images/' + CIRROS])
def test_gone_from_2_36(app, path):
    assert get(app, path, '2.35').status_int == 200
    for version in ('2.36', '2.88'):
        resp = get(app, path, version)
        assert resp.status_int == 404
        assert resp.json['itemNotFound']['code'] == 404


def _meta_url(image_id, key=None):
    return '/v2.1/images/%s/metadata%s' % (image_id,
                                           '/' + key if key else '')


@pytest.fixture
def own_image(api_env):
    ctxt = nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')
    return image_api.API().create(ctxt, 'meta', properties={'a': '1'})


def test_image_metadata_lifecycle(app, own_image):
    url = _meta_url(own_image['id'])
    assert app.get(url, headers=MEMBER).json == {'metadata': {'a': '1'}}
    assert app.post_json(url, {'metadata': {'b': '2'}},
                         headers=MEMBER).json == {
        'metadata': {'a': '1', 'b': '2'}}
    assert app.get(_meta_url(own_image['id'], 'b'), headers=MEMBER).json \
        == {'meta': {'b': '2'}}
    assert app.put_json(_meta_url(own_image['id'], 'b'),
                        {'meta': {'b': '3'}}, headers=MEMBER).json == {
        'meta': {'b': '3'}}
    assert app.put_json(url, {'metadata': {'c': '4'}},
                        headers=MEMBER).json == {'metadata': {'c': '4'}}
    assert app.delete(_meta_url(own_image['id'], 'c'),
                      headers=MEMBER).status_int == 204
    assert app.get(url, headers=MEMBER).json == {'metadata': {}}
    # The image body shows what metadata now holds.
    app.post_json(url, {'metadata': {'k': 'v'}}, headers=MEMBER)
    assert get(app, '/images/' + own_image['id']).json['image'][
        'metadata'] == {'k': 'v'}


def test_image_metadata_errors(app, own_image):
    url = _meta_url(own_image['id'])
    missing = app.get(_meta_url(own_image['id'], 'nope'), headers=MEMBER,
                      status=404)
    assert missing.json['itemNotFound']['message'] == 'Invalid metadata key'
    app.delete(_meta_url(own_image['id'], 'nope'), headers=MEMBER,
               status=404)
    mismatch = app.put_json(_meta_url(own_image['id'], 'a'),
                            {'meta': {'b': '1'}}, headers=MEMBER,
                            status=400)
    assert 'mismatch' in mismatch.json['badRequest']['message']
    for body in ({'meta': {'a': '1', 'b': '2'}}, {'meta': {}},
                 {'meta': {'a': 1}}):
        app.put_json(_meta_url(own_image['id'], 'a'), body, headers=MEMBER,
                     status=400)
    app.post_json(url, {'metadata': {'a' * 256: 'v'}}, headers=MEMBER,
                  status=400)
    app.post_json(url, {'metadatas': {}}, headers=MEMBER, status=400)
    too_many = {'metadata': {'k%d' % i: 'v' for i in range(129)}}
    assert app.put_json(url, too_many, headers=MEMBER, status=403).json[
        'forbidden']['message'] == 'Image metadata limit exceeded'
    # Another project: the private image does not exist; a public image
    # of nobody's project may be read, not changed.
    app.get(url, headers=OTHER, status=404)
    assert app.get(_meta_url(CIRROS), headers=OTHER).json['metadata'][
        'os_distro'] == 'cirros'
    app.post_json(_meta_url(CIRROS), {'metadata': {'x': 'y'}},
                  headers=OTHER, status=403)
    app.post_json(_meta_url(CIRROS), {'metadata': {'x': 'y'}},
                  headers=ADMIN, status=200)


def test_image_metadata_gone_from_2_39(app, own_image):
    url = _meta_url(own_image['id'])
    assert app.get(url, headers=headers('2.38', MEMBER)).status_int == 200
    resp = app.get(url, headers=headers('2.39', MEMBER), status=404)
    assert resp.json['itemNotFound']['code'] == 404
    app.post_json(url, {'metadata': {'b': '2'}},
                  headers=headers('2.39', MEMBER), status=404)
