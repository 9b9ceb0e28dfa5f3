"""/servers/{id}/metadata through the REST API on a running plane:
list, merge, replace, one key; the item limit, bad keys, another
project's server, states and the lock."""
import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite.conf import CONF
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf

OTHER = {'X-Auth-Token': 'eve:project-b'}


@pytest.fixture
def app(running):
    """The API app on the running plane's databases and transports."""
    return webtest.TestApp(api_app.load_app())


def boot(running, cell='cell1', **metadata):
    return running.boot(cell, metadata=metadata)


@pytest.fixture(scope='module')
def unchanged(running):
    """A server for the tests that change nothing (400s, 405s)."""
    return boot(running)


def url(uuid, key=None):
    path = '/v2.1/servers/%s/metadata' % uuid
    return path if key is None else '%s/%s' % (path, key)


def server_metadata(app, uuid, token=MEMBER):
    return app.get('/v2.1/servers/%s' % uuid,
                   headers=token).json['server']['metadata']


@pytest.mark.parametrize('cell', ['cell1', 'cell2'])
def test_list_merge_replace_and_one_key(app, running, cell):
    uuid = boot(running, cell, a='1', b='2')
    assert app.get(url(uuid), headers=MEMBER).json == {
        'metadata': {'a': '1', 'b': '2'}}
    merged = app.post_json(url(uuid), {'metadata': {'b': 'x', 'c': '3'}},
                           headers=MEMBER)
    assert merged.status_int == 200
    assert merged.json == {'metadata': {'a': '1', 'b': 'x', 'c': '3'}}
    replaced = app.put_json(url(uuid), {'metadata': {'z': 'last'}},
                            headers=MEMBER).json
    assert replaced == {'metadata': {'z': 'last'}}
    assert server_metadata(app, uuid) == {'z': 'last'}
    assert app.get(url(uuid, 'z'), headers=MEMBER).json == {
        'meta': {'z': 'last'}}
    item = app.put_json(url(uuid, 'y'), {'meta': {'y': 'new'}},
                        headers=MEMBER).json
    assert item == {'meta': {'y': 'new'}}
    assert server_metadata(app, uuid) == {'z': 'last', 'y': 'new'}
    resp = app.delete(url(uuid, 'z'), headers=MEMBER)
    assert resp.status_int == 204 and not resp.body
    assert server_metadata(app, uuid) == {'y': 'new'}
    app.get(url(uuid, 'z'), headers=MEMBER, status=404)
    error = app.delete(url(uuid, 'z'), headers=MEMBER, status=404).json
    assert error['itemNotFound']['message'] == 'Metadata item was not found'
    # Replacing with nothing removes everything.
    assert app.put_json(url(uuid), {'metadata': {}},
                        headers=MEMBER).json == {'metadata': {}}
    assert server_metadata(app, uuid) == {}


def test_same_at_every_microversion(app, running):
    uuid = boot(running, a='1')
    for v in ('2.1', '2.26', '2.88'):
        assert app.get(url(uuid), headers=headers(v, MEMBER)).json == {
            'metadata': {'a': '1'}}


def test_item_limit_is_403(app, running, override):
    uuid = boot(running, 'cell2', a='1', b='2')
    override('metadata_items', 3)
    app.post_json(url(uuid), {'metadata': {'c': '3'}}, headers=MEMBER)
    error = app.post_json(url(uuid), {'metadata': {'d': '4'}},
                          headers=MEMBER, status=403).json
    assert 'metadata items' in error['forbidden']['message']
    app.put_json(url(uuid, 'd'), {'meta': {'d': '4'}}, headers=MEMBER,
                 status=403)
    app.put_json(url(uuid), {'metadata': dict.fromkeys('wxyz', 'v')},
                 headers=MEMBER, status=403)
    # Replacing one value keeps the count.
    app.put_json(url(uuid, 'a'), {'meta': {'a': 'x'}}, headers=MEMBER)
    assert server_metadata(app, uuid) == {'a': 'x', 'b': '2', 'c': '3'}


def test_default_limit_is_128(app, running):
    assert CONF.metadata_items == 128
    uuid = boot(running)
    many = {'k%d' % i: 'v' for i in range(128)}
    app.put_json(url(uuid), {'metadata': many}, headers=MEMBER)
    app.post_json(url(uuid), {'metadata': {'one-more': 'v'}},
                  headers=MEMBER, status=403)


@pytest.mark.parametrize('body, field', [
    ({'metadata': {'': 'v'}}, 'metadata'),
    ({'metadata': {'k' * 256: 'v'}}, 'metadata'),
    ({'metadata': {'k': 'v' * 256}}, 'metadata/k'),
    ({'metadata': {'k': 1}}, 'metadata/k'),
    ({'metadata': {'bad/key': 'v'}}, 'metadata'),
    ({'metadata': []}, 'metadata'),
    ({'meta': {'k': 'v'}}, 'meta'),
    ({}, 'metadata'),
])
def test_bad_bodies_are_400_naming_the_field(app, unchanged, body, field):
    uuid = unchanged
    for method in (app.post_json, app.put_json):
        error = method(url(uuid), body, headers=MEMBER, status=400).json
        assert field in error['badRequest']['message'], error


@pytest.mark.parametrize('body, message', [
    ({'meta': {'k': 'v', 'j': 'w'}}, 'meta'),
    ({'meta': {}}, 'meta'),
    ({'meta': {'j': 'w'}}, 'Request body and URI mismatch'),
    ({'metadata': {'k': 'v'}}, 'meta'),
    ({'meta': {'k': 'v' * 256}}, 'meta/k'),
])
def test_bad_item_bodies_are_400(app, unchanged, body, message):
    uuid = unchanged
    error = app.put_json(url(uuid, 'k'), body, headers=MEMBER,
                         status=400).json
    assert message in error['badRequest']['message'], error


