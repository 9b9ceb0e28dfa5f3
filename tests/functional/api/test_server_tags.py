"""/servers/{id}/tags through the REST API (2.26) on a running plane:
list, replace, delete all, check, add and delete one; the 50-tag limit,
bad tags, another project's server, states; tags on create (2.52)."""
import pytest
import webtest

from nova_lite.api import app as api_app
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf

OTHER = {'X-Auth-Token': 'eve:project-b'}
V = '2.26'


@pytest.fixture
def app(running):
    """The API app on the running plane's databases and transports."""
    return webtest.TestApp(api_app.load_app())


def boot(running, cell='cell1', tags=()):
    """A server booted with tags (2.52) in cell."""
    return running.boot(cell, version='2.52', tags=list(tags))


@pytest.fixture(scope='module')
def kept(running):
    """A server tagged 'keep' for the tests that change nothing."""
    return boot(running, tags=['keep'])


@pytest.fixture(scope='module')
def untagged(running):
    """A server with no tags for the tests that change nothing."""
    return boot(running)


def url(uuid, tag=None):
    path = '/v2.1/servers/%s/tags' % uuid
    return path if tag is None else '%s/%s' % (path, tag)


def h(token=MEMBER, v=V):
    return headers(v, token)


def shown_tags(app, uuid):
    return app.get('/v2.1/servers/%s' % uuid,
                   headers=h()).json['server']['tags']


@pytest.mark.parametrize('cell', ['cell1', 'cell2'])
def test_list_replace_check_add_delete(app, running, cell):
    uuid = boot(running, cell, ['b', 'a'])
    assert app.get(url(uuid), headers=h()).json == {'tags': ['a', 'b']}
    assert app.get(url(uuid, 'a'), headers=h()).status_int == 204
    app.get(url(uuid, 'zz'), headers=h(), status=404)
    added = app.put(url(uuid, 'c'), headers=h())
    assert added.status_int == 201 and not added.body
    assert added.headers['Location'].endswith(
        '/v2.1/servers/%s/tags/c' % uuid)
    again = app.put(url(uuid, 'c'), headers=h())
    assert again.status_int == 204 and 'Location' not in again.headers
    assert shown_tags(app, uuid) == ['a', 'b', 'c']
    assert app.delete(url(uuid, 'a'), headers=h()).status_int == 204
    error = app.delete(url(uuid, 'a'), headers=h(), status=404).json
    assert 'has no tag' in error['itemNotFound']['message']
    replaced = app.put_json(url(uuid), {'tags': ['x', 'y', 'x']},
                            headers=h())
    assert replaced.status_int == 200
    assert replaced.json == {'tags': ['x', 'y']}
    assert shown_tags(app, uuid) == ['x', 'y']
    assert app.delete(url(uuid), headers=h()).status_int == 204
    assert app.get(url(uuid), headers=h()).json == {'tags': []}


def test_tags_exist_from_226(app, running):
    uuid = boot(running, tags=['a'])
    before = h(v='2.25')
    app.get(url(uuid), headers=before, status=404)
    app.get(url(uuid, 'a'), headers=before, status=404)
    app.put(url(uuid, 'b'), headers=before, status=404)
    app.put_json(url(uuid), {'tags': []}, headers=before, status=404)
    app.delete(url(uuid, 'a'), headers=before, status=404)
    app.delete(url(uuid), headers=before, status=404)
    assert app.get(url(uuid), headers=h(v='2.88')).json == {'tags': ['a']}


def test_fifty_tags_at_most(app, running):
    uuid = boot(running, 'cell2')
    fifty = ['t%02d' % i for i in range(50)]
    app.put_json(url(uuid), {'tags': fifty}, headers=h())
    error = app.put(url(uuid, 'one-more'), headers=h(), status=400).json
    assert 'per-server limit 50' in error['badRequest']['message']
    # Even a tag it has, as Nova answers.
    app.put(url(uuid, 't00'), headers=h(), status=400)
    error = app.put_json(url(uuid), {'tags': fifty + ['x']}, headers=h(),
                         status=400).json
    assert 'tags' in error['badRequest']['message']
    assert len(shown_tags(app, uuid)) == 50


@pytest.mark.parametrize('tag', ['a,b', 'x' * 61, 'with%2Fslash'])
def test_bad_tag_in_url_is_400(app, untagged, tag):
    uuid = untagged
    app.put(url(uuid, tag), headers=h(), status=(404 if '%2F' in tag
                                                 else 400))
    assert shown_tags(app, uuid) == []


