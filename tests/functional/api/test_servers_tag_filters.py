"""The tags, tags-any, not-tags and not-tags-any list filters (2.26)
across both cells and the build requests, on servers booted with their
tags through the API of a running plane. (A build request's own tags
and the statement count: test_servers_tag_filters_seeded.py.)"""
import pytest
import webtest

from nova_lite.api import app as api_app
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf


@pytest.fixture
def app(running):
    """The API app on the running plane's databases and transports."""
    return webtest.TestApp(api_app.load_app())


@pytest.fixture(scope='module')
def tagged(running):
    """name -> uuid of servers booted in both cells (and one build
    request). The tests only read them."""
    layout = [('ab1', 'cell1', ['a', 'b']), ('a1', 'cell1', ['a']),
              ('b2', 'cell2', ['b']), ('abc2', 'cell2', ['a', 'b', 'c']),
              ('none2', 'cell2', []), ('c1', 'cell1', ['c'])]
    servers = {}
    for name, cell, tags in layout:
        servers[name] = running.boot(cell, version='2.52', name=name,
                                     tags=tags)
    # seeded: a build request lives only until the conductor schedules
    # the server, a fraction of a second on a running plane.
    servers['building'] = sf.add_build_request(running, running.flavor())
    return servers


def names(app, query, v='2.26', token=MEMBER):
    body = app.get('/v2.1/servers?' + query, headers=headers(v, token)).json
    return sorted(s['name'] for s in body['servers'])


@pytest.mark.parametrize('query, expected', [
    ('tags=a', ['a1', 'ab1', 'abc2']),
    ('tags=a,b', ['ab1', 'abc2']),
    ('tags=a,b,c', ['abc2']),
    ('tags=nope', []),
    ('tags-any=a,c', ['a1', 'ab1', 'abc2', 'c1']),
    ('tags-any=b', ['ab1', 'abc2', 'b2']),
    ('not-tags=a,b', ['a1', 'b2', 'building', 'c1', 'none2']),
    ('not-tags=a', ['b2', 'building', 'c1', 'none2']),
    ('not-tags-any=a,c', ['b2', 'building', 'none2']),
    ('not-tags-any=nope', ['a1', 'ab1', 'abc2', 'b2', 'building', 'c1',
                           'none2']),
    ('tags=a&not-tags-any=c', ['a1', 'ab1']),
    ('tags-any=a,b&not-tags=a,b', ['a1', 'b2']),
])
def test_filters_across_cells(app, tagged, query, expected):
    assert names(app, query) == expected
    assert names(app, query, v='2.88') == expected
    assert names(app, query + '&all_tenants=1', token=ADMIN) == expected


def test_ignored_before_226(app, tagged):
    everything = names(app, '', v='2.25')
    assert len(everything) == 7
    for query in ('tags=a', 'tags-any=a', 'not-tags=a', 'not-tags-any=a'):
        assert names(app, query, v='2.25') == everything
