"""The tags, tags-any, not-tags and not-tags-any list filters (2.26)
across both cells and the build requests, and a statement count that
does not grow with the number of servers."""
import datetime
import json

import pytest

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models

from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf
from tests.functional.api.test_servers_list import _statements

T0 = sf.T0


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def small(env):
    return sf.flavor(env.ctxt, 'small')


@pytest.fixture
def tagged(app, env, small):
    """name -> uuid of servers in both cells (and one build request)."""
    layout = [('ab1', 'cell1', ['a', 'b']), ('a1', 'cell1', ['a']),
              ('b2', 'cell2', ['b']), ('abc2', 'cell2', ['a', 'b', 'c']),
              ('none2', 'cell2', []), ('c1', 'cell1', ['c'])]
    servers = {}
    for i, (name, cell, tags) in enumerate(layout):
        servers[name] = sf.add_server(
            env, cell, small, display_name=name, tags=tags,
            created_at=T0 + datetime.timedelta(minutes=i))
    servers['building'] = sf.add_build_request(
        env, small, created_at=T0 + datetime.timedelta(minutes=10))
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


@api_db.writer
def _tag_build_request(context, uuid, tags):
    table = api_models.BuildRequest.__table__
    context.session.execute(table.update().where(
        table.c.instance_uuid == uuid).values(tags=json.dumps(tags)))


def test_a_build_requests_tags_are_filtered_too(app, env, small):
    uuid = sf.add_build_request(env, small, name='tagged-build')
    _tag_build_request(env.ctxt, uuid, ['x'])
    assert names(app, 'tags=x') == ['tagged-build']
    assert names(app, 'tags-any=x,y') == ['tagged-build']
    assert names(app, 'not-tags-any=x') == []
    assert names(app, 'not-tags=x,y') == ['tagged-build']
    assert app.get('/v2.1/servers/%s/tags' % uuid,
                   headers=headers('2.26', MEMBER)).json == {'tags': ['x']}


def test_statements_do_not_grow_with_the_servers(app, env, small):
    def fill(n, start):
        for i in range(n):
            sf.add_server(env, 'cell1' if i % 2 else 'cell2', small,
                          created_at=T0 + datetime.timedelta(minutes=start
                                                             + i),
                          tags=['t', 'even' if i % 2 == 0 else 'odd'])
    query = ('/v2.1/servers/detail?all_tenants=1&limit=1000'
             '&tags=t&tags-any=even,odd&not-tags=x,y&not-tags-any=z')
    fill(10, 0)
    few = _statements(app, env, query)
    fill(190, 100)
    many = _statements(app, env, query)
    listed = app.get(query, headers=headers('2.26', ADMIN)).json['servers']
    assert len(listed) == 200
    assert many == few, (few, many)
    odd = app.get('/v2.1/servers?all_tenants=1&limit=1000&tags=odd',
                  headers=headers('2.26', ADMIN)).json['servers']
    assert len(odd) == 100