@pytest.mark.parametrize('body, field', [
    ({'tags': ['a,b']}, 'tags'),
    ({'tags': ['']}, 'tags'),
    ({'tags': ['x' * 61]}, 'tags'),
    ({'tags': [1]}, 'tags'),
    ({'tags': 'a'}, 'tags'),
    ({}, 'tags'),
    ({'tags': [], 'other': 1}, 'other'),
])
def test_bad_bodies_are_400_naming_the_field(app, kept, body, field):
    uuid = kept
    error = app.put_json(url(uuid), body, headers=h(), status=400).json
    assert field in error['badRequest']['message'], error
    assert shown_tags(app, uuid) == ['keep']


def test_unicode_and_spaces_are_tags(app, running):
    uuid = boot(running)
    app.put_json(url(uuid), {'tags': ['with space', 'ünï']}, headers=h())
    assert app.get(url(uuid, 'with%20space'), headers=h()).status_int == 204
    assert shown_tags(app, uuid) == ['with space', 'ünï']


def test_another_projects_server_is_404(app, running):
    uuid = boot(running, 'cell2', ['a'])
    app.get(url(uuid), headers=h(OTHER), status=404)
    app.get(url(uuid, 'a'), headers=h(OTHER), status=404)
    app.put(url(uuid, 'b'), headers=h(OTHER), status=404)
    app.put_json(url(uuid), {'tags': []}, headers=h(OTHER), status=404)
    app.delete(url(uuid, 'a'), headers=h(OTHER), status=404)
    app.delete(url(uuid), headers=h(OTHER), status=404)
    assert app.get(url(uuid), headers=h(ADMIN)).json == {'tags': ['a']}


@pytest.mark.parametrize('vm_state', ['building', 'error', 'deleted',
                                      'resized', 'rescued'])
def test_wrong_state_is_409(app, running, vm_state):
    if vm_state == 'error':
        uuid = boot(running, tags=['a'])
        running.reach(uuid, 'error')
    else:
        # seeded: a build ends within a second, a deleted server is gone
        # from the API, this plane has no rescue, and resize (which
        # reaches 'resized') is still in progress on its own branch;
        # the row is written into the running plane's cell.
        uuid = sf.add_server(running, 'cell1', running.flavor(),
                             tags=['a'], vm_state=vm_state)
    for call in (
            lambda: app.put(url(uuid, 'b'), headers=h(), status=409),
            lambda: app.put_json(url(uuid), {'tags': []}, headers=h(),
                                 status=409),
            lambda: app.delete(url(uuid, 'a'), headers=h(), status=409),
            lambda: app.delete(url(uuid), headers=h(), status=409)):
        assert 'while it is in vm_state %s' % vm_state in \
            call().json['conflictingRequest']['message']
    assert app.get(url(uuid), headers=h()).json == {'tags': ['a']}


@pytest.mark.parametrize('vm_state', ['paused', 'suspended', 'stopped',
                                      'shelved', 'shelved_offloaded'])
def test_states_that_accept_changes(app, running, vm_state):
    # seeded: a task_state lasts only while its task runs (the point is
    # that neither it nor the lock matters), and this plane has no shelve.
    uuid = sf.add_server(running, 'cell2', running.flavor(),
                         vm_state=vm_state, task_state='powering-on',
                         locked=True)
    # Neither the task nor the lock matters for tags (as in Nova).
    assert app.put(url(uuid, 'b'), headers=h()).status_int == 201


def test_a_build_request_shows_its_tags_but_refuses_changes(app, running):
    # seeded: a build request lives only until the conductor schedules
    # the server, a fraction of a second on a running plane.
    uuid = sf.add_build_request(running, running.flavor())
    assert app.get(url(uuid), headers=h()).json == {'tags': []}
    app.put(url(uuid, 'b'), headers=h(), status=409)


def test_concurrent_adds_lose_no_tag_and_keep_the_limit(running):
    """Tags added at once over real sockets to the plane's API: every
    add is kept, and the 50-tag limit holds (each add is one transaction
    under the row lock)."""
    import eventlet
    import requests
    uuid = boot(running, tags=['old%02d' % i for i in range(30)])
    base = running.plane.endpoint + url(uuid)
    hdrs = dict(MEMBER, **{'OpenStack-API-Version': 'compute ' + V})

    def add(tag):
        return requests.put('%s/%s' % (base, tag), headers=hdrs,
                            timeout=60).status_code
    pool = eventlet.GreenPool(8)
    statuses = sorted(pool.imap(add, ['new%02d' % i for i in range(30)]))
    assert statuses == [201] * 20 + [400] * 10, statuses
    tags = requests.get(base, headers=hdrs, timeout=60).json()['tags']
    assert len(tags) == 50
    assert len([t for t in tags if t.startswith('new')]) == 20