def test_another_projects_server_is_404(app, running):
    uuid = boot(running, 'cell2', k='v')
    app.get(url(uuid), headers=OTHER, status=404)
    app.get(url(uuid, 'k'), headers=OTHER, status=404)
    app.post_json(url(uuid), {'metadata': {'a': 'b'}}, headers=OTHER,
                  status=404)
    app.put_json(url(uuid), {'metadata': {}}, headers=OTHER, status=404)
    app.put_json(url(uuid, 'k'), {'meta': {'k': 'x'}}, headers=OTHER,
                 status=404)
    app.delete(url(uuid, 'k'), headers=OTHER, status=404)
    assert server_metadata(app, uuid, ADMIN) == {'k': 'v'}
    app.get(url('8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'), headers=MEMBER,
            status=404)


@pytest.mark.parametrize('values', [
    {'vm_state': 'building', 'task_state': 'spawning', 'launched_at': None},
    {'vm_state': 'active', 'task_state': 'rebooting'},
    {'vm_state': 'error'},
    {'vm_state': 'shelved'},
    {'vm_state': 'active', 'task_state': 'deleting'},
])
def test_wrong_state_is_409_and_nothing_changes(app, running, values):
    if values == {'vm_state': 'error'}:
        uuid = boot(running, k='v')
        running.reach(uuid, 'error')
    else:
        # seeded: a task state lasts only while its task runs, and this
        # plane has no shelve; the row is written into the running
        # plane's cell.
        uuid = sf.add_server(running, 'cell1', running.flavor(),
                             metadata={'k': 'v'}, **values)
    for call in (
            lambda: app.post_json(url(uuid), {'metadata': {'a': 'b'}},
                                  headers=MEMBER, status=409),
            lambda: app.put_json(url(uuid), {'metadata': {}},
                                 headers=MEMBER, status=409),
            lambda: app.put_json(url(uuid, 'k'), {'meta': {'k': 'x'}},
                                 headers=MEMBER, status=409),
            lambda: app.delete(url(uuid, 'k'), headers=MEMBER, status=409)):
        error = call().json
        assert "while it is in" in error['conflictingRequest']['message']
    # Reads still work.
    assert app.get(url(uuid), headers=MEMBER).json == {
        'metadata': {'k': 'v'}}


@pytest.mark.parametrize('state', ['paused', 'suspended', 'stopped'])
def test_paused_suspended_stopped_accept_changes(app, running, state):
    uuid = boot(running, 'cell2')
    running.reach(uuid, state)
    app.post_json(url(uuid), {'metadata': {'a': 'b'}}, headers=MEMBER)
    assert server_metadata(app, uuid) == {'a': 'b'}


def test_a_build_request_is_read_but_not_changed(app, running):
    # seeded: a build request lives only until the conductor schedules
    # the server, a fraction of a second on a running plane.
    uuid = sf.add_build_request(running, running.flavor())
    assert app.get(url(uuid), headers=MEMBER).json == {'metadata': {}}
    app.post_json(url(uuid), {'metadata': {'a': 'b'}}, headers=MEMBER,
                  status=409)


def test_locked_server_refuses_non_admins(app, running):
    uuid = boot(running, 'cell2', k='v')
    running.act(uuid, {'lock': None}, token=ADMIN['X-Auth-Token'])
    error = app.post_json(url(uuid), {'metadata': {'a': 'b'}},
                          headers=MEMBER, status=409).json
    assert 'is locked' in error['conflictingRequest']['message']
    app.delete(url(uuid, 'k'), headers=MEMBER, status=409)
    app.put_json(url(uuid, 'k'), {'meta': {'k': 'x'}}, headers=MEMBER,
                 status=409)
    assert app.get(url(uuid), headers=MEMBER).json == {
        'metadata': {'k': 'v'}}
    app.post_json(url(uuid), {'metadata': {'a': 'b'}}, headers=ADMIN)
    assert server_metadata(app, uuid) == {'k': 'v', 'a': 'b'}


def test_metadata_appears_in_lists(app, running):
    uuid = boot(running)
    app.post_json(url(uuid), {'metadata': {'role': 'db'}}, headers=MEMBER)
    listed = app.get('/v2.1/servers/detail', headers=MEMBER).json
    assert [s['metadata'] for s in listed['servers']
            if s['id'] == uuid] == [{'role': 'db'}]


def test_methods_not_served_are_405(app, unchanged):
    uuid = unchanged
    app.delete(url(uuid), headers=MEMBER, status=405)
    app.post_json(url(uuid, 'k'), {'meta': {'k': 'v'}}, headers=MEMBER,
                  status=405)
    app.get(url(uuid, 'k') + '/extra', headers=MEMBER, status=404)


def test_concurrent_merges_lose_no_key(running):
    """Merges sent at once over real sockets to the plane's API: each
    read-modify-write of the instance holds its row lock, so every key
    is kept."""
    import eventlet
    import requests
    uuid = boot(running, 'cell2', old='v')
    base = running.plane.endpoint + url(uuid)

    def merge(key):
        return requests.post(base, json={'metadata': {key: 'v'}},
                             headers=MEMBER, timeout=60).status_code
    keys = ['k%02d' % i for i in range(20)]
    assert set(eventlet.GreenPool(8).imap(merge, keys)) == {200}
    body = requests.get(base, headers=MEMBER, timeout=60).json()
    assert sorted(body['metadata']) == keys + ['old']
