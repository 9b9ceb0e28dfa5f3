"""Tags and metadata of servers booted on a running plane: tags on
create (2.52), both shown from the build request to ACTIVE, changed once
the server is active and listed with the tag filters."""
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.api.test_servers_boot import MEMBER  # noqa: F401


def test_tags_on_create_from_252(api):  # noqa: F811
    refused = api('POST', '/servers', _server(tags=['a']), version='2.51')
    assert refused.status_code == 400
    assert 'tags' in refused.json()['badRequest']['message']
    too_many = api('POST', '/servers',
                   _server(tags=['t%d' % i for i in range(51)]),
                   version='2.52')
    assert too_many.status_code == 400
    bad = api('POST', '/servers', _server(tags=['a/b']), version='2.52')
    assert bad.status_code == 400
    created = api('POST', '/servers',
                  _server(tags=['web', 'prod'], metadata={'role': 'db'}),
                  version='2.52')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    early = api('GET', '/servers/%s/tags' % uuid, version='2.52').json()
    assert early == {'tags': ['prod', 'web']}
    body = _wait_status(api, uuid, 'ACTIVE', '2.52')['server']
    assert body['tags'] == ['prod', 'web']
    assert body['metadata'] == {'role': 'db'}
    # Changed once active, and shown.
    assert api('PUT', '/servers/%s/tags/extra' % uuid,
               version='2.26').status_code == 201
    assert api('POST', '/servers/%s/metadata' % uuid,
               {'metadata': {'tier': '1'}}).json() == {
        'metadata': {'role': 'db', 'tier': '1'}}
    body = api('GET', '/servers/%s' % uuid, version='2.26').json()['server']
    assert body['tags'] == ['extra', 'prod', 'web']
    assert body['metadata'] == {'role': 'db', 'tier': '1'}
    listed = api('GET', '/servers?tags=extra,web', version='2.26').json()
    assert [s['id'] for s in listed['servers']] == [uuid]
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204


def test_metadata_over_the_limit_on_create_is_403(api):  # noqa: F811
    many = {'k%d' % i: 'v' for i in range(129)}
    refused = api('POST', '/servers', _server(metadata=many),
                  version='2.37')
    assert refused.status_code == 403, refused.text
    assert 'metadata items' in refused.json()['forbidden']['message']
